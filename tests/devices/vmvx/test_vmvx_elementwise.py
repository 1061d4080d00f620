"""vmvx elementwise microkernels (binary, unary, copy, fill) against numpy."""
import math

import numpy as np
import pytest

from rt.devices.vmvx import _ukernels as uk
from rt.runtime.errors import InvalidArgumentError
from vmvx_views import layouts, strided, wrap

RNG = np.random.default_rng(1234)
SHAPES = [(1, 1), (3, 7), (5, 17), (2, 4099)]  # tails, odd sizes, one view above the GIL cut-off


def _operand(dtype, layout, size0, size1, values):
    """A flat buffer holding `values` at the strided positions of `layout`."""
    off, s0, s1 = layout
    n = off + max(0, (size0 - 1) * s0) + max(0, (size1 - 1) * s1) + 1
    flat = np.full(n + 3, 99, dtype=dtype)
    view = strided(flat, off, s0, s1, size0, size1)
    idx = np.arange(flat.size).astype(np.int64)
    pos = strided(idx, off, s0, s1, size0, size1)
    flat[pos] = values  # stride-0 views keep the last write; `view` reflects what was stored
    return flat, np.array(view)


def _out(dtype, layout, size0, size1):
    off, s0, s1 = layout
    if s0 == 0:  # an output must not alias itself
        s0 = size1
    n = off + max(0, (size0 - 1) * s0) + max(0, (size1 - 1) * s1) + 1
    return np.full(n + 2, 77, dtype=dtype), (off, s0, s1)


def _f32_ref(name, a, b):
    with np.errstate(all="ignore"):
        return {
            "add": lambda: a + b, "sub": lambda: a - b, "mul": lambda: a * b,
            "div": lambda: a / b, "pow": lambda: np.power(a, b),
            "max": lambda: np.maximum(a, b), "min": lambda: np.minimum(a, b),
        }[name]().astype(np.float32)


