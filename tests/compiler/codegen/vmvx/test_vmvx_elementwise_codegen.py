"""vmvx codegen of elementwise Generics: microkernel matches, broadcasts, dynamic shapes, scalar bodies."""
import numpy as np
import pytest

from rt.compiler.codegen import kernel_ir as kir
from rt.compiler.targets import get_backend
from rt.runtime.vm import Module
from vmvx_kernel_helpers import CONFIGS, DTYPES, d, dispatch, op, view

RNG = np.random.default_rng(0)
PAR3 = ("parallel",) * 3


def _binary_kernel(name, t, shape, body, lhs_map=None, rhs_map=None, lhs_shape=None, rhs_shape=None,
                   dist=((1, 2), (8, 5)), constants=0):
    rank = len(shape)
    ident = d(*range(rank))
    g = kir.Generic(tuple(shape), ("parallel",) * rank,
                    (view(0, t, lhs_shape or shape), view(1, t, rhs_shape or shape)), (view(2, body[-1].result_type, shape),),
                    (lhs_map or ident, rhs_map or ident, ident), tuple(body), (3 + len(body) - 1,), "elementwise")
    dims, tiles = dist
    return kir.Kernel(name, 3, constants, (g,), kir.Distribution(dims, tiles, (dims,)), ("ro", "ro", "wo"))


@pytest.mark.parametrize("config", CONFIGS)
def test_broadcast_bias_add_over_odd_3d_tiles(config):
    shape = (3, 13, 7)
    k = _binary_kernel("bias_add", "f32", shape, [op("arith.addf", (0, 1), "f32")],
                       rhs_map=d(2), rhs_shape=(7,), dist=((2, 1), (4, 5)))
    a = RNG.standard_normal(shape).astype(np.float32)
    b = RNG.standard_normal(7).astype(np.float32)
    out = np.full(shape, np.nan, np.float32)
    dispatch(k, [a, b, out], (7, 13), config=config)
    np.testing.assert_array_equal(out, a + b)


@pytest.mark.parametrize("config", CONFIGS)
def test_dynamic_shapes_from_push_constants_and_transposed_operand(config):
    m, n = kir.Constant(0), kir.Constant(1)
    g = kir.Generic((m, n), ("parallel", "parallel"), (view(0, "f32", (m, n)), view(1, "f32", (n, m))),
                    (view(2, "f32", (m, n)),), (d(0, 1), d(1, 0), d(0, 1)), (op("arith.subf", (0, 1), "f32"),),
                    (3,), "elementwise")
    k = kir.Kernel("sub_t", 3, 2, (g,), kir.Distribution((1, 0), (16, 4), ((1, 0),)), ("ro", "ro", "wo"))
    a = RNG.standard_normal((9, 35)).astype(np.float32)
    b = RNG.standard_normal((35, 9)).astype(np.float32)
    out = np.zeros((9, 35), np.float32)
    dispatch(k, [a, b, out], (35, 9), constants=(9, 35), config=config)
    np.testing.assert_array_equal(out, a - b.T)


_UNARY_F32 = [("math.exp", np.exp), ("math.tanh", np.tanh), ("math.sqrt", np.sqrt), ("arith.negf", np.negative),
              ("math.floor", np.floor), ("math.roundeven", np.rint), ("math.log", np.log), ("math.sin", np.sin)]


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("name,ref", _UNARY_F32)
def test_unary_f32(config, name, ref):
    x = (RNG.uniform(0.1, 4.0, (5, 33))).astype(np.float32)
    g = kir.Generic((5, 33), ("parallel",) * 2, (view(0, "f32", (5, 33)),), (view(1, "f32", (5, 33)),),
                    (d(0, 1), d(0, 1)), (op(name, (0,), "f32"),), (2,), "elementwise")
    out = np.zeros_like(x)
    dispatch(kir.Kernel("u", 2, 0, (g,)), [x, out], config=config)
    np.testing.assert_allclose(out, ref(x), rtol=2e-7, atol=1e-7)


