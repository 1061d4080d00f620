"""Kernel IR built in Python -> llvm-cpu object -> LOADER -> dispatch on numpy buffers."""
import numpy as np
import pytest

from kernel_helpers import compile_kernels, d, grid, op, run
from rt.compiler.codegen import kernel_ir as kir
from rt.runtime.errors import CompileError, DeviceError

C = kir.Constant
P, R = "parallel", "reduction"
RNG = np.random.default_rng(7)


def _kernel(name, ops, bindings, constants, dist=kir.Distribution()):
    return kir.Kernel(name, bindings, constants, tuple(ops), dist)


def _elementwise(body, yields, types, out_type, rank=2):
    dims = tuple(C(i) for i in range(rank))
    ins = tuple(kir.View(i, t, dims) for i, t in enumerate(types))
    out = kir.View(len(types), out_type, dims)
    ident = d(*range(rank))
    g = kir.Generic(dims, (P,) * rank, ins, (out,), (ident,) * (len(types) + 1), tuple(body),
                    yields, "elementwise")
    axes = tuple(reversed(range(rank)))[:2]
    return _kernel("ew", [g], len(types) + 1, rank,
                   kir.Distribution(axes, (64, 3)[:len(axes)], (axes,)))


def _run_elementwise(kernel, arrays, out):
    lib = compile_kernels([kernel])
    run(lib, 0, arrays + [out], out.shape, grid(kernel, dict(enumerate(out.shape))), threads=2)
    return out


def test_matmul_with_fill_and_bias_relu_epilogue_odd_sizes():
    M, N, K = C(0), C(1), C(2)
    a, b = kir.View(0, "f32", (M, K)), kir.View(1, "f32", (K, N))
    bias, o = kir.View(2, "f32", (N,)), kir.View(3, "f32", (M, N))
    fill = kir.Generic((M, N), (P, P), (), (o,), (d(0, 1),),
                       (op("arith.constant", (), "f32", value=0.0),), (1,), "fill")
    mm = kir.Generic((M, N, K), (P, P, R), (a, b), (o,), (d(0, 2), d(2, 1), d(0, 1)),
                     (op("arith.mulf", (0, 1), "f32"), op("arith.addf", (2, 3), "f32")), (4,),
                     "matmul")
    epi = kir.Generic((M, N), (P, P), (o, bias), (o,), (d(0, 1), d(1), d(0, 1)),
                      (op("arith.addf", (0, 1), "f32"),
                       op("arith.constant", (), "f32", value=0.0),
                       op("arith.maximumf", (3, 4), "f32")), (5,), "elementwise")
    k = _kernel("mm", [fill, mm, epi], 4, 3, kir.Distribution((1, 0), (32, 16), ((1, 0),) * 3))
    lib = compile_kernels([k])
    for m, n, kk in [(37, 29, 53), (1, 1, 300), (64, 40, 17), (9, 33, 1)]:
        x = RNG.standard_normal((m, kk), dtype=np.float32)
        y = RNG.standard_normal((kk, n), dtype=np.float32)
        z = RNG.standard_normal(n, dtype=np.float32)
        out = np.full((m, n), np.nan, np.float32)
        run(lib, 0, [x, y, z, out], [m, n, kk], grid(k, {0: m, 1: n}), threads=2)
        np.testing.assert_allclose(out, np.maximum(x @ y + z, 0), rtol=1e-5, atol=1e-4)


def test_broadcast_and_transcendentals_within_a_few_ulp():
    body = [op("arith.subf", (0, 1), "f32"), op("math.exp", (3,), "f32"),
            op("math.log", (0,), "f32"), op("math.tanh", (1,), "f32"),
            op("arith.addf", (4, 5), "f32"), op("arith.addf", (7, 6), "f32")]
    k = _elementwise(body, (8,), ("f32", "f32"), "f32")
    x = RNG.uniform(0.01, 20, (19, 133)).astype(np.float32)
    y = RNG.uniform(-6, 6, (19, 133)).astype(np.float32)
    out = _run_elementwise(k, [x, y], np.zeros_like(x))
    x64, y64 = x.astype(np.float64), y.astype(np.float64)
    want = np.exp(x64 - y64) + np.log(x64) + np.tanh(y64)
    np.testing.assert_allclose(out, want, rtol=2e-6, atol=1e-6)


