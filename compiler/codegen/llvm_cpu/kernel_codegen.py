"""kernel_ir.Kernel -> one llvm-cpu export (a workgroup function).

The export follows the dispatch ABI of ``rt.devices.llvm_cpu.abi``. Its entry block, like the
prologue IREE's ConvertToLLVM gives every dispatch, reads the push constants and binding
pointers and evaluates every Size of the kernel; then it checks, for each op, that every
index its loops can produce stays inside the views and every view inside its binding
(returning ``abi.STATUS_OUT_OF_RANGE`` otherwise, ``abi.STATUS_INVALID_ARGUMENT`` for a zero
divisor in a size expression), so no push constant or binding length can make a kernel touch
memory it was not given. A body's integer division by zero makes the workgroup return
``abi.STATUS_DIVISION_BY_ZERO`` once its ops have run (see ``scalar``). Then each op runs, in order, over this workgroup's tile of the
Distribution: on each distributed dim i the loop range is
``[id_i * tile_i, min((id_i + 1) * tile_i, extent))`` of the op dim ``op_dims[op][i]``.

Ops: Generic (``generic.GenericPlan``, with the register-tiled ``matmul`` fast path for f32
contractions, ``batch_mmt4d`` for batched packed contractions, ``conv`` for convolutions
over packed filters, ``window`` for depthwise convolutions and poolings and ``transpose`` for
transposing copies), Mmt4d (``mmt4d`` /
``mmt4d_int`` tiles for contiguous f32, f16 and i8/i16 operands, else as a Generic), Pack and
Unpack (``relayout``, ``relayout_vector``), Attention (``attention``: the flash kernel).

A zero fill followed by an op writing the same view (a data-tiled contraction or conv) is
folded into it when its plan offers ``absorb_zero_fill(fill, fill_plan, fill_ranges)``: the
op's tile kernel then starts from zero instead of reading the filled output, and emits the
fill itself before its fallback loops. A plan with ``checks_absorbed_fill`` (a batch_mmt4d
over views in place, whose fill's view reaches past the matrix) checks that view itself.

Loop-dim conventions for distribution (kernel_ir leaves them to the ops): Generic: its domain;
Mmt4d: d0 = M1, d1 = N1 (d2 = K1, d3 = M0, d4 = N0, d5 = K0); Pack: the dims of the packed
dest; Unpack: the dims of the packed source (outer tile dims first, then inner tile dims).
"""
from llvmlite import ir

from rt.compiler.codegen import kernel_ir as kir
from rt.compiler.codegen.llvm_cpu import (attention, batch_mmt4d, conv, matmul, mmt4d, reduction,
                                     relayout, transpose, window)
from rt.compiler.codegen.llvm_cpu.buffers import Buffers
from rt.compiler.codegen.llvm_cpu.generic import GenericPlan
from rt.compiler.codegen.llvm_cpu.interface import I32, I64, KernelInterface
from rt.compiler.codegen.llvm_cpu.sizes import SizeValues, check_size, iter_sizes
from rt.devices.llvm_cpu import abi
from rt.runtime.errors import CompileError

I1 = ir.IntType(1)


class KernelContext:
    """What op emitters share: builder ``b``, interface ``k``, ``target``, ``sizes``, the
    kernel's ``buffers`` (bindings, rodata, scratch) and its push constants."""

    def __init__(self, builder, interface, target, kernel, module):
        self.b = builder
        self.k = interface
        self.target = target
        self.kernel = kernel
        self.sizes = SizeValues(builder, interface, kernel.constant_count)
        self.buffers = Buffers(builder, interface, self.sizes, kernel, module)
        self._constants = {}

    def binding(self, ordinal):
        """Base pointer of buffer ``ordinal`` (a binding, rodata or scratch)."""
        return self.buffers.pointer(ordinal)

    def push_constant(self, ordinal):
        """Push constant ``ordinal`` as an i32 (loaded once, where first asked for)."""
        if not 0 <= ordinal < self.kernel.constant_count:
            raise CompileError(f"llvm-cpu codegen: kernel '{self.kernel.name}' reads push "
                               f"constant {ordinal} but declares {self.kernel.constant_count}")
        if ordinal not in self._constants:
            self._constants[ordinal] = self.b.trunc(self.k.constant(ordinal), I32)
        return self._constants[ordinal]


def _views(op):
    if isinstance(op, kir.Generic):
        return op.inputs + op.outputs + op.gathers
    if isinstance(op, kir.Mmt4d):
        return (op.lhs, op.rhs, op.out)
    if isinstance(op, kir.Attention):
        return tuple(attention.views(op).values())
    return (op.source, op.dest)


def _op_sizes(op):
    """Every Size ``op`` mentions (domain, view shapes/offsets/strides, tiles)."""
    for view in _views(op):
        yield from (*view.shape, view.offset, *(view.strides or ()))
    if isinstance(op, kir.Generic):
        yield from op.domain
    if isinstance(op, (kir.Pack, kir.Unpack)):
        yield from op.inner_tiles