def _i32_ref(name, a, b):
    a64, b64 = a.astype(np.int64), b.astype(np.int64)
    ua, ub = a.view(np.uint32).astype(np.int64), b.view(np.uint32).astype(np.int64)
    sh = np.minimum(ub, 31)  # shifts by 32 or more: 0, or the sign fill (docs/ARCHITECTURE.md)
    too_far = ub >= 32
    if name in ("divs", "rems"):
        q = np.where(b64 == 0, 0, np.abs(a64) // np.where(b64 == 0, 1, np.abs(b64)))
        q = q * np.sign(a64) * np.sign(b64)
        r = a64 - b64 * q
        res = q if name == "divs" else r
    else:
        res = {
            "add": lambda: a64 + b64, "sub": lambda: a64 - b64, "mul": lambda: a64 * b64,
            "divu": lambda: ua // ub, "remu": lambda: ua % ub,
            "and": lambda: a64 & b64, "or": lambda: a64 | b64, "xor": lambda: a64 ^ b64,
            "shl": lambda: np.where(too_far, 0, ua << sh), "shrs": lambda: a64 >> sh,
            "shru": lambda: np.where(too_far, 0, ua >> sh),
            "maxs": lambda: np.maximum(a64, b64), "mins": lambda: np.minimum(a64, b64),
            "maxu": lambda: np.where(ua > ub, a64, b64), "minu": lambda: np.where(ua < ub, a64, b64),
        }[name]()
    return (res & 0xFFFFFFFF).astype(np.uint32).view(np.int32)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("op", range(len(uk.BINARY_F32_OPS)))
def test_binary_f32_matches_numpy(op, shape):
    name = uk.BINARY_F32_OPS[op]
    for i, layout in enumerate(layouts(*shape)):
        a_vals = RNG.uniform(0.5, 4.0, shape).astype(np.float32)
        b_vals = RNG.uniform(-3.0, 3.0, shape).astype(np.float32)
        a_flat, a = _operand(np.float32, layout, *shape, a_vals)
        b_flat, b = _operand(np.float32, layouts(*shape)[(i + 2) % 6], *shape, b_vals)
        out, olay = _out(np.float32, layouts(*shape)[(i + 1) % 6], *shape)
        before = out.copy()
        uk.binary_2d(False, op, wrap(a_flat), *layout, wrap(b_flat), *layouts(*shape)[(i + 2) % 6],
                     wrap(out), *olay, *shape)
        got = np.array(strided(out, *olay, *shape))
        if name == "pow":  # libm powf and numpy's float32 power may differ in the last ulp
            np.testing.assert_allclose(got, _f32_ref(name, a, b), rtol=3e-7, err_msg=f"layout {i}")
        else:
            np.testing.assert_array_equal(got, _f32_ref(name, a, b), err_msg=f"{name} layout {i}")
        touched = np.zeros(out.size, bool)
        touched[strided(np.arange(out.size), *olay, *shape)] = True
        np.testing.assert_array_equal(out[~touched], before[~touched])


def test_max_min_f32_propagate_nan_and_order_signed_zeros():
    a = np.array([[np.nan, 1.0, -0.0, 0.0, 2.0]], np.float32)
    b = np.array([[1.0, np.nan, 0.0, -0.0, -np.inf]], np.float32)
    for op, want in (("max", [np.nan, np.nan, 0.0, 0.0, 2.0]), ("min", [np.nan, np.nan, -0.0, -0.0, -np.inf])):
        out = np.zeros((1, 5), np.float32)
        uk.binary_2d(False, uk.BINARY_F32_OPS.index(op), wrap(a), 0, 5, 1, wrap(b), 0, 5, 1,
                     wrap(out), 0, 5, 1, 1, 5)
        np.testing.assert_array_equal(out[0], np.array(want, np.float32))
        np.testing.assert_array_equal(np.signbit(out[0][2:4]), [op == "min"] * 2)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("op", range(len(uk.BINARY_I32_OPS)))
def test_binary_i32_matches_reference(op, shape):
    name = uk.BINARY_I32_OPS[op]
    edge = np.array([0, 1, -1, 2**31 - 1, -(2**31), 37, -1000, 33], np.int32)
    for i, layout in enumerate(layouts(*shape)[:4]):
        a_vals = RNG.integers(-(2**31), 2**31, shape, dtype=np.int64).astype(np.int32)
        a_vals.flat[: min(a_vals.size, edge.size)] = edge[: a_vals.size]
        b_vals = RNG.integers(-(2**31), 2**31, shape, dtype=np.int64).astype(np.int32)
        b_vals.flat[: min(b_vals.size, edge.size)] = edge[::-1][: b_vals.size]
        if name in ("divs", "divu", "rems", "remu"):
            b_vals[b_vals == 0] = -1
        a_flat, a = _operand(np.int32, layout, *shape, a_vals)
        b_flat, b = _operand(np.int32, (1, shape[1] + 1, 1), *shape, b_vals)
        out, olay = _out(np.int32, layouts(*shape)[(i + 1) % 4], *shape)
        uk.binary_2d(True, op, wrap(a_flat), *layout, wrap(b_flat), 1, shape[1] + 1, 1,
                     wrap(out), *olay, *shape)
        got = np.array(strided(out, *olay, *shape))
        np.testing.assert_array_equal(got, _i32_ref(name, a, b), err_msg=f"{name} layout {i}")


@pytest.mark.parametrize("name", ["divs", "divu", "rems", "remu"])
def test_integer_division_by_zero_is_an_error_and_writes_nothing(name):
    a = np.arange(8, dtype=np.int32)
    b = np.array([1, 2, 3, 4, 5, 6, 0, 8], np.int32)
    out = np.full(8, 5, np.int32)
    with pytest.raises(InvalidArgumentError, match=rf"vmvx\.{name}\.2d\.i32: integer division by zero"):
        uk.binary_2d(True, uk.BINARY_I32_OPS.index(name), wrap(a), 0, 4, 1, wrap(b), 0, 4, 1,
                     wrap(out), 0, 4, 1, 2, 4)
    np.testing.assert_array_equal(out, 5)


def _unary_f32_ref(name, a):
    with np.errstate(all="ignore"):
        if name == "erf":
            return np.array([math.erf(float(x)) for x in a.flat], np.float64).reshape(a.shape)
        f = {"abs": np.abs, "neg": np.negative, "exp": np.exp, "log": np.log, "sqrt": np.sqrt,
             "rsqrt": lambda x: np.float32(1) / np.sqrt(x), "tanh": np.tanh, "floor": np.floor,
             "ceil": np.ceil, "roundeven": np.rint, "sin": np.sin, "cos": np.cos}[name]
        return f(a)


EXACT_UNARY = {"abs", "neg", "sqrt", "rsqrt", "floor", "ceil", "roundeven"}


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("op", range(len(uk.UNARY_F32_OPS)))
def test_unary_f32_matches_numpy(op, shape):
    name = uk.UNARY_F32_OPS[op]
    for i, layout in enumerate(layouts(*shape)):
        vals = RNG.uniform(-6.0, 6.0, shape).astype(np.float32)
        vals.flat[:4] = np.array([0.5, 1.5, -2.5, 2.0], np.float32)[: vals.size]
        if name in ("log", "sqrt", "rsqrt"):
            vals = np.abs(vals) + np.float32(0.25)
        a_flat, a = _operand(np.float32, layout, *shape, vals)
        out, olay = _out(np.float32, layouts(*shape)[(i + 3) % 6], *shape)
        uk.unary_2d(False, op, wrap(a_flat), *layout, wrap(out), *olay, *shape)
        got = np.array(strided(out, *olay, *shape))
        want = _unary_f32_ref(name, a)
        if name in EXACT_UNARY:
            np.testing.assert_array_equal(got, want.astype(np.float32), err_msg=name)
        else:
            np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-7, err_msg=name)


