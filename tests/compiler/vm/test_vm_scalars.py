"""iree-vm-conversion of host scalars: unfoldable constants, floordivsi, NaN-aware min/max,
math ops and f16 carried in f32 registers, each run in the VM and checked against numpy."""
import math

import numpy as np
import pytest

from rt.compiler.dialects import make_context
from rt.compiler.frontend import parse_module
from rt.compiler.passes import parse_pass_spec
from rt.compiler.passes.vm.conversion import vmfb_bytes
from rt.runtime.vm import Context, Instance, Module

PROGRAM = """
util.global private @g16 = 0.1 : f16
util.func public @unfoldable() -> (i32, i64, i64, f32, f64, i32) {
  %a = util.unfoldable_constant -7 : i32
  %b = util.unfoldable_constant 4294967296 : i64
  %c = util.unfoldable_constant 12 : index
  %d = util.unfoldable_constant 1.5 : f32
  %e = util.unfoldable_constant -2.25 : f64
  %f = util.unfoldable_constant true
  %c64 = arith.index_cast %c : index to i64
  %f32 = arith.extui %f : i1 to i32
  %x:2 = util.optimization_barrier %a, %d : i32, f32
  util.return %x#0, %b, %c64, %x#1, %e, %f32 : i32, i64, i64, f32, f64, i32
}
util.func public @floordiv32(%a: i32, %b: i32) -> i32 {
  %q = arith.floordivsi %a, %b : i32
  util.return %q : i32
}
util.func public @floordiv64(%a: i64, %b: i64) -> i64 {
  %q = arith.floordivsi %a, %b : i64
  util.return %q : i64
}
util.func public @minmax(%a: f32, %b: f32) -> (f32, f32, f32, f32) {
  %0 = arith.maxnumf %a, %b : f32
  %1 = arith.minnumf %a, %b : f32
  %2 = arith.maximumf %a, %b : f32
  %3 = arith.minimumf %a, %b : f32
  util.return %0, %1, %2, %3 : f32, f32, f32, f32
}
util.func public @math(%a: f32) -> (f32, f32, f32, f64) {
  %0 = math.rsqrt %a : f32
  %1 = math.log2 %a : f32
  %2 = math.roundeven %a : f32
  %w = arith.extf %a : f32 to f64
  %3 = math.atan2 %w, %w : f64
  util.return %0, %1, %2, %3 : f32, f32, f32, f64
}
util.func public @to_f16(%x: f32) -> f32 {
  %h = arith.truncf %x : f32 to f16
  %w = arith.extf %h : f16 to f32
  util.return %w : f32
}
util.func public @f64_to_f16(%x: f64) -> f64 {
  %h = arith.truncf %x : f64 to f16
  %w = arith.extf %h : f16 to f64
  util.return %w : f64
}
util.func public @bits_to_f16(%b: i32) -> (f32, i32) {
  %b16 = arith.trunci %b : i32 to i16
  %h = arith.bitcast %b16 : i16 to f16
  %w = arith.extf %h : f16 to f32
  %back = arith.bitcast %h : f16 to i16
  %i = arith.extui %back : i16 to i32
  util.return %w, %i : f32, i32
}
util.func public @f16_arith(%a: f16, %b: f16, %c: f16, %n: i32) -> (f16, f16, f16, f16, f16) {
  %s = arith.addf %a, %b : f16
  %p = arith.mulf %a, %b : f16
  %q = arith.divf %a, %b : f16
  %f = math.fma %a, %b, %c : f16
  %i = arith.sitofp %n : i32 to f16
  util.return %s, %p, %q, %f, %i : f16, f16, f16, f16, f16
}
util.func public @f16_global() -> f16 {
  %g = util.global.load @g16 : f16
  util.return %g : f16
}
"""


@pytest.fixture(scope="module")
def ctx():
    mctx = make_context()
    module = parse_module(PROGRAM, "scalars.mlir", mctx)
    parse_pass_spec("iree-vm-conversion").run(module, mctx)
    return Context(Instance(), [Module.from_bytes(vmfb_bytes(module))])


