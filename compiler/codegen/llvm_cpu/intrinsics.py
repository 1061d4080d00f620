"""Hand-declared LLVM intrinsics for f32 scalars and vectors.

llvmlite's ``Module.declare_intrinsic`` builds wrong signatures for ``llvm.fma``,
``llvm.minnum`` and ``llvm.maxnum`` on vectors (DESIGN.md §7), so every intrinsic used by the
kernel emitters is declared here by its mangled name (``llvm.fmuladd.v16f32``).
"""
from llvmlite import ir

_ARITY = {"fmuladd": 3, "maximum": 2, "minimum": 2, "fabs": 1, "sqrt": 1}


def type_suffix(ty):
    """LLVM's overload suffix: ``f32`` for float, ``v16f32`` for <16 x float>."""
    if isinstance(ty, ir.VectorType):
        return f"v{ty.count}{type_suffix(ty.element)}"
    if isinstance(ty, ir.FloatType):
        return "f32"
    if isinstance(ty, ir.DoubleType):
        return "f64"
    raise TypeError(f"no intrinsic overload suffix for {ty}")


def call(builder, name, *args):
    """Call intrinsic ``llvm.<name>`` overloaded on the type of ``args[0]``.

    name: one of fmuladd (a*b+c, fused when the target has FMA), maximum/minimum
    (NaN-propagating, like arith.maximumf), fabs, sqrt.
    """
    ty = args[0].type
    if len(args) != _ARITY[name]:
        raise TypeError(f"llvm.{name} takes {_ARITY[name]} operands, got {len(args)}")
    module = builder.module
    full = f"llvm.{name}.{type_suffix(ty)}"
    fn = module.globals.get(full)
    if fn is None:
        fn = ir.Function(module, ir.FunctionType(ty, [ty] * len(args)), full)
    return builder.call(fn, list(args))
