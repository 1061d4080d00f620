# Small float formats (bf16, f8) for the VM's ext.bits.f32 / trunc.f64.bits ops.
# The format operand is the IREE numerical type code; parameters and semantics are those of
# rt.runtime.small_float.FORMATS (APFloat's): keep the two in step (tests/vm compares them
# against ml_dtypes for every bit pattern and for rounding ties, overflow and subnormals).

DEF _IEEE = 0
DEF _FN = 1
DEF _FNUZ = 2
DEF _E8M0 = 3
DEF _FINITE = 4


cdef inline int _sf_params(int32_t code, int* e, int* m, int* bias, int* kind) noexcept nogil:
    """Fill the parameters of format ``code``; returns 0, or -1 for an unknown code."""
    if code == 0x22:
        e[0], m[0], bias[0], kind[0] = 8, 7, 127, _IEEE
    elif code == 0x24:
        e[0], m[0], bias[0], kind[0] = 5, 2, 15, _IEEE
    elif code == 0x25:
        e[0], m[0], bias[0], kind[0] = 4, 3, 7, _FN
    elif code == 0x26:
        e[0], m[0], bias[0], kind[0] = 5, 2, 16, _FNUZ
    elif code == 0x27:
        e[0], m[0], bias[0], kind[0] = 4, 3, 8, _FNUZ
    elif code == 0x28:
        e[0], m[0], bias[0], kind[0] = 8, 0, 127, _E8M0
    elif code == 0x29:
        e[0], m[0], bias[0], kind[0] = 2, 1, 1, _FINITE
    else:
        return -1
    return 0


cdef int _sf_bad_format(int32_t code) except -1:
    raise _Trap(f"small float conversion: format 0x{code & 0xFFFFFFFF:x} is not one of 0x22 (bf16), "
                "0x24 (f8E5M2), 0x25 (f8E4M3FN), 0x26 (f8E5M2FNUZ), 0x27 (f8E4M3FNUZ), 0x28 (f8E8M0FNU), "
                "0x29 (f4E2M1FN)")


cdef double _sf_decode(uint32_t bits, int32_t code) except? -1.0:
    """The exact value of bit pattern ``bits`` of format ``code`` (arith.extf)."""
    cdef int e, m, bias, kind
    if _sf_params(code, &e, &m, &bias, &kind):
        _sf_bad_format(code)
    bits &= (1u << (e + m + 1)) - 1
    if kind == _E8M0:
        return NAN if bits == 0xFF else ldexp(1.0, <int>bits - 127)
    if kind == _FNUZ and bits == 0x80:
        return NAN
    cdef uint32_t sign = bits >> (e + m)
    cdef uint32_t mag = bits & ((1u << (e + m)) - 1)
    cdef uint32_t ex = mag >> m
    cdef uint32_t mant = mag & ((1u << m) - 1)
    cdef double v
    if kind == _IEEE and ex == (1u << e) - 1:
        v = NAN if mant else INFINITY
    elif kind == _FN and mag == (1u << (e + m)) - 1:
        v = NAN
    elif ex == 0:
        v = ldexp(<double>mant, 1 - bias - m)
    else:
        v = ldexp(<double>(mant | (1u << m)), <int>ex - bias - m)
    return -v if sign else v


cdef uint32_t _sf_encode(double x, int32_t code) except? 0xFFFFFFFF:
    """``x`` rounded to format ``code``: nearest, ties to even, subnormals, overflow per the
    format (arith.truncf with APFloat semantics); returns the bit pattern."""
    cdef int e, m, bias, kind, ex
    if _sf_params(code, &e, &m, &bias, &kind):
        _sf_bad_format(code)
    cdef uint32_t emask = (1u << e) - 1
    cdef uint32_t mmask = (1u << m) - 1
    cdef uint32_t sign = (1u << (e + m)) if signbit(x) else 0
    cdef uint32_t nan_bits, max_bits, out
    cdef double a = fabs(x), r, q
    if kind == _E8M0:
        if isnan(x) or signbit(x) or a == 0.0 or a == INFINITY:
            return 0xFF
        r = frexp(a, &ex)  # a = r * 2^ex, r in [0.5, 1)
        ex = ex - 1 + (1 if r >= 0.75 else 0)  # a single significand bit: ties round up
        if ex > 127:
            return 0xFF
        return <uint32_t>(ex + 127) if ex > -127 else 0
    if kind == _IEEE:
        nan_bits = sign | (emask << m) | (1u << (m - 1))
        max_bits = ((emask - 1) << m) | mmask
    elif kind == _FN:
        nan_bits = sign | (emask << m) | mmask
        max_bits = (emask << m) | (mmask - 1)
    elif kind == _FINITE:
        nan_bits = 1u << (e + m)  # no NaN: -0, as ml_dtypes converts one
        max_bits = (emask << m) | mmask
    else:
        nan_bits = 0x80
        max_bits = (emask << m) | mmask
    if isnan(x):
        return nan_bits
    if a == INFINITY:
        return sign | (emask << m) if kind == _IEEE else sign | max_bits if kind == _FINITE else nan_bits
    if a == 0.0:
        return 0 if kind == _FNUZ else sign
    frexp(a, &ex)
    ex -= 1  # a in [2^ex, 2^(ex+1))
    if ex < 1 - bias:
        ex = 1 - bias  # subnormal: the quantum is that of the smallest normal binade
    q = rint(ldexp(a, m - ex))  # significand in units of the quantum, ties to even
    out = <uint32_t>q if q < ldexp(1.0, m) else \
        ((<uint32_t>(ex + bias) << m) + <uint32_t>q - (1u << m))  # a carry to 2^(m+1) bumps the exponent
    if out > max_bits:
        return sign | (emask << m) if kind == _IEEE else sign | max_bits if kind == _FINITE else nan_bits
    if out == 0 and kind == _FNUZ:
        return 0
    return sign | out
