"""Hand-declared LLVM intrinsics for float and integer scalars and vectors.

llvmlite's ``Module.declare_intrinsic`` builds wrong signatures for ``llvm.fma``,
``llvm.minnum`` and ``llvm.maxnum`` on vectors (docs/ARCHITECTURE.md §8), so every intrinsic used by the
kernel emitters is declared here by its mangled name (``llvm.fmuladd.v16f32``).
"""
from llvmlite import ir

_ARITY = {
    "fmuladd": 3, "fma": 3, "maximum": 2, "minimum": 2, "maxnum": 2, "minnum": 2, "pow": 2,
    "copysign": 2, "fabs": 1, "sqrt": 1, "floor": 1, "ceil": 1, "round": 1, "roundeven": 1,
    "trunc": 1, "exp": 1, "exp2": 1, "log": 1, "log2": 1, "log10": 1, "sin": 1, "cos": 1,
    "smax": 2, "smin": 2, "umax": 2, "umin": 2, "ctpop": 1,
}


def type_suffix(ty):
    """LLVM's overload suffix: ``f32`` for float, ``v16f32`` for <16 x float>."""
    if isinstance(ty, ir.VectorType):
        return f"v{ty.count}{type_suffix(ty.element)}"
    if isinstance(ty, ir.FloatType):
        return "f32"
    if isinstance(ty, ir.DoubleType):
        return "f64"
    if isinstance(ty, ir.IntType):
        return f"i{ty.width}"
    raise TypeError(f"no intrinsic overload suffix for {ty}")


def call(builder, name, *args):
    """Call intrinsic ``llvm.<name>`` overloaded on the type of ``args[0]``.

    name: a key of ``_ARITY``: fmuladd (a*b+c, fused when the target has FMA), fma (always
    fused), maximum/minimum (NaN-propagating, like arith.maximumf), maxnum/minnum (NaN-ignoring),
    smax/smin/umax/umin on integers, and the libm-like float ops (which LLVM expands inline or
    lowers to the libm calls the loader allows).
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


def count_zeros(builder, name, x):
    """``llvm.ctlz`` / ``llvm.cttz`` (``name``) of integer ``x`` with a defined result for 0
    (the bit width), as ``math.ctlz`` / ``math.cttz``."""
    fn = _declared(builder, f"llvm.{name}.{type_suffix(x.type)}", x.type, [x.type, ir.IntType(1)])
    return builder.call(fn, [x, ir.IntType(1)(0)])


def float_to_int_sat(builder, signed, x, ty):
    """``llvm.fpto{s,u}i.sat``: float ``x`` truncated toward zero to integer type ``ty``, clamped
    to its range, NaN -> 0 (rt's definition of the out-of-range ``arith.fptosi``/``fptoui``)."""
    name = f"llvm.fpto{'s' if signed else 'u'}i.sat.{type_suffix(ty)}.{type_suffix(x.type)}"
    return builder.call(_declared(builder, name, ty, [x.type]), [x])


def _declared(builder, full, ret, params):
    fn = builder.module.globals.get(full)
    if fn is None:
        fn = ir.Function(builder.module, ir.FunctionType(ret, params), full)
    return fn


def masked_load(builder, pointer, align, mask, passthru):
    """``llvm.masked.load``: the lanes of ``passthru``'s vector type whose ``mask`` bit is set
    read from consecutive elements at ``pointer``, the others from ``passthru``."""
    vty = passthru.type
    fn = _declared(builder, f"llvm.masked.load.{type_suffix(vty)}.p0", vty,
                   [pointer.type, ir.IntType(32), mask.type, vty])
    return builder.call(fn, [pointer, ir.IntType(32)(align), mask, passthru])


def masked_store(builder, value, pointer, align, mask):
    """``llvm.masked.store``: the lanes of ``value`` whose ``mask`` bit is set, written to
    consecutive elements at ``pointer``."""
    fn = _declared(builder, f"llvm.masked.store.{type_suffix(value.type)}.p0", ir.VoidType(),
                   [value.type, pointer.type, ir.IntType(32), mask.type])
    return builder.call(fn, [value, pointer, ir.IntType(32)(align), mask])


def lane_mask(builder, count, lanes):
    """<lanes x i1>: lane index < ``count`` (an i64 value)."""
    i64 = ir.IntType(64)
    vty = ir.VectorType(i64, lanes)
    v = builder.insert_element(ir.Constant(vty, ir.Undefined), count, ir.IntType(32)(0))
    splat = builder.shuffle_vector(v, ir.Constant(vty, ir.Undefined),
                                   ir.Constant(ir.VectorType(ir.IntType(32), lanes), [0] * lanes))
    return builder.icmp_unsigned("<", ir.Constant(vty, list(range(lanes))), splat)
