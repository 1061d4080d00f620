"""Kernel IR sizes (int | Constant | Expr) as folded symbols and as i64 LLVM values.

Symbolic helpers (``add``, ``mul``, ``contiguous_strides``) fold static ints so a code
generator can tell at compile time that a stride is exactly 1 or an index coefficient exactly 0
(what decides vectorization), while dynamic parts stay ``Expr`` trees over push constants.
``SizeValues`` evaluates sizes to i64 values once, in a kernel's entry block, with the
unsigned index semantics of kernel_ir.Expr; a zero divisor makes the dispatch fail with
``abi.STATUS_INVALID_ARGUMENT`` instead of trapping the process.
"""
from llvmlite import ir

from rt.compiler.codegen.kernel_ir import Constant, Expr
from rt.compiler.codegen.llvm_cpu.interface import I64
from rt.runtime.errors import CompileError

I1 = ir.IntType(1)
_OPS = ("add", "sub", "mul", "floordiv", "ceildiv", "rem", "min", "max")


def check_size(size, where):
    """Raise CompileError unless ``size`` is a well-formed Size (non-negative int, Constant, Expr)."""
    if isinstance(size, bool) or not isinstance(size, (int, Constant, Expr)):
        raise CompileError(f"llvm-cpu codegen: {where}: {size!r} is not a Size "
                           f"(int, kernel_ir.Constant or kernel_ir.Expr)")
    if isinstance(size, int) and size < 0:
        raise CompileError(f"llvm-cpu codegen: {where}: negative size {size}")
    if isinstance(size, Expr):
        if size.op not in _OPS or len(size.operands) != 2:
            raise CompileError(f"llvm-cpu codegen: {where}: Expr {size!r} needs op in {_OPS} "
                               f"and two operands")
        for operand in size.operands:
            check_size(operand, where)


def add(a, b):
    """a + b, folded when static."""
    if isinstance(a, int) and isinstance(b, int):
        return a + b
    if a == 0:
        return b
    if b == 0:
        return a
    return Expr("add", (a, b))


def mul(a, b):
    """a * b, folded when static."""
    if isinstance(a, int) and isinstance(b, int):
        return a * b
    if a == 0 or b == 0:
        return 0
    if a == 1:
        return b
    if b == 1:
        return a
    return Expr("mul", (a, b))


def contiguous_strides(shape):
    """Row-major element strides of ``shape`` (a tuple of Sizes), innermost 1."""
    strides, running = [], 1
    for extent in reversed(shape):
        strides.append(running)
        running = mul(running, extent)
    return tuple(reversed(strides))


def view_strides(view):
    """The view's element strides, contiguous row-major ones when ``strides`` is None."""
    return tuple(view.strides) if view.strides is not None else contiguous_strides(view.shape)


def iter_sizes(size):
    """``size`` and every Size nested in it (Expr operands), depth first."""
    yield size
    if isinstance(size, Expr):
        for operand in size.operands:
            yield from iter_sizes(operand)


class SizeValues:
    """Evaluates Sizes to i64 values with ``builder`` and ``interface`` (a KernelInterface).

    Values are cached; call ``get`` for every size a kernel needs while the builder is in the
    entry block so each value dominates all later uses. ``invalid`` is an i1 that is true when
    some division had a zero divisor.
    """

    def __init__(self, builder, interface, constant_count):
        self.b = builder
        self.k = interface
        self.constant_count = constant_count
        self.invalid = ir.Constant(I1, 0)
        self._cache = {}

    def get(self, size):
        """The i64 value of ``size``."""
        if isinstance(size, int):
            return I64(size)
        value = self._cache.get(size)
        if value is None:
            value = self._cache[size] = self._emit(size)
        return value

    def _emit(self, size):
        b = self.b
        if isinstance(size, Constant):
            if not 0 <= size.ordinal < self.constant_count:
                raise CompileError(f"llvm-cpu codegen: push constant {size.ordinal} is out of "
                                   f"range; the kernel declares {self.constant_count}")
            return self.k.constant(size.ordinal)
        x, y = (self.get(v) for v in size.operands)
        op = size.op
        if op == "add":
            return b.add(x, y)
        if op == "sub":
            return b.sub(x, y)
        if op == "mul":
            return b.mul(x, y)
        if op == "min":
            return b.select(b.icmp_unsigned("<", x, y), x, y)
        if op == "max":
            return b.select(b.icmp_unsigned(">", x, y), x, y)
        zero = b.icmp_unsigned("==", y, I64(0))
        self.invalid = b.or_(self.invalid, zero)
        safe = b.select(zero, I64(1), y)
        if op == "floordiv":
            return b.udiv(x, safe)
        if op == "rem":
            return b.urem(x, safe)
        rounded_up = b.zext(b.icmp_unsigned("!=", b.urem(x, safe), I64(0)), I64)
        return b.add(b.udiv(x, safe), rounded_up)
