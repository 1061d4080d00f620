"""vmvx codegen of bodies reading push constants as scalars (``hal.interface.constant.load``):
captured scalars, fills with runtime values, 64-bit values assembled from two constants."""
import numpy as np
import pytest

from rt.compiler.codegen import kernel_ir as kir
from rt.runtime.errors import CompileError
from vmvx_kernel_helpers import CONFIGS, compile_kernels, d, dispatch, op, view

RNG = np.random.default_rng(7)


def _load(ordinal):
    return op("hal.interface.constant.load", (), "i32", ordinal=ordinal)


def _bits32(value, dtype):
    return int(np.array(value, dtype).view(np.uint32))


def _fill_kernel(name, t, shape, body, constants, dist=((1, 0), (4, 2))):
    """A fill of binding 0 yielding the last op of ``body`` (whose value ids start at 1)."""
    rank = len(shape)
    g = kir.Generic(shape, ("parallel",) * rank, (), (view(0, t, shape),), (d(*range(rank)),), tuple(body),
                    (len(body),), "fill")
    return kir.Kernel(name, 1, constants, (g,), kir.Distribution(dist[0], dist[1], (dist[0],)), ("wo",))


@pytest.mark.parametrize("config", CONFIGS)
def test_elementwise_scale_by_f32_argument(config):
    # out = in * bitcast(push constant 1): IREE's captured f32 scalar operand.
    n = kir.Constant(0)
    body = (_load(1), op("arith.bitcast", (2,), "f32"), op("arith.mulf", (0, 3), "f32"))
    g = kir.Generic((n,), ("parallel",), (view(0, "f32", (n,)),), (view(1, "f32", (n,)),), (d(0), d(0)), body,
                    (4,), "elementwise")
    k = kir.Kernel("scale", 2, 2, (g,), kir.Distribution((0,), (16,), ((0,),)), ("ro", "wo"))
    x = RNG.standard_normal(37).astype(np.float32)
    out = np.full(37, np.nan, np.float32)
    dispatch(k, [x, out], (37,), constants=(37, _bits32(-2.5, np.float32)), config=config)
    np.testing.assert_array_equal(out, x * np.float32(-2.5))


@pytest.mark.parametrize("config", CONFIGS)
def test_scalar_on_the_left_and_integer_divisor(config):
    # out0 = bitcast(c0) - a (scalar first), out1 = b / c1 (signed, trapping op kept in the loop).
    shape = (3, 11)
    body = (_load(0), op("arith.bitcast", (4,), "f32"), op("arith.subf", (5, 0), "f32"),
            _load(1), op("arith.divsi", (1, 7), "i32"))
    g = kir.Generic(shape, ("parallel",) * 2, (view(0, "f32", shape), view(1, "i32", shape)),
                    (view(2, "f32", shape), view(3, "i32", shape)), (d(0, 1),) * 4, body, (6, 8), "generic")
    div = kir.Generic(shape, ("parallel",) * 2, (view(1, "i32", shape),), (view(3, "i32", shape),), (d(0, 1),) * 2,
                      (_load(1), op("arith.divsi", (0, 2), "i32")), (3,), "elementwise")
    sub = kir.Generic(shape, ("parallel",) * 2, (view(0, "f32", shape),), (view(2, "f32", shape),), (d(0, 1),) * 2,
                      (_load(0), op("arith.bitcast", (2,), "f32"), op("arith.subf", (3, 0), "f32")), (4,),
                      "elementwise")
    a = RNG.standard_normal(shape).astype(np.float32)
    b = RNG.integers(-1000, 1000, shape, dtype=np.int32)
    consts = (_bits32(0.75, np.float32), np.uint32(-7 & 0xFFFFFFFF))
    for ops in ((g,), (sub, div)):
        dist = kir.Distribution((1, 0), (4, 2), ((1, 0),) * len(ops))
        k = kir.Kernel("sd", 4, 2, ops, dist, ("ro", "ro", "wo", "wo"))
        out_f, out_i = np.zeros(shape, np.float32), np.zeros(shape, np.int32)
        dispatch(k, [a, b, out_f, out_i], (11, 3), constants=[int(c) for c in consts], config=config)
        np.testing.assert_array_equal(out_f, np.float32(0.75) - a)
        np.testing.assert_array_equal(out_i, np.trunc(b / -7).astype(np.int32))


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("t,value", [("f32", -3.25), ("i32", -123456), ("i8", -77), ("i16", 30000),
                                     ("i1", 1)])