def _unary_contiguous(name, x):
    out = np.zeros_like(x)
    uk.unary_2d(False, uk.UNARY_F32_OPS.index(name), wrap(x), 0, x.size, 1, wrap(out), 0, x.size, 1,
                1, x.size)
    return out


@pytest.mark.parametrize("name,ref,domain,max_ulp", [
    ("exp", np.exp, lambda x: (x > -87.3) & (x < 88.7), 1.5),
    ("log", np.log, lambda x: x > 0, 1.0),
    ("tanh", np.tanh, lambda x: np.abs(x) < 20, 1.5),
])
def test_transcendentals_within_stated_ulps_over_a_sweep_of_all_floats(name, ref, domain, max_ulp):
    """The accuracy elementwise_simd.h states, on every 9973rd f32 bit pattern in the domain."""
    x = np.arange(0, 2**32, 9973, dtype=np.uint64).astype(np.uint32).view(np.float32)
    x = np.ascontiguousarray(x[np.isfinite(x) & domain(x)])
    got = _unary_contiguous(name, x)
    want = ref(x.astype(np.float64))
    ulp = np.spacing(np.abs(want.astype(np.float32))).astype(np.float64)
    assert np.max(np.abs(got - want) / ulp) <= max_ulp


def test_transcendental_special_values():
    x = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 89.0, -104.0, -1.0], np.float32)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(_unary_contiguous("exp", x), [np.inf, 0, np.nan, 1, 1, np.inf, 0,
                                                                    np.float32(np.exp(-1.0))])
        np.testing.assert_array_equal(_unary_contiguous("log", x), [np.inf, np.nan, np.nan, -np.inf, -np.inf,
                                                                    np.log(np.float32(89.0)), np.nan, np.nan])
    np.testing.assert_array_equal(_unary_contiguous("tanh", x)[:3], [1, -1, np.nan])
    assert 0 < _unary_contiguous("exp", np.array([-100.0], np.float32))[0] < 1e-38  # subnormal


