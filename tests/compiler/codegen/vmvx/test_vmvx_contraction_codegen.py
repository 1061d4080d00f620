"""vmvx codegen of reductions, matmuls, convolutions and pooling (microkernels and scalar loops)."""
import numpy as np
import pytest

from rt.compiler.codegen import kernel_ir as kir
from rt.compiler.targets import get_backend
from rt.runtime.vm import Module
from vmvx_kernel_helpers import CONFIGS, compile_kernels, d, dispatch, grid, op, run, view

RNG = np.random.default_rng(1)
A = kir.AffineExpr


def _imports(kernel, config):
    backend = get_backend("vmvx")
    _, data, _ = backend.serialize("probe", [kernel], backend.target_config(config))
    return sorted(i.name for i in Module.from_bytes(data).imports)


def _matmul(t, m, n, k, tiles=(16, 8)):
    add, mul = ("arith.addf", "arith.mulf") if t == "f32" else ("arith.addi", "arith.muli")
    g = kir.Generic((m, n, k), ("parallel", "parallel", "reduction"),
                    (view(0, t, (m, k)), view(1, t, (k, n))), (view(2, t, (m, n)),),
                    (d(0, 2), d(2, 1), d(0, 1)), (op(mul, (0, 1), t), op(add, (2, 3), t)), (4,), "matmul")
    return kir.Kernel("mm", 3, 0, (g,), kir.Distribution((1, 0), tiles, ((1, 0),)), ("ro", "ro", "rw"))


@pytest.mark.parametrize("config", CONFIGS)
def test_matmul_f32_odd_sizes_accumulates_into_output(config):
    m, n, k = 37, 29, 53
    kern = _matmul("f32", m, n, k)
    a = RNG.standard_normal((m, k)).astype(np.float32)
    b = RNG.standard_normal((k, n)).astype(np.float32)
    c = RNG.standard_normal((m, n)).astype(np.float32)
    want = c.astype(np.float64) + a.astype(np.float64) @ b.astype(np.float64)
    dispatch(kern, [a, b, c], (n, m), config=config)
    np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-5)
    assert ("vmvx.matmul.f32f32f32" in _imports(kern, config)) == (config == "")


@pytest.mark.parametrize("config", CONFIGS)
def test_matmul_i32_wraps(config):
    m, n, k = 5, 7, 9
    a = RNG.integers(-2**31, 2**31, (m, k), dtype=np.int64).astype(np.int32)
    b = RNG.integers(-2**31, 2**31, (k, n), dtype=np.int64).astype(np.int32)
    c = np.zeros((m, n), np.int32)
    dispatch(_matmul("i32", m, n, k, tiles=(4, 4)), [a, b, c], (n, m), config=config)
    want = (a.astype(np.uint64) @ b.astype(np.uint64)) & 0xFFFFFFFF
    np.testing.assert_array_equal(c.view(np.uint32), want.astype(np.uint32))


