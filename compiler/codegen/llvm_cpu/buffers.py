"""The buffers a llvm-cpu kernel addresses: dispatch bindings, rodata globals, scratch allocas.

kernel_ir numbers a kernel's own buffers after its bindings (``Kernel.rodata_binding``,
``Kernel.scratch_binding``). Here:

- a binding is the pointer and byte length the dispatch state carries;
- ``Rodata`` becomes a private constant global of the object (64-byte aligned), its length
  the data size;
- ``Scratch`` becomes a stack allocation of the workgroup function (64-byte aligned), sized by
  the workgroup's tile along tiled dims. Per workgroup at most ``SCRATCH_LIMIT`` bytes: a
  static excess is a CompileError, a dynamic one makes the workgroup return
  ``STATUS_SCRATCH_EXHAUSTED`` (IREE bounds stack allocations the same way,
  ``iree-llvmcpu-stack-allocation-limit``). A tiled scratch's base pointer is moved back by
  the workgroup's tile start so logical indices address it directly.

``view(v)`` gives the View with the strides code must use (a scratch's allocated strides);
``inbounds(ordinal)`` says whether GEPs from its base may be marked inbounds (not for a
shifted scratch base).
"""
from dataclasses import replace

from llvmlite import ir

from rt.compiler.codegen.kernel_ir import element_size
from rt.compiler.codegen.llvm_cpu import sizes as sz
from rt.compiler.codegen.llvm_cpu.interface import I32, I64, PTR
from rt.compiler.codegen.llvm_cpu.views import storage_type
from rt.runtime.errors import CompileError

I8 = ir.IntType(8)
I128 = ir.IntType(128)
#: Bytes of scratch one workgroup may allocate on its stack.
SCRATCH_LIMIT = 512 * 1024
#: Workgroup status when dynamic sizes ask for more than SCRATCH_LIMIT bytes of scratch.
STATUS_SCRATCH_EXHAUSTED = 3


def opaque(builder, pointer):
    """``pointer`` (a typed llvmlite pointer: alloca, global) as an opaque ``ptr`` value, the type
    binding pointers have, so loads and stores of any type go through it. IRBuilder.bitcast
    folds a pointer-to-pointer cast away (llvmlite compares pointer types ignoring the
    pointee), hence the explicit instruction."""
    cast = ir.instructions.CastInstr(builder.block, "bitcast", pointer, PTR, "")
    builder._insert(cast)
    return cast


def scratch_extents(kernel, scratch):
    """Sizes of the per-workgroup allocation of ``scratch`` (tiles on tiled dims)."""
    tiles = kernel.distribution.tiles
    extents = []
    for k, extent in enumerate(scratch.shape):
        axis = scratch.axis(k)
        if axis is None:
            extents.append(extent)
        else:
            extents.append(min(extent, tiles[axis]) if isinstance(extent, int) else tiles[axis])
    return tuple(extents)