def test_fill_with_a_32_bit_push_constant(config, t, value):
    dtype = {"f32": np.float32, "i32": np.int32, "i8": np.int8, "i16": np.int16, "i1": np.bool_}[t]
    body = [_load(0)]
    if t == "f32":
        body.append(op("arith.bitcast", (1,), "f32"))
        bits = _bits32(value, np.float32)
    else:
        if t != "i32":
            body.append(op("arith.trunci", (1,), t))
        bits = value & 0xFFFFFFFF
    k = _fill_kernel("fill", t, (5, 9), body, 1)
    out = np.zeros((5, 9), dtype)
    dispatch(k, [out], (9, 5), constants=(bits,), config=config)
    np.testing.assert_array_equal(out, np.full((5, 9), value, dtype))


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("t", ["i64", "f64"])
def test_fill_with_a_64_bit_value_from_two_push_constants(config, t):
    # v = (zext(hi) << 32) | zext(lo), as the host splits an i64/f64 operand into two constants.
    value = np.array(-1.0e300 if t == "f64" else -(2**40) - 5, {"f64": np.float64, "i64": np.int64}[t])
    bits = int(value.view(np.uint64))
    body = [_load(0), _load(1), op("arith.extui", (1,), "i64"), op("arith.extui", (2,), "i64"),
            op("arith.constant", (), "i64", value=32), op("arith.shli", (4, 5), "i64"),
            op("arith.ori", (3, 6), "i64")]
    if t == "f64":
        body.append(op("arith.bitcast", (7,), "f64"))
    k = _fill_kernel("fill64", t, (3, 10), body, 2)
    out = np.zeros((3, 10), value.dtype)
    dispatch(k, [out], (10, 3), constants=(bits & 0xFFFFFFFF, bits >> 32), config=config)
    np.testing.assert_array_equal(out, np.full((3, 10), value))


@pytest.mark.parametrize("config", CONFIGS)
def test_f16_fill_from_a_truncated_f32_argument(config):
    body = [_load(0), op("arith.bitcast", (1,), "f32"), op("arith.truncf", (2,), "f16")]
    k = _fill_kernel("fill16", "f16", (4, 4), body, 1)
    out = np.zeros((4, 4), np.float16)
    dispatch(k, [out], (4, 4), constants=(_bits32(0.1, np.float32),), config=config)
    np.testing.assert_array_equal(out, np.full((4, 4), np.float16(np.float32(0.1))))


@pytest.mark.parametrize("config", CONFIGS)
def test_push_constant_as_size_and_as_scalar_together(config):
    # out[i] = float(i) + float(n) with n both the domain size and a body value.
    n = kir.Constant(0)
    body = (op("linalg.index", (), "index", dim=0), op("arith.index_cast", (1,), "i32"), _load(0),
            op("arith.addi", (2, 3), "i32"), op("arith.sitofp", (4,), "f32"))
    g = kir.Generic((n,), ("parallel",), (), (view(0, "f32", (n,)),), (d(0),), body, (5,), "generic")
    k = kir.Kernel("iota", 1, 1, (g,), kir.Distribution((0,), (8,), ((0,),)), ("wo",))
    out = np.zeros(20, np.float32)
    dispatch(k, [out], (20,), constants=(20,), config=config)
    np.testing.assert_array_equal(out, np.arange(20, dtype=np.float32) + 20)


def test_bad_push_constant_reads_are_compile_errors():
    g = kir.Generic((4,), ("parallel",), (), (view(0, "f32", (4,)),), (d(0),),
                    (_load(3), op("arith.bitcast", (1,), "f32")), (2,), "fill")
    with pytest.raises(CompileError, match=r"kernel 'k' reads push constant 3 but has constant_count 1"):
        compile_kernels([kir.Kernel("k", 1, 1, (g,))])
    g = kir.Generic((4,), ("parallel",), (), (view(0, "f32", (4,)),), (d(0),),
                    (op("hal.interface.constant.load", (), "f32", ordinal=0),), (1,), "fill")
    with pytest.raises(CompileError, match=r"hal.interface.constant.load with result type f32 .* expected an "
                                           r"i32 push constant"):
        compile_kernels([kir.Kernel("k", 1, 1, (g,))])


def _imports(kernel, config=""):
    from rt.compiler.targets import get_backend
    from rt.runtime.vm import Module

    backend = get_backend("vmvx")
    _, data, _ = backend.serialize("exe", [kernel], backend.target_config(config))
    return sorted(imp.name for imp in Module.from_bytes(data).imports)


def test_captured_scalars_and_runtime_fills_use_the_microkernels():
    n = kir.Constant(0)
    body = (_load(1), op("arith.bitcast", (2,), "f32"), op("arith.mulf", (0, 3), "f32"))
    g = kir.Generic((n,), ("parallel",), (view(0, "f32", (n,)),), (view(1, "f32", (n,)),), (d(0), d(0)), body,
                    (4,), "elementwise")
    scale = kir.Kernel("scale", 2, 2, (g,), kir.Distribution((0,), (16,), ((0,),)), ("ro", "wo"))
    assert _imports(scale) == ["vmvx.buffer.alloc", "vmvx.mul.2d.f32"]
    assert _imports(scale, "no-ukernels") == []
    fill = _fill_kernel("fill", "f32", (4, 4), [_load(0), op("arith.bitcast", (1,), "f32")], 1)
    assert _imports(fill) == ["vmvx.fill.2d.x32"]