@pytest.mark.parametrize("name,fn,lo,hi", [
    ("math.exp", np.exp, -87, 88), ("math.log", np.log, 1e-30, 1e30),
    ("math.tanh", np.tanh, -12, 12), ("math.erf", None, -4, 4),
    ("math.sqrt", np.sqrt, 0, 1e6), ("math.rsqrt", lambda v: 1 / np.sqrt(v), 1e-3, 1e6)])
def test_unary_math_ulp(name, fn, lo, hi):
    import math
    k = _elementwise([op(name, (0,), "f32")], (2,), ("f32",), "f32", rank=1)
    x = RNG.uniform(lo, hi, 4099).astype(np.float32)
    if name == "math.log":
        x = np.exp(RNG.uniform(np.log(lo), np.log(hi), 4099)).astype(np.float32)
    out = _run_elementwise(k, [x], np.zeros_like(x))
    want = (np.vectorize(math.erf)(x.astype(np.float64)) if fn is None
            else fn(x.astype(np.float64))).astype(np.float32)
    np.testing.assert_array_max_ulp(out, want, maxulp=4)


def test_math_special_values():
    k = _elementwise([op("math.exp", (0,), "f32"), op("math.log", (0,), "f32"),
                      op("math.tanh", (0,), "f32"), op("arith.addf", (2, 3), "f32"),
                      op("arith.addf", (5, 4), "f32")], (6,), ("f32",), "f32", rank=1)
    x = np.array([np.inf, -np.inf, np.nan, 0.0, -1.0, 1.0], np.float32)
    out = _run_elementwise(k, [x], np.zeros_like(x))
    with np.errstate(all="ignore"):
        want = np.exp(x) + np.log(x) + np.tanh(x)
    np.testing.assert_allclose(out, want, rtol=1e-6, equal_nan=True)


def test_integer_ops_are_exact():
    body = [op("arith.divsi", (0, 1), "i32"), op("arith.remsi", (0, 1), "i32"),
            op("arith.muli", (0, 1), "i32"), op("arith.addi", (3, 4), "i32"),
            op("arith.xori", (6, 5), "i32"), op("arith.maxsi", (7, 0), "i32"),
            op("arith.cmpi", (8, 1), "i1", predicate="sgt"),
            op("arith.select", (9, 8, 1), "i32")]
    k = _elementwise(body, (10,), ("i32", "i32"), "i32")
    x = RNG.integers(-2**31, 2**31, (7, 45), dtype=np.int32)
    y = RNG.integers(-50, 50, (7, 45), dtype=np.int32)
    x[0, :3], y[0, :3] = [-2**31, 5, 7], [-1, 0, -3]
    with pytest.raises(DeviceError, match=r"returned 4 \(integer division by zero\)"):
        _run_elementwise(k, [x, y], np.zeros_like(x))
    y[y == 0] = 1  # a zero divisor fails the dispatch (above); every other one is exact
    out = _run_elementwise(k, [x, y], np.zeros_like(x))
    with np.errstate(all="ignore"):
        q = np.trunc(x.astype(np.float64) / y).astype(np.int64)
        q = np.where((x == -2**31) & (y == -1), -2**31, q)
        r = x.astype(np.int64) - q * y
        r = np.where((x == -2**31) & (y == -1), 0, r)
        v = ((q + r).astype(np.int32)) ^ (x * y)
        v = np.maximum(v, x)
        want = np.where(v > y, v, y)
    np.testing.assert_array_equal(out, want)