def _validate(kernel):
    name = kernel.name
    if not kernel.ops:
        raise CompileError(f"llvm-cpu codegen: kernel '{name}' has no ops")
    dist = kernel.distribution
    if len(dist.dims) > 3 or len(dist.tiles) != len(dist.dims):
        raise CompileError(f"llvm-cpu codegen: kernel '{name}': distribution dims {dist.dims} "
                           f"/ tiles {dist.tiles} must pair up, at most three")
    if any(isinstance(t, bool) or not isinstance(t, int) or t < 1 for t in dist.tiles):
        raise CompileError(f"llvm-cpu codegen: kernel '{name}': tiles {dist.tiles} must be "
                           f"static ints >= 1")
    if dist.dims and len(dist.op_dims) != len(kernel.ops):
        raise CompileError(f"llvm-cpu codegen: kernel '{name}': op_dims has "
                           f"{len(dist.op_dims)} entries for {len(kernel.ops)} ops")
    for i, op in enumerate(kernel.ops):
        if not isinstance(op, (kir.Generic, kir.Mmt4d, kir.Pack, kir.Unpack, kir.Attention)):
            raise CompileError(f"llvm-cpu codegen: kernel '{name}' op {i} is a "
                               f"{type(op).__name__}; expected Generic, Mmt4d, Pack, Unpack or Attention")
        for size in _op_sizes(op):
            check_size(size, f"kernel '{name}' op {i}")
        if dist.dims and len(dist.op_dims[i]) != len(dist.dims):
            raise CompileError(f"llvm-cpu codegen: kernel '{name}': op_dims[{i}] "
                               f"{dist.op_dims[i]} must align with dims {dist.dims}")
    if len(kernel.binding_access) not in (0, kernel.binding_count):
        raise CompileError(f"llvm-cpu codegen: kernel '{name}': binding_access has "
                           f"{len(kernel.binding_access)} entries for {kernel.binding_count} "
                           f"bindings")
    if dist.op_offsets and (len(dist.op_offsets) != len(kernel.ops) or any(
            len(o) != len(dist.dims) for o in dist.op_offsets)):
        raise CompileError(f"llvm-cpu codegen: kernel '{name}': op_offsets {dist.op_offsets} "
                           f"must give one Size per distributed dim for each op")
    for offsets in dist.op_offsets:
        for size in offsets:
            check_size(size, f"kernel '{name}' op_offsets")
    if len(dist.extents) not in (0, len(dist.dims)):
        raise CompileError(f"llvm-cpu codegen: kernel '{name}': extents {dist.extents} must "
                           f"give one Size per distributed dim")
    for j, scratch in enumerate(kernel.scratch):
        for size in scratch.shape:
            check_size(size, f"kernel '{name}' scratch {j}")
    for i, op in enumerate(kernel.ops):
        _validate_buffer_uses(kernel, i, op)


def _touches(op):
    """(view, indexing map or None, written) for every view ``op`` reads or writes."""
    d = kir.AffineExpr.dim
    if isinstance(op, kir.Generic):
        n_in = len(op.inputs)
        return [(v, m, i >= n_in) for i, (v, m) in enumerate(zip(op.inputs + op.outputs,
                                                                 op.indexing_maps))] + [
            (v, None, False) for v in op.gathers]
    if isinstance(op, kir.Mmt4d):
        return [(op.lhs, (d(0), d(2), d(3), d(5)), False), (op.rhs, (d(1), d(2), d(4), d(5)), False),
                (op.out, (d(0), d(1), d(3), d(4)), True)]
    if isinstance(op, kir.Attention):
        return [(view, attention.MAPS[name], name == "out") for name, view in attention.views(op).items()]
    return [(op.source, None, False), (op.dest, None, True)]


def _validate_buffer_uses(kernel, i, op):
    """Rodata is never written; a tiled scratch dim is indexed by the op's distributed dim."""
    where = f"llvm-cpu codegen: kernel '{kernel.name}' op {i}"
    dist = kernel.distribution
    for view, amap, written in _touches(op):
        try:
            kind, j = kernel.buffer(view.binding)
        except ValueError as e:
            raise CompileError(f"{where}: {e}") from None
        if kind == "rodata" and written:
            raise CompileError(f"{where} writes rodata {j}")
        if kind != "scratch":
            continue
        scratch = kernel.scratch[j]
        for k in range(len(scratch.shape)):
            axis = scratch.axis(k)
            if axis is None:
                continue
            expr = amap[k] if amap is not None and k < len(amap) else None
            want = dist.op_dims[i][axis]
            if (expr is None or want is None or expr.constant != 0 or expr.terms != ((want, 1),)
                    or dist.offset(i, axis) != 0):
                raise CompileError(f"{where}: scratch {j} is tiled along axis {axis} at dim {k}, "
                                   f"so the op must index that dim with exactly its distributed "
                                   f"loop dim d{want}")


