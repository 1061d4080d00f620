"""Float ops: f32 rounding, NaN-propagating min/max, ordered/unordered compares, conversions."""
import math

import numpy as np
import pytest

from vm_helpers import op_function

NAN, INF = float("nan"), float("inf")


def f32(x):
    return float(np.float32(x))


def test_f32_arithmetic_rounds_to_f32():
    add = op_function("add_f32", ["f32", "f32"], "f32")
    assert add(0.1, 0.2) == f32(np.float32(0.1) + np.float32(0.2))
    assert op_function("add_f64", ["f64", "f64"], "f64")(0.1, 0.2) == 0.1 + 0.2
    assert op_function("div_f32", ["f32", "f32"], "f32")(1.0, 3.0) == f32(np.float32(1) / np.float32(3))
    assert op_function("div_f64", ["f64", "f64"], "f64")(1.0, 0.0) == INF
    assert op_function("rem_f32", ["f32", "f32"], "f32")(-7.5, 2.0) == math.fmod(-7.5, 2.0)
    assert op_function("fma_f64", ["f64", "f64", "f64"], "f64")(0.1, 10.0, -1.0) == pytest.approx(5.551115123125783e-17)
    assert op_function("neg_f32", ["f32"], "f32")(0.0) == 0.0 and math.copysign(1, op_function("neg_f32", ["f32"], "f32")(0.0)) == -1


@pytest.mark.parametrize("fn,py", [
    ("sqrt", math.sqrt), ("floor", math.floor), ("ceil", math.ceil), ("exp", math.exp), ("log", math.log),
    ("tanh", math.tanh), ("abs", abs),
])
def test_unary_math(fn, py):
    for x in (0.5, 2.25, 7.0):
        assert op_function(f"{fn}_f64", ["f64"], "f64")(x) == py(x)
        assert op_function(f"{fn}_f32", ["f32"], "f32")(x) == pytest.approx(f32(py(x)), rel=1e-6)


def test_round_half_away_from_zero_and_pow():
    r = op_function("round_f32", ["f32"], "f32")
    assert [r(0.5), r(-0.5), r(1.5), r(2.5)] == [1.0, -1.0, 2.0, 3.0]
    assert op_function("pow_f64", ["f64", "f64"], "f64")(2.0, 10.0) == 1024.0


@pytest.mark.parametrize("w", ["f32", "f64"])
def test_min_max_propagate_nan_and_order_zeros(w):
    mn, mx = op_function(f"min_{w}", [w, w], w), op_function(f"max_{w}", [w, w], w)
    assert math.isnan(mn(NAN, 1.0)) and math.isnan(mn(1.0, NAN)) and math.isnan(mx(NAN, 1.0))
    assert mn(1.0, 2.0) == 1.0 and mx(1.0, 2.0) == 2.0
    assert math.copysign(1, mn(0.0, -0.0)) == -1 and math.copysign(1, mx(-0.0, 0.0)) == 1


@pytest.mark.parametrize("w", ["f32", "f64"])
def test_ordered_vs_unordered_compares(w):
    table = {"eq": (lambda a, b: a == b), "ne": (lambda a, b: a != b), "lt": (lambda a, b: a < b),
             "lte": (lambda a, b: a <= b), "gt": (lambda a, b: a > b), "gte": (lambda a, b: a >= b)}
    for rel, py in table.items():
        o = op_function(f"cmp_{rel}_{w}_o", [w, w], "i32")
        u = op_function(f"cmp_{rel}_{w}_u", [w, w], "i32")
        for a, b in [(1.0, 2.0), (2.0, 1.0), (1.0, 1.0)]:
            assert o(a, b) == int(py(a, b)) == u(a, b)
        assert o(NAN, 1.0) == 0 and o(1.0, NAN) == 0
        assert u(NAN, 1.0) == 1 and u(NAN, NAN) == 1
    assert op_function(f"cmp_nan_{w}", [w], "i32")(NAN) == 1
    assert op_function(f"cmp_nan_{w}", [w], "i32")(INF) == 0


@pytest.mark.parametrize("w", ["f32", "f64"])
def test_float_to_int_saturates_and_nan_is_zero(w):
    si32, ui32 = op_function(f"cast_{w}_si32", [w], "i32"), op_function(f"cast_{w}_ui32", [w], "i32")
    si64, ui64 = op_function(f"cast_{w}_si64", [w], "i64"), op_function(f"cast_{w}_ui64", [w], "i64")
    assert [si32(NAN), si32(1e20), si32(-1e20), si32(-2.9), si32(2.9)] == [0, 2**31 - 1, -(2**31), -2, 2]
    assert [ui32(NAN), ui32(-5.0), ui32(1e20), ui32(3.7)] == [0, 0, -1, 3]  # 0xFFFFFFFF as i32
    assert [si64(INF), si64(-INF), si64(NAN), si64(-3.5)] == [2**63 - 1, -(2**63), 0, -3]
    assert [ui64(INF), ui64(-1.0), ui64(2.0**40)] == [-1, 0, 2**40]


def test_int_to_float_and_widening():
    assert op_function("cast_si32_f32", ["i32"], "f32")(-3) == -3.0
    assert op_function("cast_ui32_f64", ["i32"], "f64")(-1) == 4294967295.0
    assert op_function("cast_si64_f64", ["i64"], "f64")(-(2**62)) == -(2.0**62)
    assert op_function("cast_ui64_f32", ["i64"], "f32")(-1) == f32(2.0**64)
    assert op_function("cast_si32_f32", ["i32"], "f32")(16777217) == 16777216.0
    assert op_function("trunc_f64_f32", ["f64"], "f32")(0.1) == f32(0.1)
    assert op_function("ext_f32_f64", ["f32"], "f64")(0.1) == f32(0.1)


def test_bitcasts():
    assert op_function("bitcast_f32_i32", ["f32"], "i32")(1.0) == 0x3F800000
    assert op_function("bitcast_i32_f32", ["i32"], "f32")(0x3F800000) == 1.0
    assert math.isinf(op_function("bitcast_i32_f32", ["i32"], "f32")(0x7F800000))
    assert op_function("bitcast_f64_i64", ["f64"], "i64")(-0.0) == -(2**63)
    assert op_function("bitcast_i64_f64", ["i64"], "f64")(0x3FF0000000000000) == 1.0