_BINARY_I32 = [("arith.addi", lambda a, b: a + b), ("arith.muli", lambda a, b: a * b),
               ("arith.divsi", lambda a, b: np.trunc(a / b).astype(np.int32)),
               ("arith.remsi", lambda a, b: np.fmod(a, b)), ("arith.shrsi", lambda a, b: a >> np.minimum(b.view(np.uint32), 31)),
               ("arith.maxui", lambda a, b: np.maximum(a.view(np.uint32), b.view(np.uint32)).view(np.int32)),
               ("arith.xori", np.bitwise_xor), ("arith.divui", lambda a, b: (a.view(np.uint32) // b.view(np.uint32)).view(np.int32))]


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("name,ref", _BINARY_I32)
def test_binary_i32_matches_numpy(config, name, ref):
    a = RNG.integers(-2**31, 2**31, (6, 17), dtype=np.int64).astype(np.int32)
    b = RNG.integers(1, 40, (6, 17), dtype=np.int32) * RNG.choice([-1, 1], (6, 17)).astype(np.int32)
    out = np.zeros_like(a)
    k = _binary_kernel("bi", "i32", (6, 17), [op(name, (0, 1), "i32")], dist=((1, 0), (8, 4)))
    with np.errstate(over="ignore"):
        want = ref(a, b)
    dispatch(k, [a, b, out], (17, 6), config=config)
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("config", CONFIGS)
def test_fill_and_broadcast_copy(config):
    fill = kir.Generic((4, 6), ("parallel",) * 2, (), (view(0, "f16", (4, 6)),), (d(0, 1),),
                       (op("arith.constant", (), "f16", value=1.5),), (1,), "fill")
    copy = kir.Generic((4, 6), ("parallel",) * 2, (view(1, "i8", (4,)),), (view(2, "i8", (4, 6)),),
                       (d(0), d(0, 1)), (), (0,), "broadcast")
    k = kir.Kernel("fc", 3, 0, (fill, copy), kir.Distribution((1,), (3,), ((1,), (1,))), ("wo", "ro", "wo"))
    f = np.zeros((4, 6), np.float16)
    src = np.array([-1, 2, -3, 4], np.int8)
    out = np.zeros((4, 6), np.int8)
    dispatch(k, [f, src, out], (6,), config=config)
    np.testing.assert_array_equal(f, np.full((4, 6), 1.5, np.float16))
    np.testing.assert_array_equal(out, np.repeat(src[:, None], 6, axis=1))


@pytest.mark.parametrize("config", CONFIGS)
def test_fused_scalar_body_with_select_cmp_and_index(config):
    # out[i, j] = a > 0 ? exp(a) * b + float(j) : maxnumf(a, b)   (a chain no microkernel covers)
    body = [op("arith.constant", (), "f32", value=0.0), op("arith.cmpf", (0, 3), "i1", predicate="ogt"),
            op("math.exp", (0,), "f32"), op("arith.mulf", (5, 1), "f32"), op("linalg.index", (), "index", dim=1),
            op("arith.index_cast", (7,), "i32"), op("arith.sitofp", (8,), "f32"), op("arith.addf", (6, 9), "f32"),
            op("arith.maxnumf", (0, 1), "f32"), op("arith.select", (4, 10, 11), "f32")]
    shape = (7, 11)
    g = kir.Generic(shape, ("parallel",) * 2, (view(0, "f32", shape), view(1, "f32", shape)), (view(2, "f32", shape),),
                    (d(0, 1),) * 3, tuple(body), (12,), "elementwise")
    k = kir.Kernel("fused", 3, 0, (g,), kir.Distribution((1, 0), (4, 3), ((1, 0),)), ("ro", "ro", "wo"))
    a = RNG.standard_normal(shape).astype(np.float32)
    b = RNG.standard_normal(shape).astype(np.float32)
    a[0, 0], b[1, 1], a[1, 1] = np.nan, np.nan, -1.0
    out = np.zeros(shape, np.float32)
    dispatch(k, [a, b, out], (11, 7), config=config)
    j = np.arange(11, dtype=np.float32)[None, :]
    want = np.where(a > 0, np.exp(a) * b + j, np.fmax(a, b))
    np.testing.assert_allclose(out, want, rtol=1e-6, atol=1e-5)
    assert out[1, 1] == -1.0 and np.isnan(out[0, 0]) == np.isnan(want[0, 0])


def _int_case(config, in_types, out_type, body, ref, shape=(3, 10)):
    ins = []
    for t in in_types:
        info = np.iinfo(DTYPES[t]) if t != "i1" else None
        arr = (RNG.integers(0, 2, shape).astype(np.bool_) if t == "i1"
               else RNG.integers(info.min, int(info.max) + 1, shape, dtype=np.int64).astype(DTYPES[t]))
        ins.append(arr)
    n = len(ins)
    g = kir.Generic(shape, ("parallel",) * 2, tuple(view(i, t, shape) for i, t in enumerate(in_types)),
                    (view(n, out_type, shape),), (d(0, 1),) * (n + 1), tuple(body), (n + len(body),), "elementwise")
    out = np.zeros(shape, DTYPES[out_type])
    dispatch(kir.Kernel("ints", n + 1, 0, (g,)), [*ins, out], config=config)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(out, ref(*ins).astype(DTYPES[out_type]))


@pytest.mark.parametrize("config", CONFIGS)
def test_narrow_integer_arithmetic_wraps_like_numpy(config):
    _int_case(config, ["i8", "i8"], "i8", [op("arith.addi", (0, 1), "i8")], lambda a, b: a + b)
    _int_case(config, ["i16", "i16"], "i16", [op("arith.muli", (0, 1), "i16")], lambda a, b: a * b)
    _int_case(config, ["i8", "i8"], "i8", [op("arith.maxui", (0, 1), "i8")],
              lambda a, b: np.maximum(a.view(np.uint8), b.view(np.uint8)).view(np.int8))
    _int_case(config, ["i16", "i16"], "i1", [op("arith.cmpi", (0, 1), "i1", predicate="ult")],
              lambda a, b: a.view(np.uint16) < b.view(np.uint16))


@pytest.mark.parametrize("config", CONFIGS)
def test_integer_conversions_and_i1_logic(config):
    _int_case(config, ["i8"], "i64", [op("arith.extsi", (0,), "i64")], lambda a: a.astype(np.int64))
    _int_case(config, ["i8"], "i32", [op("arith.extui", (0,), "i32")], lambda a: a.view(np.uint8).astype(np.int32))
    _int_case(config, ["i64"], "i16", [op("arith.trunci", (0,), "i16")], lambda a: a.astype(np.int16))
    _int_case(config, ["i1", "i1"], "i1", [op("arith.xori", (0, 1), "i1")], np.logical_xor)
    _int_case(config, ["i1"], "i32", [op("arith.extsi", (0,), "i32")], lambda a: -a.astype(np.int32))
    _int_case(config, ["i32", "i32"], "i32", [op("arith.floordivsi", (0, 1), "i32")],
              lambda a, b: np.floor_divide(a.astype(np.int64), np.where(b == 0, 1, b)).astype(np.int32))
    _int_case(config, ["i64", "i64"], "i64", [op("arith.subi", (0, 1), "i64")], lambda a, b: a - b)


@pytest.mark.parametrize("config", CONFIGS)
def test_float_conversions_and_f16_f64_storage(config):
    shape = (4, 9)
    h = RNG.standard_normal(shape).astype(np.float16)
    x = RNG.standard_normal(shape) * 100
    body = [op("arith.extf", (0,), "f32"), op("arith.truncf", (1,), "f32"), op("arith.addf", (4, 5), "f32"),
            op("arith.truncf", (6,), "f16"), op("arith.mulf", (7, 7), "f16"), op("arith.fptosi", (1,), "i32")]
    g = kir.Generic(shape, ("parallel",) * 2, (view(0, "f16", shape), view(1, "f64", shape)),
                    (view(2, "f16", shape), view(3, "i32", shape)), (d(0, 1),) * 4, tuple(body), (8, 9), "generic")
    out_h, out_i = np.zeros(shape, np.float16), np.zeros(shape, np.int32)
    dispatch(kir.Kernel("conv", 4, 0, (g,)), [h, x, out_h, out_i], config=config)
    with np.errstate(over="ignore"):
        s = (h.astype(np.float32) + x.astype(np.float32)).astype(np.float16)
        np.testing.assert_array_equal(out_h, s * s)
    np.testing.assert_array_equal(out_i, np.trunc(x).astype(np.int32))


def _fma_exp_kernel(dist):
    """exp(a * b + c) with ``b`` broadcast along d0 and ``c`` a captured constant (3 body ops)."""
    shape = (5, 37)
    body = (op("arith.constant", (), "f32", value=0.25), op("arith.mulf", (0, 1), "f32"),
            op("arith.addf", (4, 3), "f32"), op("math.exp", (5,), "f32"))
    g = kir.Generic(shape, ("parallel",) * 2, (view(0, "f32", shape), view(1, "f32", (37,))),
                    (view(2, "f32", shape),), (d(0, 1), d(1), d(0, 1)), body, (6,), "elementwise")
    return kir.Kernel("fma_exp", 3, 0, (g,), kir.Distribution(dist[0], dist[1], (dist[0],)),
                      ("ro", "ro", "wo"))


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("dist", [((1, 0), (16, 2)), ((1,), (8,)), ((), ())])
def test_multi_op_body_runs_as_a_chain_of_microkernels(config, dist):
    k = _fma_exp_kernel(dist)
    a = RNG.uniform(-2, 2, (5, 37)).astype(np.float32)
    b = RNG.uniform(-2, 2, 37).astype(np.float32)
    out = np.zeros((5, 37), np.float32)
    dispatch(k, [a, b, out], (37, 5), config=config)
    # a few ulp: the draws depend on which tests ran first in this xdist worker
    np.testing.assert_allclose(out, np.exp(a * b + np.float32(0.25)), rtol=5e-7)
    backend = get_backend("vmvx")
    _, data, _ = backend.serialize("x", [k], backend.target_config(config))
    imports = {i.name for i in Module.from_bytes(data).imports}
    chain = {"vmvx.mul.2d.f32", "vmvx.add.2d.f32", "vmvx.exp.2d.f32", "vmvx.buffer.alloc"}
    assert chain <= imports if config == "" else not chain & imports