def _plan(ctx, op, where):
    """The emitter object for ``op``: has ``domain`` (Sizes), ``checks()`` and ``emit(ranges)``."""
    if isinstance(op, kir.Generic):
        return (batch_mmt4d.plan(ctx, op, where) or conv.plan(ctx, op, where)
                or window.plan(ctx, op, where) or matmul.plan(ctx, op, where)
                or reduction.plan(ctx, op, where) or transpose.plan(ctx, op, where)
                or GenericPlan(ctx, op, where))
    if isinstance(op, kir.Mmt4d):
        return mmt4d.plan(ctx, op, where)
    if isinstance(op, kir.Attention):
        return attention.plan(ctx, op, where)
    return relayout.plan(ctx, op, where)


def _op_ranges(ctx, kernel, i, p, ids):
    """This workgroup's [lo, hi) i64 range per loop dim of op ``i`` (plan ``p``)."""
    b, dist = ctx.b, kernel.distribution
    ranges = [[I64(0), ctx.sizes.get(d)] for d in p.domain]
    for axis, op_dim in enumerate(dist.op_dims[i] if dist.dims else ()):
        if op_dim is None:
            continue
        if not 0 <= op_dim < len(ranges):
            raise CompileError(f"llvm-cpu codegen: kernel '{kernel.name}': op_dims[{i}] "
                               f"names d{op_dim} outside the op's {len(ranges)}-d domain")
        extent = ranges[op_dim][1]
        lo = b.mul(ids[axis], I64(dist.tiles[axis]))
        hi = b.add(lo, I64(dist.tiles[axis]))
        offset = dist.offset(i, axis)
        if offset != 0:
            off = ctx.sizes.get(offset)
            lo = b.select(b.icmp_unsigned(">", lo, off), b.sub(lo, off), I64(0))
            hi = b.select(b.icmp_unsigned(">", hi, off), b.sub(hi, off), I64(0))
        ranges[op_dim] = [b.select(b.icmp_unsigned("<", lo, extent), lo, extent),
                          b.select(b.icmp_unsigned("<", hi, extent), hi, extent)]
    return ranges


def _is_zero_fill(op):
    """Whether ``op`` is a Generic filling its one output with the constant 0."""
    return (isinstance(op, kir.Generic) and op.kind == "fill" and not op.inputs
            and len(op.outputs) == 1 and len(op.body) == 1 and op.yields == (1,)
            and op.body[0].opcode is kir.Opcode.CONSTANT and op.body[0].attr("value") == 0)


def emit_kernel(library, kernel):
    """Add ``kernel`` to ``library`` (a LibraryBuilder) as an export; returns its ordinal.

    Raises CompileError naming the kernel and op for malformed Kernel IR or unsupported ops.
    """
    _validate(kernel)
    fn = library.declare_export(kernel.name)
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    ctx = KernelContext(b, KernelInterface(b, fn), library.target, kernel, library.module)
    for op in kernel.ops:
        for size in _op_sizes(op):
            for s in iter_sizes(size):
                ctx.sizes.get(s)
    for scratch in kernel.scratch:
        for size in scratch.shape:
            for s in iter_sizes(size):
                ctx.sizes.get(s)
    dist = kernel.distribution
    ids = [ctx.k.workgroup_id(i) for i in range(len(dist.dims))]
    ctx.buffers.allocate(ids)
    for op in kernel.ops:
        for view in _views(op):
            ctx.binding(view.binding)
    plans = [_plan(ctx, op, f"kernel '{kernel.name}' op {i}") for i, op in enumerate(kernel.ops)]
    ranges = [_op_ranges(ctx, kernel, i, p, ids) for i, p in enumerate(plans)]
    absorbed = set()
    for i in range(len(plans) - 1):
        take = getattr(plans[i + 1], "absorb_zero_fill", None)
        if _is_zero_fill(kernel.ops[i]) and take is not None and take(kernel.ops[i], plans[i], ranges[i]):
            absorbed.add(i)
    bad = ir.Constant(I1, 0)
    for i, p in enumerate(plans):
        if i not in absorbed or not getattr(plans[i + 1], "checks_absorbed_fill", False):
            bad = b.or_(bad, p.checks())
    with b.if_then(ctx.sizes.invalid, likely=False):
        b.ret(I32(abi.STATUS_INVALID_ARGUMENT))
    with b.if_then(bad, likely=False):
        b.ret(I32(abi.STATUS_OUT_OF_RANGE))
    for i, p in enumerate(plans):
        if i not in absorbed:
            p.emit(ranges[i])
    flag = getattr(fn, "rt_division_by_zero", None)
    status = I32(abi.STATUS_OK) if flag is None else b.select(
        b.load(flag), I32(abi.STATUS_DIVISION_BY_ZERO), I32(abi.STATUS_OK))
    failed = getattr(fn, "rt_assertion", None)
    if failed is not None:
        index = b.load(failed)
        status = b.select(b.icmp_unsigned("!=", index, I32(0)),
                          b.add(index, I32(abi.STATUS_ASSERTION_BASE - 1)), status)
    b.ret(status)
    return library.add_export(fn, binding_count=kernel.binding_count,
                              constant_count=kernel.constant_count)
