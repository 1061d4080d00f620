"""The VM's small float ops (ext.bits.f32, trunc.f64.bits) against ml_dtypes, bit for bit.

ml_dtypes' conversions follow APFloat, the semantics MLIR's arith.extf / arith.truncf define;
rt.runtime.small_float documents them per format.
"""
import ml_dtypes
import numpy as np
import pytest

from rt.runtime.errors import VMTrapError
from rt.runtime.small_float import FORMATS
from rt.runtime.vm import ModuleBuilder

from vm_helpers import load

DTYPES = {"bf16": ml_dtypes.bfloat16, "f8E5M2": ml_dtypes.float8_e5m2,
          "f8E4M3FN": ml_dtypes.float8_e4m3fn, "f8E5M2FNUZ": ml_dtypes.float8_e5m2fnuz,
          "f8E4M3FNUZ": ml_dtypes.float8_e4m3fnuz, "f8E8M0FNU": ml_dtypes.float8_e8m0fnu,
          "f4E2M1FN": ml_dtypes.float4_e2m1fn}


def _functions(code):
    mb = ModuleBuilder("sf")
    fb = mb.function("decode", "0i_F", export=True)
    dst = fb.reg("f64")
    fb.ext_bits_f32(dst, fb.args[0], code)
    fb.return_([dst])
    fb = mb.function("encode", "0F_i", export=True)
    dst = fb.reg("i32")
    fb.trunc_f64_bits(dst, fb.args[0], code)
    fb.return_([dst])
    ctx = load(mb)
    return ctx.lookup_function("sf.decode"), ctx.lookup_function("sf.encode")


def _edge_values(fmt):
    """Values around every representable one of ``fmt``: exact, halfway (ties), just off."""
    dtype = DTYPES[fmt.name]
    width = np.uint16 if fmt.bits == 16 else np.uint8
    with np.errstate(invalid="ignore"):
        exact = np.arange(1 << fmt.bits, dtype=np.uint32).astype(width).view(dtype).astype(np.float64)
    exact = np.sort(exact[np.isfinite(exact)])
    mids = ((exact[:-1] + exact[1:]) / 2).astype(np.float32)  # exact: ties of the format
    near = np.concatenate([mids, np.nextafter(mids, np.float32(np.inf)),
                           np.nextafter(mids, np.float32(-np.inf))]).astype(np.float64)
    big = float(ml_dtypes.finfo(dtype).max)
    specials = [0.0, -0.0, np.inf, -np.inf, np.nan, big * 1.01, -big * 1.01, big * 4, 1e-300, -1e-300,
                float(ml_dtypes.finfo(dtype).smallest_subnormal or 0) / 2]
    # f32 values only: ml_dtypes rounds a float64 through float32 first (double rounding),
    # where APFloat (and the VM) round once; f64 inputs are checked by hand below.
    with np.errstate(over="ignore"):
        values = np.concatenate([exact, near, np.array(specials, np.float32)])
    if fmt.kind == "e8m0":  # ml_dtypes misrounds f32 subnormals to e8m0; checked by hand below
        values = values[~((np.abs(values) < 2.0 ** -126) & (values != 0))]
    if fmt.bits == 16:
        values = values[:: max(1, values.size // 6000)]
    return values


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_decode_every_bit_pattern(name):
    fmt = FORMATS[name]
    decode, _ = _functions(fmt.code)
    dtype = DTYPES[name]
    width = np.uint16 if fmt.bits == 16 else np.uint8
    patterns = range(0, 1 << fmt.bits, 1 if fmt.bits <= 8 else 37)
    with np.errstate(invalid="ignore"):
        want = np.array(list(patterns), np.uint32).astype(width).view(dtype).astype(np.float64)
    got = np.array([decode(p) for p in patterns])
    np.testing.assert_array_equal(got, want)  # NaN == NaN here; -0 checked below
    numbers = ~np.isnan(want)
    assert np.array_equal(np.signbit(got[numbers]), np.signbit(want[numbers]))


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_encode_rounds_like_apfloat(name):
    fmt = FORMATS[name]
    _, encode = _functions(fmt.code)
    dtype = DTYPES[name]
    values = _edge_values(fmt)
    with np.errstate(over="ignore", invalid="ignore"):
        want = values.astype(dtype)
    width = np.uint16 if fmt.bits == 16 else np.uint8
    want_bits = want.view(width).astype(np.int64)
    got = np.array([encode(float(v)) for v in values], np.int64)
    nan = np.isnan(want.astype(np.float64))
    # NaN results: any NaN pattern of the format is fine except where only one exists.
    np.testing.assert_array_equal(got[~nan], want_bits[~nan])
    decoded = np.array(got[nan], np.uint32).astype(width).view(dtype).astype(np.float64)
    assert np.isnan(decoded).all()


def test_truncf_edge_cases_bit_exact():
    """The cases IREE's e2e small_float_arith checks: ties to even, subnormals, overflow."""
    enc = {name: _functions(fmt.code)[1] for name, fmt in FORMATS.items()}
    assert [enc["f8E5M2FNUZ"](x) for x in (2.25, 3.25)] == [0x44, 0x46]
    assert [enc["f8E5M2FNUZ"](x) for x in (7.62939453125e-06, 2.288818359375e-05)] == [1, 3]
    assert [enc["f8E4M3FN"](k / 512) for k in (1, 1.5, 2, 2.5, 3, 3.5)] == [1, 2, 2, 2, 3, 4]
    assert [enc["f8E4M3FN"](x) for x in (448, 464, 465, -1e9, float("inf"))] == [0x7E, 0x7E, 0x7F, 0xFF, 0x7F]
    assert [enc["f8E4M3FNUZ"](x) for x in (240, 248, -0.0, float("nan"))] == [0x7F, 0x80, 0, 0x80]
    assert [enc["f8E5M2"](x) for x in (57344, 61439, 61440, -float("inf"))] == [0x7B, 0x7B, 0x7C, 0xFC]
    assert [enc["bf16"](x) for x in (1.00390625, 1.01171875, 3.4e38)] == [0x3F80, 0x3F82, 0x7F80]
    assert [enc["f8E8M0FNU"](x) for x in (1.5, 3.0, 2.0 ** -130, 0.0, -1.0)] == [128, 129, 0, 0xFF, 0xFF]
    # An f64 just below a tie rounds down: one rounding, not through f32 (APFloat).
    assert enc["f8E4M3FN"](np.nextafter(432.0, 0.0)) == 0x7D
    assert enc["bf16"](np.nextafter(1.00390625, 2.0)) == 0x3F81
    below_tie = float(np.nextafter(np.float32(1.5 * 2.0 ** -127), np.float32(0)))
    assert [enc["f8E8M0FNU"](x) for x in (below_tie, 1.5 * 2.0 ** -127)] == [0, 1]


def test_unknown_format_traps():
    decode, encode = _functions(0x21)
    with pytest.raises(VMTrapError, match=r"format 0x21 is not one of 0x22 \(bf16\)"):
        decode(0)
    with pytest.raises(VMTrapError, match=r"format 0x21"):
        encode(1.0)
