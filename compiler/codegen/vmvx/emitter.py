"""The dispatch function being emitted: ABI accessors, index arithmetic and loop nests.

One ``KernelEmitter`` wraps the FunctionBuilder of one vmvx export (cconv ``0rriiiiii_v``,
see rt.devices.vmvx.executable): it reads push constants from the constants buffer, fetches
binding buffers from the bindings list (rodata and scratch: buffers.py) -- for a view of one
tensor among several in a binding, the tensor's own range of it (``vmvx.buffer.subspan``), so
every bounds check stops at the tensor -- and evaluates
kernel_ir sizes (``int``, ``Constant``, ``Expr``) into i64 registers. Index values are either
Python ints (folded at compile time) or i64 registers; ``add``/``mul``/... fold when both
operands are ints. Values computed outside any loop are cached (they dominate everything
emitted after them).
Source: what IREE's VMVX backend emits for hal.interface.* ops
(compiler/src/iree/compiler/Dialect/VMVX/Transforms/ and the vm conversion of the HAL
interface in the VMVX target).
"""
from contextlib import contextmanager

from rt.compiler.codegen import kernel_ir
from rt.compiler.codegen.vmvx import buffers
from rt.devices.vmvx.module import SUBSPAN_CCONV
from rt.runtime.errors import CompileError

ENTRY_CCONV = "0rriiiiii_v"