def test_f16_storage_i8_and_i1_casts():
    body = [op("arith.extf", (0,), "f32"), op("arith.sitofp", (1,), "f32"),
            op("arith.mulf", (4, 5), "f32"), op("arith.truncf", (6,), "f16"),
            op("arith.cmpf", (6, 4), "i1", predicate="olt")]
    dims = (C(0),)
    ins = (kir.View(0, "f16", dims), kir.View(1, "i8", dims))
    outs = (kir.View(2, "f16", dims), kir.View(3, "i1", dims))
    g = kir.Generic(dims, (P,), ins, outs, (d(0),) * 4, tuple(body), (7, 8), "elementwise")
    k = _kernel("h", [g], 4, 1)
    lib = compile_kernels([k])
    n = 1001
    x = RNG.uniform(-100, 100, n).astype(np.float16)
    x[:4] = [np.inf, -0.0, 6e-8, 65504]
    y = RNG.integers(-128, 128, n, dtype=np.int8)
    o1, o2 = np.zeros(n, np.float16), np.zeros(n, np.bool_)
    run(lib, 0, [x, y, o1, o2], [n])
    prod = x.astype(np.float32) * y.astype(np.float32)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(o1, prod.astype(np.float16))
    np.testing.assert_array_equal(o2, prod < x.astype(np.float32))


def test_row_and_full_reductions_and_f64():
    M, N = C(0), C(1)
    x = kir.View(0, "f64", (M, N))
    rows, total = kir.View(1, "f64", (M,)), kir.View(2, "f64", ())
    add = (op("arith.addf", (0, 1), "f64"),)
    g1 = kir.Generic((M, N), (P, R), (x,), (rows,), (d(0, 1), d(0)), add, (2,), "reduction")
    g2 = kir.Generic((M, N), (R, R), (x,), (total,), (d(0, 1), ()),
                     (op("arith.maximumf", (0, 1), "f64"),), (2,), "reduction")
    k = _kernel("red", [g1, g2], 3, 2)
    lib = compile_kernels([k])
    a = RNG.standard_normal((13, 77))
    r, t = np.ones(13), np.array(-np.inf)
    run(lib, 0, [a, r, t], [13, 77])
    np.testing.assert_allclose(r, 1 + a.sum(1), rtol=1e-12)
    assert t == a.max()


