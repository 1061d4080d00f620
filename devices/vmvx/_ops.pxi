# Op tags and scalar semantics of the elementwise and reduction kernels.
# Included by _ukernels.pyx.
#
# Each op is a tag type in a fused set; drivers are written once over a fused tag and Cython
# emits one specialisation per tag, so every op gets its own (vectorisable) loop without a
# per-element switch. Semantics follow MLIR's arith/math ops as lowered by IREE's VMVX
# conversion (compiler/src/iree/compiler/Dialect/VMVX/Transforms) onto
# runtime/src/iree/modules/vmvx:
#   * i32 add/sub/mul/neg/abs wrap modulo 2^32;
#   * shifts by 32 or more (the amount read unsigned) give 0, or the sign fill for shrsi (rt's
#     definition, the same on llvm-cpu: docs/ARCHITECTURE.md "Undefined behaviour");
#   * divs/rems: INT32_MIN / -1 wraps to INT32_MIN (remainder 0); division by zero is an error
#     raised by the kernel before it stores anything;
#   * f32 max/min are arith.maximumf/minimumf: NaN-propagating, -0.0 < +0.0;
#   * roundeven rounds half to even; rsqrt is 1 / sqrt(x) in f32; ctlz(0) = 32;
#   * exp, log and tanh are the polynomials of elementwise_simd.h (the llvm-cpu backend's
#     approximations; accuracy stated there), identical on every host.

cdef extern from "elementwise_simd.h" nogil:
    float rt_exp_f32(float x)
    float rt_log_f32(float x)
    float rt_tanh_f32(float x)

from libc.math cimport fabsf, sqrtf, floorf, ceilf, rintf, sinf, cosf, erff, powf, signbit
from libc.stdint cimport int8_t, int32_t, uint8_t, uint16_t, uint32_t, uint64_t, INT32_MIN

cdef extern from *:
    int __builtin_clz(unsigned int x) nogil

ctypedef struct View2D:
    char* p
    int64_t s0
    int64_t s1

# -- op tags ---------------------------------------------------------------------------------
ctypedef struct AddF:
    char unused
ctypedef struct SubF:
    char unused
ctypedef struct MulF:
    char unused
ctypedef struct DivF:
    char unused
ctypedef struct MaxF:
    char unused
ctypedef struct MinF:
    char unused
ctypedef struct PowF:
    char unused
ctypedef struct AddI:
    char unused
ctypedef struct SubI:
    char unused
ctypedef struct MulI:
    char unused
ctypedef struct DivSI:
    char unused
ctypedef struct DivUI:
    char unused
ctypedef struct RemSI:
    char unused
ctypedef struct RemUI:
    char unused
ctypedef struct AndI:
    char unused
ctypedef struct OrI:
    char unused
ctypedef struct XorI:
    char unused
ctypedef struct ShlI:
    char unused
ctypedef struct ShrSI:
    char unused
ctypedef struct ShrUI:
    char unused
ctypedef struct MaxSI:
    char unused
ctypedef struct MinSI:
    char unused
ctypedef struct MaxUI:
    char unused
ctypedef struct MinUI:
    char unused

ctypedef fused BinaryF32:
    AddF
    SubF
    MulF
    DivF
    MaxF
    MinF
    PowF

ctypedef fused BinaryI32:
    AddI
    SubI
    MulI
    DivSI
    DivUI
    RemSI
    RemUI
    AndI
    OrI
    XorI
    ShlI
    ShrSI
    ShrUI
    MaxSI
    MinSI
    MaxUI
    MinUI

ctypedef struct AbsF:
    char unused
ctypedef struct NegF:
    char unused
ctypedef struct ExpF:
    char unused
ctypedef struct LogF:
    char unused
ctypedef struct SqrtF:
    char unused
ctypedef struct RsqrtF:
    char unused
ctypedef struct TanhF:
    char unused
ctypedef struct FloorF:
    char unused
ctypedef struct CeilF:
    char unused
ctypedef struct RoundEvenF:
    char unused
ctypedef struct SinF:
    char unused
ctypedef struct CosF:
    char unused
ctypedef struct ErfF:
    char unused
ctypedef struct AbsI:
    char unused
ctypedef struct NegI:
    char unused
ctypedef struct NotI:
    char unused
ctypedef struct CtlzI:
    char unused

ctypedef fused UnaryF32:
    AbsF
    NegF
    ExpF
    LogF
    SqrtF
    RsqrtF
    TanhF
    FloorF
    CeilF
    RoundEvenF
    SinF
    CosF
    ErfF

ctypedef fused UnaryI32:
    AbsI
    NegI
    NotI
    CtlzI

# Op names in table order; the module exposes "<name>.2d.f32" / "<name>.2d.i32".
BINARY_F32_OPS = ("add", "sub", "mul", "div", "max", "min", "pow")
BINARY_I32_OPS = ("add", "sub", "mul", "divs", "divu", "rems", "remu", "and", "or", "xor",
                  "shl", "shrs", "shru", "maxs", "mins", "maxu", "minu")