@pytest.mark.parametrize("name", ["exp", "log", "tanh", "add", "max"])
def test_vectorized_and_strided_rows_agree_bit_for_bit(name):
    vals = RNG.uniform(0.01, 30.0, (3, 257)).astype(np.float32)
    vals[0, :4] = [np.nan, 0.0, -0.0, np.inf]
    other = RNG.uniform(-3.0, 3.0, (3, 257)).astype(np.float32)
    dense, strided_out = np.zeros_like(vals), np.zeros((3, 257 * 2), np.float32)
    src = np.repeat(vals, 2, axis=1)
    if name in uk.UNARY_F32_OPS:
        op = uk.UNARY_F32_OPS.index(name)
        uk.unary_2d(False, op, wrap(vals), 0, 257, 1, wrap(dense), 0, 257, 1, 3, 257)
        uk.unary_2d(False, op, wrap(src), 0, 514, 2, wrap(strided_out), 0, 514, 2, 3, 257)
    else:
        op = uk.BINARY_F32_OPS.index(name)
        osrc = np.repeat(other, 2, axis=1)
        uk.binary_2d(False, op, wrap(vals), 0, 257, 1, wrap(other), 0, 257, 1, wrap(dense), 0, 257, 1, 3, 257)
        uk.binary_2d(False, op, wrap(src), 0, 514, 2, wrap(osrc), 0, 514, 2, wrap(strided_out), 0, 514, 2,
                     3, 257)
    np.testing.assert_array_equal(dense.view(np.uint32), strided_out[:, ::2].view(np.uint32))


def test_unary_i32_matches_reference():
    a = np.array([[0, 1, -1, 2**31 - 1], [-(2**31), 16, -16, 255]], np.int32)
    want = {
        "abs": [[0, 1, 1, 2**31 - 1], [-(2**31), 16, 16, 255]],
        "neg": [[0, -1, 1, -(2**31) + 1], [-(2**31), -16, 16, -255]],
        "not": [[-1, -2, 0, -(2**31)], [2**31 - 1, -17, 15, -256]],
        "ctlz": [[32, 31, 0, 1], [0, 27, 0, 24]],
    }
    for op, name in enumerate(uk.UNARY_I32_OPS):
        out = np.zeros((2, 4), np.int32)
        uk.unary_2d(True, op, wrap(a), 0, 4, 1, wrap(out), 0, 4, 1, 2, 4)
        np.testing.assert_array_equal(out, np.array(want[name], np.int64).astype(np.int32), err_msg=name)


@pytest.mark.parametrize("esize,dtype", [(1, np.uint8), (2, np.uint16), (4, np.uint32), (8, np.uint64)])
@pytest.mark.parametrize("shape", SHAPES)
def test_copy_all_widths_and_layouts(esize, dtype, shape):
    for i, layout in enumerate(layouts(*shape)):
        vals = RNG.integers(0, np.iinfo(dtype).max, shape, dtype=dtype, endpoint=True)
        a_flat, a = _operand(dtype, layout, *shape, vals)
        out, olay = _out(dtype, layouts(*shape)[(i + 2) % 6], *shape)
        uk.copy_2d(esize, wrap(a_flat), *layout, wrap(out), *olay, *shape)
        np.testing.assert_array_equal(np.array(strided(out, *olay, *shape)), a)


@pytest.mark.parametrize("esize,dtype", [(1, np.uint8), (2, np.uint16), (4, np.uint32), (8, np.uint64)])
def test_fill_truncates_bits_to_width_and_respects_strides(esize, dtype):
    bits = 0x8877665544332211
    for shape in SHAPES:
        for layout in layouts(*shape)[:4] + layouts(*shape)[5:]:
            out, olay = _out(dtype, layout, *shape)
            before = out.copy()
            uk.fill_2d(esize, bits, wrap(out), *olay, *shape)
            pos = np.zeros(out.size, bool)
            pos[strided(np.arange(out.size), *olay, *shape)] = True
            np.testing.assert_array_equal(out[pos], dtype(bits & ((1 << (8 * esize)) - 1)))
            np.testing.assert_array_equal(out[~pos], before[~pos])


def test_in_place_elementwise_aliasing_output_and_input():
    a = np.arange(20, dtype=np.float32)
    b = wrap(a)
    uk.binary_2d(False, uk.BINARY_F32_OPS.index("mul"), b, 0, 5, 1, b, 0, 5, 1, b, 0, 5, 1, 4, 5)
    np.testing.assert_array_equal(a, np.arange(20, dtype=np.float32) ** 2)