def test_conv_2d_nhwc_hwcf_and_pooling_max_windows():
    n, h, w, c, f, kh, kw = 2, 9, 11, 3, 5, 3, 2
    inp = kir.View(0, "f32", (n, h, w, c))
    flt = kir.View(1, "f32", (kh, kw, c, f))
    oh, ow = (h - kh) // 2 + 1, w - kw + 1
    out = kir.View(2, "f32", (n, oh, ow, f))
    # dims: n, oh, ow, f, kh, kw, c; stride 2 along h.
    in_map = (kir.AffineExpr.dim(0), kir.AffineExpr(((1, 2), (4, 1))),
              kir.AffineExpr(((2, 1), (5, 1))), kir.AffineExpr.dim(6))
    conv = kir.Generic((n, oh, ow, f, kh, kw, c), (P, P, P, P, R, R, R), (inp, flt), (out,),
                       (in_map, d(4, 5, 6, 3), d(0, 1, 2, 3)),
                       (op("arith.mulf", (0, 1), "f32"), op("arith.addf", (2, 3), "f32")),
                       (4,), "conv")
    pooled = kir.View(3, "f32", (n, oh, ow, c))
    pool = kir.Generic((n, oh, ow, c, kh, kw), (P, P, P, P, R, R), (inp,), (pooled,),
                       ((kir.AffineExpr.dim(0), kir.AffineExpr(((1, 2), (4, 1))),
                         kir.AffineExpr(((2, 1), (5, 1))), kir.AffineExpr.dim(3)),
                        d(0, 1, 2, 3)), (op("arith.maximumf", (1, 0), "f32"),), (2,), "pooling")
    k = _kernel("conv", [conv, pool], 4, 0,
                kir.Distribution((1,), (2,), ((1,), (1,))))
    lib = compile_kernels([k])
    x = RNG.standard_normal((n, h, w, c), dtype=np.float32)
    wt = RNG.standard_normal((kh, kw, c, f), dtype=np.float32)
    o = np.zeros((n, oh, ow, f), np.float32)
    p = np.full((n, oh, ow, c), -np.inf, np.float32)
    run(lib, 0, [x, wt, o, p], (), grid(k, {1: oh}), threads=2)
    want = np.zeros_like(o)
    want_p = np.full_like(p, -np.inf)
    for i in range(kh):
        for j in range(kw):
            patch = x[:, i:i + 2 * oh:2, j:j + ow, :]
            want += np.einsum("nhwc,cf->nhwf", patch, wt[i, j])
            want_p = np.maximum(want_p, patch)
    np.testing.assert_allclose(o, want, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(p, want_p)


def test_transpose_strided_view_and_linalg_index():
    M, N = C(0), C(1)
    src = kir.View(0, "i64", (N, M), offset=1, strides=(C(2), 1))
    dst = kir.View(1, "i64", (M, N))
    body = (op("linalg.index", (), "index", dim=0), op("arith.addi", (0, 2), "i64"))
    g = kir.Generic((M, N), (P, P), (src,), (dst,), (d(1, 0), d(0, 1)), body, (3,), "transpose")
    k = _kernel("t", [g], 2, 3, kir.Distribution((1, 0), (4, 4), ((1, 0),)))
    lib = compile_kernels([k])
    m, n, ld = 6, 5, 9
    buf = RNG.integers(-1000, 1000, 1 + n * ld, dtype=np.int64)
    out = np.zeros((m, n), np.int64)
    run(lib, 0, [buf, out], [m, n, ld], grid(k, {0: m, 1: n}))
    view = buf[1:].reshape(n, ld)[:, :m]
    np.testing.assert_array_equal(out, view.T + np.arange(m)[:, None])


@pytest.mark.parametrize("shape,tiles,perm,pad", [
    ((13, 7), (4, 2), None, 0.5), ((8, 6), (4, 3), (1, 0), None), ((5, 9), (16, 1), None, -1.0)])
def test_pack_unpack_round_trip(shape, tiles, perm, pad):
    src = kir.View(0, "f32", (C(0), C(1)))
    outer = [-(-shape[i] // tiles[i]) for i in range(2)]
    outer_p = [outer[i] for i in (perm or (0, 1))]
    packed = kir.View(1, "f32", (*outer_p, *tiles))
    back = kir.View(2, "f32", (C(0), C(1)))
    pk = kir.Pack(src, packed, (0, 1), tiles, perm, pad)
    up = kir.Unpack(packed, back, (0, 1), tiles, perm)
    k1 = _kernel("pack", [pk], 3, 2, kir.Distribution((1, 0), (1, 2), ((1, 0),)))
    k2 = _kernel("unpack", [up], 3, 2, kir.Distribution((0,), (1,), ((0,),)))
    lib = compile_kernels([k1, k2])
    x = RNG.standard_normal(shape, dtype=np.float32)
    p = np.full((*outer_p, *tiles), np.nan, np.float32)
    y = np.zeros_like(x)
    run(lib, 0, [x, p, y], shape, grid(k1, {0: outer_p[0], 1: outer_p[1]}), threads=2)
    padded = np.full([o * t for o, t in zip(outer, tiles)], pad or 0, np.float32)
    padded[:shape[0], :shape[1]] = x
    want = padded.reshape(outer[0], tiles[0], outer[1], tiles[1]).transpose(0, 2, 1, 3)
    if perm:
        want = want.transpose(1, 0, 2, 3)
    np.testing.assert_array_equal(p, want)
    run(lib, 1, [x, p, y], shape, grid(k2, {0: outer_p[0]}), threads=2)
    np.testing.assert_array_equal(y, x)


@pytest.mark.parametrize("types,strided", [(("f32", "f32", "f32"), False),
                                            (("i8", "i8", "i32"), False),
                                            (("f32", "f32", "f32"), True)])
def test_mmt4d_fast_and_generic_paths(types, strided):
    m1, n1, k1, m0, n0, k0 = 3, 5, 7, 4, 8, 2
    dt = [{"f32": np.float32, "i8": np.int8, "i32": np.int32}[t] for t in types]
    strides = (C(0), m0 * n0 * 1, n0, 1) if strided else None
    lhs = kir.View(0, types[0], (m1, k1, m0, k0))
    rhs = kir.View(1, types[1], (n1, k1, n0, k0))
    out = kir.View(2, types[2], (m1, n1, m0, n0), strides=strides)
    k = _kernel("mmt4d", [kir.Mmt4d(lhs, rhs, out, accumulate=False)], 3, 1,
                kir.Distribution((1, 0), (2, 2), ((1, 0),)))
    lib = compile_kernels([k])
    a = RNG.integers(-9, 9, (m1, k1, m0, k0)).astype(dt[0])
    b = RNG.integers(-9, 9, (n1, k1, n0, k0)).astype(dt[1])
    o = np.full((m1, n1, m0, n0), 77, dt[2])
    run(lib, 0, [a, b, o], [n1 * m0 * n0], grid(k, {0: m1, 1: n1}), threads=2)
    want = np.einsum("mkab,nkcb->mnac", a.astype(np.int64), b.astype(np.int64))
    np.testing.assert_array_equal(o, want.astype(dt[2]))


def test_too_small_binding_fails_the_dispatch_not_the_process():
    k = _elementwise([op("arith.addf", (0, 1), "f32")], (2,), ("f32", "f32"), "f32", rank=1)
    lib = compile_kernels([k])
    x = np.zeros(100, np.float32)
    with pytest.raises(DeviceError, match="binding is too small"):
        run(lib, 0, [x, x, x], [101], (2, 1, 1))


def test_zero_divisor_in_a_size_is_an_invalid_argument():
    n = kir.Expr("floordiv", (C(0), C(1)))
    v = kir.View(0, "f32", (n,))
    g = kir.Generic((n,), (P,), (), (v,), (d(0),), (op("arith.constant", (), "f32", value=1.0),),
                    (1,), "fill")
    lib = compile_kernels([_kernel("f", [g], 1, 2)])
    x = np.zeros(8, np.float32)
    with pytest.raises(DeviceError, match="push constant is out of the range"):
        run(lib, 0, [x], [8, 0])
    run(lib, 0, [x], [16, 2])
    np.testing.assert_array_equal(x, 1.0)


@pytest.mark.parametrize("mutate,message", [
    (lambda g: kir.Kernel("k", 1, 0, (g,)), "has no buffer 1"),
    (lambda g: kir.Kernel("k", 2, 0, ()), "has no ops"),
    (lambda g: kir.Kernel("k", 2, 0, (g,), kir.Distribution((0,), (0,), ((0,),))), "tiles"),
    (lambda g: kir.Kernel("k", 2, 0, (kir.Generic((4,), (P,), (), (g.outputs[0],), (d(0),),
                                                   (op("math.frobnicate", (), "f32"),), (1,)),)),
     "math.frobnicate"),
])
def test_malformed_kernels_are_compile_errors(mutate, message):
    v = kir.View(1, "f32", (4,))
    g = kir.Generic((4,), (P,), (), (v,), (d(0),), (op("arith.constant", (), "f32", value=0.0),),
                    (1,), "fill")
    with pytest.raises(CompileError, match=message):
        compile_kernels([mutate(g)])
