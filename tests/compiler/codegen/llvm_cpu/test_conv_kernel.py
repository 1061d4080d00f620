"""Packed-filter conv Generics (kind hint "packed_conv") on the register-tiled conv kernel.

NHWC (channels last) and NCHW (channels first, unit and non-unit input strides along the
pixel) against numpy, with distributions that keep whole channel tiles (tile kernel) and one
that splits f0 (the Generic loops at run time), and bodies/maps the plan must not take."""
import numpy as np
import pytest
from llvmlite import ir

from kernel_helpers import compile_kernels, op, run
from rt.compiler.codegen import kernel_ir as kir
from rt.compiler.codegen.llvm_cpu import conv
from rt.compiler.codegen.llvm_cpu.interface import KernelInterface
from rt.compiler.codegen.llvm_cpu.kernel_codegen import KernelContext
from rt.compiler.codegen.llvm_cpu.library import LibraryBuilder
from rt.compiler.codegen.llvm_cpu.target import cpu_target

P, R = "parallel", "reduction"
A = kir.AffineExpr
RNG = np.random.default_rng(23)
MAC = ((op("arith.mulf", (0, 1), "f32"), op("arith.addf", (2, 3), "f32")), (4,))


def _e(*terms):
    return A(tuple(terms), 0)


def nhwc_kernel(shape, f0, strides, dilations, dist, body=MAC):
    """loops (n, oh, ow, f1, f0, kh, kw, c); filter [F1, KH, KW, C, F0]."""
    n, oh, ow, f1, kh, kw, c = shape
    (sh, sw), (dh, dw) = strides, dilations
    h, w = (oh - 1) * sh + (kh - 1) * dh + 1, (ow - 1) * sw + (kw - 1) * dw + 1
    x = kir.View(0, "f32", (n, h, w, c))
    flt = kir.View(1, "f32", (f1, kh, kw, c, f0))
    out = kir.View(2, "f32", (n, oh, ow, f1 * f0))
    maps = ((_e((0, 1)), _e((1, sh), (5, dh)), _e((2, sw), (6, dw)), _e((7, 1))),
            (_e((3, 1)), _e((5, 1)), _e((6, 1)), _e((7, 1)), _e((4, 1))),
            (_e((0, 1)), _e((1, 1)), _e((2, 1)), _e((3, f0), (4, 1))))
    g = kir.Generic((n, oh, ow, f1, f0, kh, kw, c), (P,) * 5 + (R,) * 3, (x, flt), (out,), maps,
                    body[0], body[1], "packed_conv")
    dims, tiles, op_dims = dist
    return kir.Kernel("conv", 3, 0, (g,), kir.Distribution(dims, tiles, (op_dims,))), (x, flt, out)


def nchw_kernel(shape, f0, strides, dilations, dist):
    """loops (n, f1, f0, oh, ow, c, kh, kw); filter [F1, C, KH, KW, F0]."""
    n, f1, oh, ow, c, kh, kw = shape
    (sh, sw), (dh, dw) = strides, dilations
    h, w = (oh - 1) * sh + (kh - 1) * dh + 1, (ow - 1) * sw + (kw - 1) * dw + 1
    x = kir.View(0, "f32", (n, c, h, w))
    flt = kir.View(1, "f32", (f1, c, kh, kw, f0))
    out = kir.View(2, "f32", (n, f1 * f0, oh, ow))
    maps = ((_e((0, 1)), _e((5, 1)), _e((3, sh), (6, dh)), _e((4, sw), (7, dw))),
            (_e((1, 1)), _e((5, 1)), _e((6, 1)), _e((7, 1)), _e((2, 1))),
            (_e((0, 1)), _e((1, f0), (2, 1)), _e((3, 1)), _e((4, 1))))
    g = kir.Generic((n, f1, f0, oh, ow, c, kh, kw), (P,) * 5 + (R,) * 3, (x, flt), (out,), maps,
                    MAC[0], MAC[1], "packed_conv")
    dims, tiles, op_dims = dist
    return kir.Kernel("conv", 3, 0, (g,), kir.Distribution(dims, tiles, (op_dims,))), (x, flt, out)