@pytest.mark.parametrize("config", CONFIGS)
def test_batch_matmul_and_matvec(config):
    bsz, m, n, k = 3, 6, 5, 4
    g = kir.Generic((bsz, m, n, k), ("parallel",) * 3 + ("reduction",),
                    (view(0, "f32", (bsz, m, k)), view(1, "f32", (bsz, k, n))), (view(2, "f32", (bsz, m, n)),),
                    (d(0, 1, 3), d(0, 3, 2), d(0, 1, 2)),
                    (op("arith.mulf", (0, 1), "f32"), op("arith.addf", (2, 3), "f32")), (4,), "batch_matmul")
    mv = kir.Generic((m, k), ("parallel", "reduction"), (view(0, "f32", (m, k)), view(1, "f32", (k,))),
                     (view(2, "f32", (m,)),), (d(0, 1), d(1), d(0)),
                     (op("arith.mulf", (1, 0), "f32"), op("arith.addf", (3, 2), "f32")), (4,), "matvec")
    bmm = kir.Kernel("bmm", 3, 0, (g,), kir.Distribution((0,), (2,), ((0,),)))
    exe = compile_kernels([bmm, kir.Kernel("mv", 3, 0, (mv,), kir.Distribution((0,), (4,), ((0,),)))], config)
    a = RNG.standard_normal((bsz, m, k)).astype(np.float32)
    b = RNG.standard_normal((bsz, k, n)).astype(np.float32)
    c = np.zeros((bsz, m, n), np.float32)
    w = RNG.standard_normal((m, k)).astype(np.float32)
    x = RNG.standard_normal(k).astype(np.float32)
    y = np.zeros(m, np.float32)
    run(exe, 0, [a, b, c], workgroups=grid(bmm, (bsz,)))
    run(exe, 1, [w, x, y], workgroups=(2, 1, 1))
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(y, w @ x, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("config", CONFIGS)
def test_reductions_sum_max_over_inner_and_outer_dims(config):
    shape = (6, 13)
    x = RNG.standard_normal(shape).astype(np.float32)
    xi = RNG.integers(-1000, 1000, shape, dtype=np.int32)
    rows = kir.Generic(shape, ("parallel", "reduction"), (view(0, "f32", shape),), (view(1, "f32", (6,)),),
                       (d(0, 1), d(0)), (op("arith.addf", (0, 1), "f32"),), (2,), "reduction")
    cols = kir.Generic((13, 6), ("parallel", "reduction"), (view(2, "i32", shape),), (view(3, "i32", (13,)),),
                       (d(1, 0), d(0)), (op("arith.maxsi", (1, 0), "i32"),), (2,), "reduction")
    total = kir.Generic(shape, ("reduction", "reduction"), (view(0, "f32", shape),), (view(4, "f32", ()),),
                        (d(0, 1), ()), (op("arith.maximumf", (1, 0), "f32"),), (2,), "reduction")
    # cols and total are idempotent (max), so every workgroup may recompute them whole.
    kern = kir.Kernel("red", 5, 0, (rows, cols, total), kir.Distribution((0,), (4,), ((0,), (None,), (None,))))
    s, mx, t = np.zeros(6, np.float32), np.full(13, -2**31, np.int32), np.full((), -np.inf, np.float32)
    dispatch(kern, [x, s, xi, mx, t], (6,), config=config)
    np.testing.assert_allclose(s, x.sum(1), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(mx, xi.max(0))
    assert t == x.max()
    if config == "":
        assert {"vmvx.reduce.sum.2d.f32", "vmvx.reduce.max.2d.i32"} <= set(_imports(kern, config))


def _conv_kernel(n, h, w, c, f, kh, kw, stride, dilation):
    oh = (h - dilation * (kh - 1) - 1) // stride + 1
    ow = (w - dilation * (kw - 1) - 1) // stride + 1
    # d0 n, d1 oh, d2 ow, d3 f, d4 kh, d5 kw, d6 c
    in_map = (A.dim(0), A(((1, stride), (4, dilation))), A(((2, stride), (5, dilation))), A.dim(6))
    g = kir.Generic((n, oh, ow, f, kh, kw, c), ("parallel",) * 4 + ("reduction",) * 3,
                    (view(0, "f32", (n, h, w, c)), view(1, "f32", (kh, kw, c, f))), (view(2, "f32", (n, oh, ow, f)),),
                    (in_map, d(4, 5, 6, 3), d(0, 1, 2, 3)),
                    (op("arith.mulf", (0, 1), "f32"), op("arith.addf", (2, 3), "f32")), (4,), "conv")
    kern = kir.Kernel("conv", 3, 0, (g,), kir.Distribution((3, 2, 1), (8, 4, 2), ((3, 2, 1),)), ("ro", "ro", "rw"))
    return kern, (oh, ow)


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("stride,dilation", [(1, 1), (2, 2)])
def test_conv2d_nhwc_hwcf_matches_numpy(config, stride, dilation):
    n, h, w, c, f, kh, kw = 2, 11, 9, 3, 10, 3, 2
    kern, (oh, ow) = _conv_kernel(n, h, w, c, f, kh, kw, stride, dilation)
    x = RNG.standard_normal((n, h, w, c)).astype(np.float32)
    flt = RNG.standard_normal((kh, kw, c, f)).astype(np.float32)
    out = np.zeros((n, oh, ow, f), np.float32)
    dispatch(kern, [x, flt, out], (f, ow, oh), config=config)
    want = np.zeros((n, oh, ow, f))
    for i in range(kh):
        for j in range(kw):
            patch = x[:, i * dilation: i * dilation + stride * (oh - 1) + 1: stride,
                      j * dilation: j * dilation + stride * (ow - 1) + 1: stride, :]
            want += np.einsum("nhwc,cf->nhwf", patch, flt[i, j])
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("config", CONFIGS)
def test_max_pooling_with_stride_and_window_operand(config):
    n, h, w, c, k, s = 1, 9, 8, 5, 3, 2
    oh, ow = (h - k) // s + 1, (w - k) // s + 1
    in_map = (A.dim(0), A(((1, s), (4, 1))), A(((2, s), (5, 1))), A.dim(3))
    g = kir.Generic((n, oh, ow, c, k, k), ("parallel",) * 4 + ("reduction",) * 2,
                    (view(0, "f32", (n, h, w, c)), view(1, "f32", (k, k))), (view(2, "f32", (n, oh, ow, c)),),
                    (in_map, d(4, 5), d(0, 1, 2, 3)), (op("arith.maximumf", (2, 0), "f32"),), (3,), "pooling")
    kern = kir.Kernel("pool", 3, 0, (g,), kir.Distribution((2, 1), (2, 3), ((2, 1),)), ("ro", "ro", "rw"))
    x = RNG.standard_normal((n, h, w, c)).astype(np.float32)
    out = np.full((n, oh, ow, c), -np.inf, np.float32)
    dispatch(kern, [x, np.zeros((k, k), np.float32), out], (ow, oh), config=config)
    want = np.full((n, oh, ow, c), -np.inf, np.float32)
    for i in range(k):
        for j in range(k):
            want = np.maximum(want, x[:, i: i + s * (oh - 1) + 1: s, j: j + s * (ow - 1) + 1: s, :])
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("config", CONFIGS)
def test_scalar_reduction_with_i64_accumulator_and_index(config):
    # out[i] = sum_j (extsi(x[i, j]) * j)  -- a body no microkernel matches
    shape = (4, 50)
    body = [op("arith.extsi", (0,), "i64"), op("linalg.index", (), "index", dim=1), op("arith.index_cast", (3,), "i64"),
            op("arith.muli", (2, 4), "i64"), op("arith.addi", (1, 5), "i64")]
    g = kir.Generic(shape, ("parallel", "reduction"), (view(0, "i8", shape),), (view(1, "i64", (4,)),),
                    (d(0, 1), d(0)), tuple(body), (6,), "reduction")
    x = RNG.integers(-128, 128, shape, dtype=np.int64).astype(np.int8)
    out = np.full(4, 7, np.int64)
    dispatch(kir.Kernel("wsum", 2, 0, (g,)), [x, out], config=config)
    np.testing.assert_array_equal(out, 7 + (x.astype(np.int64) * np.arange(50)).sum(1))