class Buffers:
    """Base pointers, lengths and addressing of every buffer of ``kernel`` inside one export.

    Build it in the entry block after the SizeValues exist: ``allocate(ids)`` emits the
    scratch allocations (and the size check) given the workgroup ids per distributed axis.
    """

    def __init__(self, builder, interface, sizes, kernel, module):
        self.b, self.k, self.sizes, self.kernel = builder, interface, sizes, kernel
        self.module = module
        self._pointers = {}
        self._shifted = set()
        for j, s in enumerate(kernel.scratch):
            if s.tiled and len(s.tiled) != len(s.shape):
                raise CompileError(f"llvm-cpu codegen: kernel '{kernel.name}' scratch {j}: tiled "
                                   f"{s.tiled} must give one entry per dim of {s.shape}")
            for axis in s.tiled:
                if axis is not None and not 0 <= axis < len(kernel.distribution.dims):
                    raise CompileError(f"llvm-cpu codegen: kernel '{kernel.name}' scratch {j} is "
                                       f"tiled along axis {axis}, which is not distributed")

    def kind(self, ordinal):
        """``(kind, index)`` of a View binding ordinal; CompileError when it names nothing."""
        try:
            return self.kernel.buffer(ordinal)
        except ValueError as e:
            raise CompileError(f"llvm-cpu codegen: {e}") from None

    def allocate(self, ids):
        """Emit every scratch allocation; ``ids``: i64 workgroup id per distributed axis."""
        b, kernel = self.b, self.kernel
        if not kernel.scratch:
            return
        counts, total, static_total = [], I128(0), 0
        for s in kernel.scratch:
            count, static = I128(1), 1
            for extent in scratch_extents(kernel, s):
                count = b.mul(count, b.zext(self.sizes.get(extent), I128))
                static = static * extent if static is not None and isinstance(extent, int) else None
            size = element_size(s.element_type)
            counts.append(count)
            total = b.add(total, b.mul(count, I128(size)))
            if static is None or static_total is None:
                static_total = None
            else:
                static_total += static * size
        if static_total is not None and static_total > SCRATCH_LIMIT:
            raise CompileError(f"llvm-cpu codegen: kernel '{kernel.name}' needs {static_total} "
                               f"bytes of workgroup scratch; the limit is {SCRATCH_LIMIT}")
        with b.if_then(b.icmp_unsigned(">", total, I128(SCRATCH_LIMIT)), likely=False):
            b.ret(I32(STATUS_SCRATCH_EXHAUSTED))
        tiles = kernel.distribution.tiles
        for j, (s, count) in enumerate(zip(kernel.scratch, counts)):
            ordinal = kernel.scratch_binding(j)
            ty = storage_type(s.element_type)
            base = b.alloca(ty, size=b.trunc(count, I64), name=f"scratch{j}")
            base.align = 64
            shift = I64(0)
            strides = sz.contiguous_strides(scratch_extents(kernel, s))
            for k, stride in enumerate(strides):
                axis = s.axis(k)
                if axis is not None:
                    lo = b.mul(ids[axis], I64(tiles[axis]))
                    shift = b.add(shift, b.mul(lo, self.sizes.get(stride)))
            if any(a is not None for a in s.tiled):
                base = b.gep(base, [b.neg(shift)], source_etype=ty)
                self._shifted.add(ordinal)
            self._pointers[ordinal] = opaque(b, base)

    def pointer(self, ordinal):
        """Base pointer of buffer ``ordinal`` (entry-block value)."""
        if ordinal not in self._pointers:
            kind, i = self.kind(ordinal)
            if kind == "binding":
                self._pointers[ordinal] = self.k.binding(i)
            elif kind == "rodata":
                self._pointers[ordinal] = self._rodata(i)
            else:
                raise CompileError(f"llvm-cpu codegen: scratch buffer {ordinal} used before "
                                   f"allocation")
        return self._pointers[ordinal]

    def _rodata(self, i):
        data = bytes(self.kernel.rodata[i].data)
        ty = ir.ArrayType(I8, max(1, len(data)))
        g = ir.GlobalVariable(self.module, ty, f"{self.kernel.name}.rodata{i}")
        g.initializer = ir.Constant(ty, bytearray(data or b"\0"))
        g.global_constant, g.linkage, g.align = True, "private", 64
        return opaque(self.b, g)

    def length(self, ordinal):
        """Byte length (i64) of a binding or rodata; None for scratch (checked structurally)."""
        kind, i = self.kind(ordinal)
        if kind == "binding":
            return self.k.binding_length(i)
        if kind == "rodata":
            return I64(len(self.kernel.rodata[i].data))
        return None

    def inbounds(self, ordinal):
        """False for a scratch whose base pointer is shifted by the tile start."""
        return ordinal not in self._shifted

    def view(self, view):
        """``view`` with the strides its buffer is addressed with (allocated ones for a tiled
        scratch, whose views are whole buffers)."""
        kind, j = self.kind(view.binding)
        if kind != "scratch":
            return view
        s = self.kernel.scratch[j]
        if view.element_type != s.element_type or len(view.shape) != len(s.shape):
            raise CompileError(f"llvm-cpu codegen: kernel '{self.kernel.name}': a view of "
                               f"scratch {j} has type {view.element_type}/rank "
                               f"{len(view.shape)}, the scratch {s.element_type}/rank "
                               f"{len(s.shape)}")
        if not any(a is not None for a in s.tiled):
            return view
        if view.offset != 0 or view.strides is not None or tuple(view.shape) != tuple(s.shape):
            raise CompileError(f"llvm-cpu codegen: kernel '{self.kernel.name}': scratch {j} is "
                               f"tiled, so its views must be the whole buffer")
        return replace(view, strides=sz.contiguous_strides(scratch_extents(self.kernel, s)))