UNARY_F32_OPS = ("abs", "neg", "exp", "log", "sqrt", "rsqrt", "tanh", "floor", "ceil",
                 "roundeven", "sin", "cos", "erf")
UNARY_I32_OPS = ("abs", "neg", "not", "ctlz")
COPY_WIDTHS = (1, 2, 4, 8)

cdef tuple _BINARY_F32_KERNELS = tuple(f"vmvx.{n}.2d.f32" for n in BINARY_F32_OPS)
cdef tuple _BINARY_I32_KERNELS = tuple(f"vmvx.{n}.2d.i32" for n in BINARY_I32_OPS)
cdef tuple _UNARY_F32_KERNELS = tuple(f"vmvx.{n}.2d.f32" for n in UNARY_F32_OPS)
cdef tuple _UNARY_I32_KERNELS = tuple(f"vmvx.{n}.2d.i32" for n in UNARY_I32_OPS)

# Views with at least this many elements run with the GIL released.
cdef int64_t _NOGIL_ELEMENTS = 4096


# -- scalar semantics --------------------------------------------------------------------------
cdef inline float _binary_f32(BinaryF32* tag, float a, float b) noexcept nogil:
    if BinaryF32 is AddF:
        return a + b
    elif BinaryF32 is SubF:
        return a - b
    elif BinaryF32 is MulF:
        return a * b
    elif BinaryF32 is DivF:
        return a / b
    elif BinaryF32 is PowF:
        return powf(a, b)
    elif BinaryF32 is MaxF:
        if a > b:
            return a
        if a < b:
            return b
        if a == b:
            return b if signbit(a) else a
        return a + b
    else:
        if a < b:
            return a
        if a > b:
            return b
        if a == b:
            return a if signbit(a) else b
        return a + b


cdef inline int32_t _binary_i32(BinaryI32* tag, int32_t a, int32_t b) noexcept nogil:
    cdef uint32_t ua = <uint32_t>a, ub = <uint32_t>b
    if BinaryI32 is AddI:
        return <int32_t>(ua + ub)
    elif BinaryI32 is SubI:
        return <int32_t>(ua - ub)
    elif BinaryI32 is MulI:
        return <int32_t>(ua * ub)
    elif BinaryI32 is DivSI:
        return a if (a == INT32_MIN and b == -1) else a // b
    elif BinaryI32 is DivUI:
        return <int32_t>(ua // ub)
    elif BinaryI32 is RemSI:
        return 0 if (a == INT32_MIN and b == -1) else a % b
    elif BinaryI32 is RemUI:
        return <int32_t>(ua % ub)
    elif BinaryI32 is AndI:
        return a & b
    elif BinaryI32 is OrI:
        return a | b
    elif BinaryI32 is XorI:
        return a ^ b
    elif BinaryI32 is ShlI:
        return <int32_t>(ua << ub) if ub < 32 else 0
    elif BinaryI32 is ShrSI:
        return a >> (ub if ub < 32 else 31)
    elif BinaryI32 is ShrUI:
        return <int32_t>(ua >> ub) if ub < 32 else 0
    elif BinaryI32 is MaxSI:
        return a if a > b else b
    elif BinaryI32 is MinSI:
        return a if a < b else b
    elif BinaryI32 is MaxUI:
        return a if ua > ub else b
    else:
        return a if ua < ub else b


cdef inline float _unary_f32(UnaryF32* tag, float a) noexcept nogil:
    if UnaryF32 is AbsF:
        return fabsf(a)
    elif UnaryF32 is NegF:
        return -a
    elif UnaryF32 is ExpF:
        return rt_exp_f32(a)
    elif UnaryF32 is LogF:
        return rt_log_f32(a)
    elif UnaryF32 is SqrtF:
        return sqrtf(a)
    elif UnaryF32 is RsqrtF:
        return 1.0 / sqrtf(a)
    elif UnaryF32 is TanhF:
        return rt_tanh_f32(a)
    elif UnaryF32 is FloorF:
        return floorf(a)
    elif UnaryF32 is CeilF:
        return ceilf(a)
    elif UnaryF32 is RoundEvenF:
        return rintf(a)
    elif UnaryF32 is SinF:
        return sinf(a)
    elif UnaryF32 is CosF:
        return cosf(a)
    else:
        return erff(a)


cdef inline int32_t _unary_i32(UnaryI32* tag, int32_t a) noexcept nogil:
    cdef uint32_t ua = <uint32_t>a
    if UnaryI32 is AbsI:
        return <int32_t>(0u - ua) if a < 0 else a
    elif UnaryI32 is NegI:
        return <int32_t>(0u - ua)
    elif UnaryI32 is NotI:
        return ~a
    else:
        return 32 if ua == 0 else __builtin_clz(ua)