def _f(ctx, name):
    return ctx.lookup_function(f"module.{name}")


def _f16(x):
    with np.errstate(over="ignore"):
        return float(np.float16(x))


def test_unfoldable_constants_of_every_scalar_type(ctx):
    assert _f(ctx, "unfoldable")() == (-7, 1 << 32, 12, 1.5, -2.25, 1)


@pytest.mark.parametrize("name", ["floordiv32", "floordiv64"])
def test_floordivsi_rounds_toward_negative_infinity(ctx, name):
    f = _f(ctx, name)
    for a in (-7, -6, 7, 6, 0, -1, 1):
        for b in (2, -2, 3, -3, 1, -1):
            assert f(a, b) == a // b, (a, b)
    if name == "floordiv64":
        assert f(-(1 << 40) - 1, 1 << 20) == (-(1 << 40) - 1) // (1 << 20)


def test_maxnumf_ignores_nan_maximumf_propagates_it(ctx):
    f = _f(ctx, "minmax")
    assert f(1.0, 2.0) == (2.0, 1.0, 2.0, 1.0)
    mx, mn, mxp, mnp = f(math.nan, 2.0)
    assert (mx, mn) == (2.0, 2.0) and math.isnan(mxp) and math.isnan(mnp)
    mx, mn, mxp, mnp = f(-3.0, math.nan)
    assert (mx, mn) == (-3.0, -3.0) and math.isnan(mxp) and math.isnan(mnp)


def test_math_ops_match_numpy(ctx):
    r, l2, re, at = _f(ctx, "math")(2.5)
    x = np.float32(2.5)
    assert r == pytest.approx(float(1 / np.sqrt(x)), rel=1e-6)
    assert l2 == pytest.approx(float(np.log2(x)), rel=1e-6)
    assert re == 2.0 and at == pytest.approx(math.pi / 4)


@pytest.mark.parametrize("x", [0.1, 1.0 / 3.0, 65504.0, 65519.0, 65520.0, 1e6, -1e6, 6e-8, 2.98e-8,
                               3e-8, 1e-9, -0.0, 5.9604645e-08, 6.1035156e-05, 0.00012207031])
def test_truncf_to_f16_rounds_like_numpy(ctx, x):
    got = _f(ctx, "to_f16")(x)
    want = _f16(np.float32(x))
    assert got == want and math.copysign(1.0, got) == math.copysign(1.0, want)


def test_truncf_f64_to_f16_rounds_once(ctx):
    # 1 + 2^-11 + 2^-40: just above the midpoint between 1 and 1 + 2^-10. Through f32 it would
    # first round to the midpoint and then (ties to even) down to 1; rounded once it goes up.
    f = _f(ctx, "f64_to_f16")
    x = 1.0 + 2.0 ** -11 + 2.0 ** -40
    assert f(x) == 1.0 + 2.0 ** -10
    assert math.isnan(f(math.nan)) and f(math.inf) == math.inf and f(-1e300) == -math.inf


def test_f16_bitcasts_round_trip_every_pattern(ctx):
    f = _f(ctx, "bits_to_f16")
    values = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16)
    for bits in range(1 << 16):
        value, back = f(bits)
        want = float(values[bits])
        if math.isnan(want):
            assert math.isnan(value) and back == bits | 0x0200, hex(bits)
        else:
            assert value == want and back == bits, hex(bits)


def test_f16_arithmetic_is_rounded_to_f16(ctx):
    a, b, c = 0.1, 3.0, -0.3
    s, p, q, fma, i = _f(ctx, "f16_arith")(a, b, c, 2049)
    ha, hb, hc = np.float16(a), np.float16(b), np.float16(c)
    assert s == float(ha + hb) and p == float(ha * hb) and q == float(ha / hb)
    assert fma == _f16(np.float64(ha) * np.float64(hb) + np.float64(hc))
    assert i == 2048.0


def test_f16_global_initial_value_is_rounded(ctx):
    assert _f(ctx, "f16_global")() == _f16(0.1)