class KernelEmitter:
    """Emission state of one export: ``fb`` (FunctionBuilder), ``kernel`` (kernel_ir.Kernel);
    ``rodata_segments``: content -> RodataRef, shared by the kernels of one executable.
    ``prologue()`` must run before any op is emitted (it allocates the scratch buffers)."""

    def __init__(self, fb, kernel, rodata_segments=None):
        self.fb, self.kernel = fb, kernel
        self.constants_buffer, self.bindings_list = fb.args[0], fb.args[1]
        self.workgroup_id_args = fb.args[2:5]
        self.depth = 0
        self._cache = {}
        self._rodata_segments = {} if rodata_segments is None else rodata_segments
        self._scratch = {}

    def prologue(self):
        """Validate the kernel's scratch and allocate it for this workgroup."""
        buffers.check_scratch(self.kernel)
        self._scratch = buffers.allocate_scratch(self)

    # -- ABI ------------------------------------------------------------------------------
    def _cached(self, key, make):
        if key in self._cache:
            return self._cache[key]
        value = make()
        if self.depth == 0:
            self._cache[key] = value
        return value

    def binding(self, ordinal):
        """The VMBuffer ref register of buffer ``ordinal``: a binding, rodata or scratch."""
        try:
            kind, index = self.kernel.buffer(ordinal)
        except ValueError as e:
            raise CompileError(f"vmvx codegen: {e}") from None
        if kind == "scratch":
            return self._scratch[ordinal][0]
        if kind == "rodata":
            return self._cached(("rodata", index), lambda: buffers.rodata_ref(self, index, self._rodata_segments))

        def make():
            idx, ref = self.fb.reg("i32"), self.fb.reg("ref")
            self.fb.const_i32(idx, ordinal)
            self.fb.list_get_ref(ref, self.bindings_list, idx)
            return ref
        return self._cached(("binding", ordinal), make)

    def _tensor_extent(self, view):
        """``view.extent`` if its binding is a dispatch binding holding it, else None."""
        if view.extent is None or not 0 <= view.binding < self.kernel.binding_count:
            return None
        return view.extent

    def buffer(self, view):
        """The VMBuffer ref register the offsets of ``layout(view)`` address: the binding,
        rodata or scratch buffer of ``view``, or, for a view with an extent, the tensor's range
        of its binding (``vmvx.buffer.subspan``, which raises at run time if the binding does
        not hold that range), so an access past the tensor is an error even inside the binding.
        """
        extent = self._tensor_extent(view)
        if extent is None:
            return self.binding(view.binding)
        binding = self.binding(view.binding)

        def make():
            start, count = self.size(extent[0]), self.size(extent[1])
            bits = kernel_ir.element_bits(view.element_type)
            if view.element_type in kernel_ir.PACKED:  # whole bytes: the subspan's byte offset
                offset = self.binary("floordiv", self.mul(start, bits), 8)
                length = self.binary("ceildiv", self.mul(count, bits), 8)
            else:
                size = kernel_ir.element_size(view.element_type)
                offset, length = self.mul(start, size), self.mul(count, size)
            imp = self.fb.module.import_function("vmvx.buffer.subspan", SUBSPAN_CCONV)
            ref = self.fb.reg("ref")
            self.fb.call_import(imp, [binding, self.reg(offset), self.reg(length)], [ref])
            return ref
        return self._cached(("subspan", view.binding, view.element_type, extent), make)

    def layout(self, view):
        """``(offset, strides)`` of ``view`` in elements of ``buffer(view)`` (ints or i64
        registers); a tiled scratch is addressed through its allocated (tile-sized, shifted)
        layout."""
        tiled = self._scratch.get(view.binding, (None, None))[1]
        if tiled is not None:
            return tiled
        extent = self._tensor_extent(view)
        offset = self.size(view.offset)
        if extent is not None:
            offset = self.sub(offset, self.size(extent[0]))
        if view.strides is not None:
            if len(view.strides) != len(view.shape):
                raise CompileError(f"vmvx codegen: kernel {self.kernel.name!r}: view of binding {view.binding} "
                                   f"has {len(view.shape)} dims but {len(view.strides)} strides")
            return offset, [self.size(s) for s in view.strides]
        strides, running = [], 1
        for dim in reversed(view.shape):
            strides.append(running)
            running = self.mul(running, self.size(dim))
        return offset, strides[::-1]

    def workgroup_id(self, dim):
        """Workgroup id along ``dim`` (0 = x) as an i64 register."""
        def make():
            r = self.fb.reg("i64")
            self.fb.ext_i32_i64_u(r, self.workgroup_id_args[dim])
            return r
        return self._cached(("wg", dim), make)

    def push_constant(self, ordinal):
        """Push constant ``ordinal`` as loaded: the raw 32 bits in an i32 register."""
        if not isinstance(ordinal, int) or not 0 <= ordinal < self.kernel.constant_count:
            raise CompileError(f"vmvx codegen: kernel {self.kernel.name!r} reads push constant {ordinal!r} but "
                               f"has constant_count {self.kernel.constant_count}")

        def make():
            raw = self.fb.reg("i32")
            self.fb.buffer_load_i32(raw, self.constants_buffer, self.reg(4 * ordinal))
            return raw
        return self._cached(("push_constant", ordinal), make)

    def constant(self, ordinal):
        """Push constant ``ordinal`` (uint32) zero-extended to an i64 register."""
        def make():
            wide = self.fb.reg("i64")
            self.fb.ext_i32_i64_u(wide, self.push_constant(ordinal))
            return wide
        return self._cached(("constant", ordinal), make)

    # -- index values -----------------------------------------------------------------------
    def reg(self, value):
        """``value`` (int or i64 register) in an i64 register."""
        if isinstance(value, int):
            def make():
                r = self.fb.reg("i64")
                if value == 0:
                    self.fb.const_i64_zero(r)
                else:
                    self.fb.const_i64(r, value)
                return r
            return self._cached(("int", value), make)
        return value

    def size(self, size):
        """Evaluate a kernel_ir Size (int, Constant, Expr) to an int or an i64 register."""
        if isinstance(size, bool) or not isinstance(size, (int, kernel_ir.Constant, kernel_ir.Expr)):
            raise CompileError(f"vmvx codegen: kernel {self.kernel.name!r}: {size!r} is not a size "
                               f"(int, kernel_ir.Constant or kernel_ir.Expr)")
        if isinstance(size, int):
            return size
        if isinstance(size, kernel_ir.Constant):
            return self.constant(size.ordinal)
        if size.op not in _EXPR_OPS or len(size.operands) != 2:
            raise CompileError(f"vmvx codegen: kernel {self.kernel.name!r}: index expression {size!r}; "
                               f"expected one of {', '.join(_EXPR_OPS)} with two operands")
        a, b = (self.size(x) for x in size.operands)
        return self._cached(("expr", size), lambda: self.binary(size.op, a, b))

    def binary(self, op, a, b):
        """Unsigned index arithmetic (kernel_ir.Expr semantics) with constant folding."""
        if isinstance(a, int) and isinstance(b, int):
            return _fold(op, a, b, self.kernel.name)
        if op == "add" and (a == 0 or b == 0):
            return b if isinstance(a, int) else a
        if op == "mul" and (a == 1 or b == 1):
            return b if isinstance(a, int) else a
        if op == "mul" and (a == 0 or b == 0):
            return 0
        if op == "sub" and b == 0:
            return a
        if op in ("floordiv", "ceildiv") and b == 1:
            return a
        r = self.fb.reg("i64")
        getattr(self.fb, _EXPR_OPS[op])(r, self.reg(a), self.reg(b))
        return r

    def add(self, a, b):
        return self.binary("add", a, b)

    def sub(self, a, b):
        return self.binary("sub", a, b)

    def mul(self, a, b):
        return self.binary("mul", a, b)

    def smin(self, a, b):
        """Signed minimum (tile bounds may go negative past the domain)."""
        if isinstance(a, int) and isinstance(b, int):
            return min(a, b)
        r = self.fb.reg("i64")
        self.fb.min_i64_s(r, self.reg(a), self.reg(b))
        return r

    def smax(self, a, b):
        if isinstance(a, int) and isinstance(b, int):
            return max(a, b)
        r = self.fb.reg("i64")
        self.fb.max_i64_s(r, self.reg(a), self.reg(b))
        return r

    def i32(self, value):
        """``value`` (int or i64 register) in an i32 register (low 32 bits)."""
        r = self.fb.reg("i32")
        if isinstance(value, int):
            self.fb.const_i32(r, value & 0xFFFFFFFF)
        else:
            self.fb.trunc_i64_i32(r, value)
        return r

    # -- loops ------------------------------------------------------------------------------
    @contextmanager
    def loop(self, lo, hi, carried=()):
        """``for i in range(lo, hi)``: yields the i64 index register; ``carried`` is a list of
        (register, step) pairs incremented by ``step`` (int or register) after each iteration.
        Every register the latch uses is materialised before the body, so nothing defined
        only on the loop path is read after a zero-trip loop."""
        fb = self.fb
        i, cond = fb.reg("i64"), fb.reg("i32")
        body, done = fb.label("loop"), fb.label("done")
        fb.mov_i64(i, self.reg(lo))
        hi_reg, one = self.reg(hi), self.reg(1)
        steps = [(r, self.reg(step)) for r, step in carried if step != 0]
        fb.cmp_lt_i64_s(cond, i, hi_reg)
        fb.cond_br(cond, body, done)
        fb.bind(body)
        self.depth += 1
        try:
            yield i
        finally:
            self.depth -= 1
        fb.add_i64(i, i, one)
        for r, step in steps:
            fb.add_i64(r, r, step)
        fb.cmp_lt_i64_s(cond, i, hi_reg)
        fb.cond_br(cond, body, done)
        fb.bind(done)

    def copy(self, value):
        """A fresh i64 register holding ``value`` (a loop-carried variable)."""
        r = self.fb.reg("i64")
        self.fb.mov_i64(r, self.reg(value))
        return r


_EXPR_OPS = {"add": "add_i64", "sub": "sub_i64", "mul": "mul_i64", "floordiv": "div_i64_u",
             "ceildiv": "ceildiv_i64_u", "rem": "rem_i64_u", "min": "min_i64_u", "max": "max_i64_u"}
_MASK = (1 << 64) - 1


def _fold(op, a, b, kernel):
    if op in ("floordiv", "ceildiv", "rem") and b == 0:
        raise CompileError(f"vmvx codegen: kernel {kernel!r}: index expression divides by zero ({op} {a}, 0)")
    if op == "add":
        return a + b
    if op == "sub":
        return a - b
    if op == "mul":
        return a * b
    if op == "floordiv":
        return a // b if a >= 0 and b > 0 else (a & _MASK) // (b & _MASK)
    if op == "ceildiv":
        return -(-a // b) if a >= 0 and b > 0 else -(-(a & _MASK) // (b & _MASK))
    if op == "rem":
        return a % b if a >= 0 and b > 0 else (a & _MASK) % (b & _MASK)
    if op == "min":
        return min(a, b)
    return max(a, b)