def _recognized(kernel):
    lb = LibraryBuilder("probe", cpu_target("host"))
    fn = lb.declare_export("probe")
    b = ir.IRBuilder(fn.append_basic_block())
    ctx = KernelContext(b, KernelInterface(b, fn), lb.target, kernel, lb.module)
    return conv.plan(ctx, kernel.ops[0], "probe") is not None


def _run(kernel, views, grid, init):
    x, flt, out = (RNG.standard_normal(v.shape).astype(np.float32) for v in views)
    out[...] = init
    got = out.copy()
    run(compile_kernels([kernel]), 0, [x, flt, got], workgroups=grid, threads=2)
    return x, flt, got


def _nhwc_ref(x, flt, strides, dilations, out_shape):
    n, oh, ow, f = out_shape
    f1, kh, kw, c, f0 = flt.shape
    w = flt.transpose(1, 2, 3, 0, 4).reshape(kh, kw, c, f1 * f0).astype(np.float64)
    ref = np.zeros(out_shape)
    for i in range(kh):
        for j in range(kw):
            patch = x[:, i * dilations[0]::strides[0], j * dilations[1]::strides[1], :][:, :oh, :ow, :]
            ref += np.einsum("nhwc,cf->nhwf", patch, w[i, j])
    return ref


@pytest.mark.parametrize("shape,f0,strides,dilations", [
    ((2, 5, 23, 3, 3, 3, 7), 16, (1, 1), (1, 1)),
    ((1, 4, 19, 1, 2, 3, 5), 64, (2, 1), (1, 2)),
    ((1, 3, 9, 2, 1, 1, 4), 8, (1, 3), (1, 1)),
    ((1, 2, 56, 1, 3, 3, 4), 16, (1, 1), (1, 1)),  # whole rows: 3 x 16 + 8 pixels
])
@pytest.mark.parametrize("split", [False, True])
def test_nhwc_matches_numpy(shape, f0, strides, dilations, split):
    n, oh, ow = shape[:3]
    dist = ((4, 1), (4, 2), (4, 1)) if split else ((2, 1, 0), (8, 2, 1), (2, 1, 0))
    kernel, views = nhwc_kernel(shape, f0, strides, dilations, dist)
    assert _recognized(kernel)
    grid = (f0 // 4, -(-oh // 2), 1) if split else (-(-ow // 8), -(-oh // 2), n)
    x, flt, got = _run(kernel, views, grid, 1.5)
    want = 1.5 + _nhwc_ref(x, flt, strides, dilations, views[2].shape)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("shape,f0,strides,dilations", [
    ((2, 2, 3, 53, 3, 3, 3), 8, (1, 1), (1, 1)),
    ((1, 1, 4, 37, 5, 2, 3), 4, (2, 2), (1, 2)),
    ((1, 3, 2, 16, 2, 1, 1), 2, (1, 1), (1, 1)),
])
def test_nchw_matches_numpy(shape, f0, strides, dilations):
    n, f1, oh, ow = shape[:4]
    kernel, views = nchw_kernel(shape, f0, strides, dilations, ((4, 3, 0), (40, 1, 1), (4, 3, 0)))
    assert _recognized(kernel)
    x, flt, got = _run(kernel, views, (-(-ow // 40), oh, n), 0.0)
    nhwc = _nhwc_ref(x.transpose(0, 2, 3, 1), flt.transpose(0, 2, 3, 1, 4), strides, dilations,
                     (n, oh, ow, f1 * f0))
    np.testing.assert_allclose(got, nhwc.transpose(0, 3, 1, 2), rtol=1e-4, atol=1e-4)


def test_other_bodies_and_unpacked_filters_take_the_generic_loops():
    shape = (1, 2, 5, 1, 3, 3, 4)
    sub = ((op("arith.mulf", (0, 1), "f32"), op("arith.subf", (2, 3), "f32")), (4,))
    kernel, _ = nhwc_kernel(shape, 16, (1, 1), (1, 1), ((2,), (8,), (2,)), body=sub)
    assert not _recognized(kernel)
    kernel, _ = nhwc_kernel(shape, 16, (1, 1), (1, 1), ((2,), (8,), (2,)))
    g = kernel.ops[0]
    generic = kir.Generic(g.domain, g.iterator_types, g.inputs, g.outputs, g.indexing_maps, g.body,
                          g.yields, "conv")
    assert not _recognized(kir.Kernel("conv", 3, 0, (generic,), kernel.distribution))
