"""Convolutions through data tiling, end to end on both devices against numpy.

conv_2d_nhwc_hwcf and conv_2d_nchw_fchw with strides, dilations and padding (tensor.pad) get
their filter packed (``op_type = conv`` encodings; constant filters once, at load) and run as
packed-filter convolutions; bias / relu / residual epilogues fuse into the conv dispatch;
depthwise convolutions run unpacked.
"""
import numpy as np
import pytest

import rt
from rt.compiler.codegen import lowering
from rt.compiler.codegen.lowering import dispatch as lowering_dispatch

DEVICES = [("llvm-cpu", "local-task://llvm-cpu"), ("vmvx", "local-sync://vmvx")]


def _t(shape):
    return "tensor<" + "x".join(str(s) for s in shape) + "xf32>"


def _out_size(size, k, stride, dilation):
    return (size - (k - 1) * dilation - 1) // stride + 1


def ref_nhwc(x, w, strides, dilations):
    """NHWC x HWCF convolution in float64."""
    n, h, wd, _ = x.shape
    kh, kw, _, f = w.shape
    oh, ow = (_out_size(s, k, st, d) for s, k, st, d in zip((h, wd), (kh, kw), strides, dilations))
    out = np.zeros((n, oh, ow, f))
    for i in range(kh):
        for j in range(kw):
            patch = x[:, i * dilations[0]::strides[0], j * dilations[1]::strides[1], :][:, :oh, :ow, :]
            out += np.einsum("nhwc,cf->nhwf", patch.astype(np.float64), w[i, j].astype(np.float64))
    return out


def ref_nchw(x, w, strides, dilations):
    return ref_nhwc(x.transpose(0, 2, 3, 1), w.transpose(2, 3, 1, 0), strides, dilations).transpose(0, 3, 1, 2)


def ref_depthwise(x, w, strides, dilations):
    n, h, wd, c = x.shape
    kh, kw, _ = w.shape
    oh, ow = (_out_size(s, k, st, d) for s, k, st, d in zip((h, wd), (kh, kw), strides, dilations))
    out = np.zeros((n, oh, ow, c))
    for i in range(kh):
        for j in range(kw):
            patch = x[:, i * dilations[0]::strides[0], j * dilations[1]::strides[1], :][:, :oh, :ow, :]
            out += patch * w[i, j]
    return out


def conv_source(op, x_shape, w_shape, strides, dilations, pad=0, epilogue=""):
    """A function @conv(x, w[, b]) -> conv(pad(x), w) (+ epilogue) in the layout of ``op``."""
    nchw = op == "conv_2d_nchw_fchw"
    spatial = (2, 3) if nchw else (1, 2)
    padded = list(x_shape)
    for k in spatial:
        padded[k] += 2 * pad
    window = w_shape[2:] if nchw else w_shape[:2]
    out_sp = [_out_size(padded[k], kk, s, d) for k, kk, s, d in zip(spatial, window, strides, dilations)]
    if nchw:
        out = (x_shape[0], w_shape[0], *out_sp)
    elif op == "depthwise_conv_2d_nhwc_hwc":
        out = (x_shape[0], *out_sp, x_shape[3])
    else:
        out = (x_shape[0], *out_sp, w_shape[3])
    lo = [0, 0, 0, 0]
    for k in spatial:
        lo[k] = pad
    lines = [f"func.func @conv(%x: {_t(x_shape)}, %w: {_t(w_shape)}, %b: {_t(out[-1:])}) -> {_t(out)} {{",
             "  %z = arith.constant 0.0 : f32"]
    src = "%x"
    if pad:
        lows = ", ".join(map(str, lo))
        lines += [f"  %p = tensor.pad %x low[{lows}] high[{lows}] {{",
                  "  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):",
                  "    tensor.yield %z : f32",
                  f"  }} : {_t(x_shape)} to {_t(padded)}"]
        src = "%p"
    lines += [f"  %e = tensor.empty() : {_t(out)}",
              f"  %f = linalg.fill ins(%z : f32) outs(%e : {_t(out)}) -> {_t(out)}",
              f"  %r = linalg.{op} {{dilations = dense<[{dilations[0]}, {dilations[1]}]> : tensor<2xi64>, "
              f"strides = dense<[{strides[0]}, {strides[1]}]> : tensor<2xi64>}}",
              f"     ins({src}, %w : {_t(padded)}, {_t(w_shape)}) outs(%f : {_t(out)}) -> {_t(out)}"]
    result = "%r"
    if epilogue == "bias_relu":
        ch = "c"
        lines += [
            "  %y = linalg.generic {indexing_maps = [affine_map<(n,h,w,c)->(n,h,w,c)>, "
            f"affine_map<(n,h,w,c)->({ch})>, affine_map<(n,h,w,c)->(n,h,w,c)>], "
            "iterator_types = [\"parallel\",\"parallel\",\"parallel\",\"parallel\"]}",
            f"     ins(%r, %b : {_t(out)}, {_t(out[-1:])}) outs(%e : {_t(out)}) {{",
            "  ^bb0(%a: f32, %c: f32, %o: f32):",
            "    %s = arith.addf %a, %c : f32",
            "    %m = arith.maximumf %s, %z : f32",
            "    linalg.yield %m : f32",
            f"  }} -> {_t(out)}"]
        result = "%y"
    lines += [f"  return {result} : {_t(out)}", "}"]
    return "\n".join(lines), out


CASES = [
    # op, x shape, w shape, strides, dilations, pad
    ("conv_2d_nhwc_hwcf", (1, 9, 11, 5), (3, 3, 5, 24), (1, 1), (1, 1), 0),
    ("conv_2d_nhwc_hwcf", (2, 13, 12, 6), (3, 2, 6, 16), (2, 1), (1, 2), 1),
    ("conv_2d_nhwc_hwcf", (1, 7, 37, 8), (1, 1, 8, 64), (1, 1), (1, 1), 0),
    ("conv_2d_nhwc_hwcf", (1, 10, 10, 3), (3, 3, 3, 12), (2, 2), (2, 2), 2),
    ("conv_2d_nchw_fchw", (1, 5, 9, 40), (16, 5, 3, 3), (1, 1), (1, 1), 0),
    ("conv_2d_nchw_fchw", (2, 4, 12, 11), (12, 4, 2, 3), (1, 2), (2, 1), 1),
    ("conv_2d_nchw_fchw", (1, 3, 11, 13), (6, 3, 3, 3), (2, 2), (1, 1), 1),
    ("depthwise_conv_2d_nhwc_hwc", (1, 9, 10, 32), (3, 3, 32), (1, 1), (1, 1), 1),
    ("depthwise_conv_2d_nhwc_hwc", (2, 11, 9, 12), (3, 2, 12), (2, 1), (1, 2), 0),
]
REFS = {"conv_2d_nhwc_hwcf": ref_nhwc, "conv_2d_nchw_fchw": ref_nchw,
        "depthwise_conv_2d_nhwc_hwc": ref_depthwise}


def _pad(x, op, pad):
    spatial = (2, 3) if op == "conv_2d_nchw_fchw" else (1, 2)
    width = [(pad, pad) if k in spatial else (0, 0) for k in range(4)]
    return np.pad(x, width)


@pytest.mark.parametrize("target,uri", DEVICES)
@pytest.mark.parametrize("op,x_shape,w_shape,strides,dilations,pad", CASES)
def test_conv_variants_match_numpy(target, uri, op, x_shape, w_shape, strides, dilations, pad):
    text, out = conv_source(op, x_shape, w_shape, strides, dilations, pad)
    rng = np.random.default_rng(7)
    x = rng.standard_normal(x_shape).astype(np.float32)
    w = rng.standard_normal(w_shape).astype(np.float32)
    b = np.zeros(out[-1:], np.float32)
    m = rt.load(rt.compile(text, devices=[target]), devices=[uri])
    got = m.conv(x, w, b)
    want = REFS[op](_pad(x, op, pad), w, strides, dilations)
    assert got.shape == out
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def _kernels(text, target):
    """Kernel IR of every dispatch ``text`` compiles to on ``target``."""
    kernels = []
    original = lowering_dispatch.lower_dispatch_function

    def record(func, backend, config):
        kernel = original(func, backend, config)
        kernels.append(kernel)
        return kernel

    lowering.lower_dispatch_function = record
    try:
        rt.compile(text, devices=[target])
    finally:
        lowering.lower_dispatch_function = original
    return kernels


@pytest.mark.parametrize("op,w_shape,layout", [
    ("conv_2d_nhwc_hwcf", (3, 3, 8, 48), (3, 0, 1, 2)),
    ("conv_2d_nchw_fchw", (16, 8, 3, 3), (0, 1, 2, 3)),
])
def test_filter_is_packed_by_output_channels_and_conv_runs_packed(op, w_shape, layout):
    x_shape = (1, 8, 10, 12) if op == "conv_2d_nchw_fchw" else (1, 10, 12, 8)
    text, _ = conv_source(op, x_shape, w_shape, (1, 1), (1, 1))
    kernels = _kernels(text, "llvm-cpu")
    packs = [o for k in kernels for o in k.ops if type(o).__name__ == "Pack"]
    convs = [o for k in kernels for o in k.ops if getattr(o, "kind", None) == "packed_conv"]
    assert len(packs) == 1 and len(convs) == 1
    assert packs[0].outer_dims_perm == layout
    f = w_shape[0] if op == "conv_2d_nchw_fchw" else w_shape[3]
    (f0,) = packs[0].inner_tiles
    assert f % f0 == 0 and packs[0].dest.shape[0] == f // f0


def test_depthwise_conv_is_not_packed():
    text, _ = conv_source("depthwise_conv_2d_nhwc_hwc", (1, 9, 10, 32), (3, 3, 32), (1, 1), (1, 1))
    kernels = _kernels(text, "llvm-cpu")
    assert not [o for k in kernels for o in k.ops if type(o).__name__ == "Pack"]


@pytest.mark.parametrize("target,uri", DEVICES)
def test_bias_relu_epilogue_fuses_into_the_conv_dispatch(target, uri):
    text, out = conv_source("conv_2d_nhwc_hwcf", (1, 8, 9, 4), (3, 3, 4, 16), (1, 1), (1, 1), 1,
                            epilogue="bias_relu")
    kernels = _kernels(text, target)
    assert [k.name.split("_dispatch_")[1] for k in kernels] == [
        "0_pad_1x10x11x4_f32", "1_set_encoding_3x3x4x16_f32", "2_conv_2d_nhwc_hwcf_1x8x9x16x3x3x4_f32"]
    rng = np.random.default_rng(3)
    x = rng.standard_normal((1, 8, 9, 4)).astype(np.float32)
    w = rng.standard_normal((3, 3, 4, 16)).astype(np.float32)
    b = rng.standard_normal(16).astype(np.float32)
    m = rt.load(rt.compile(text, devices=[target]), devices=[uri])
    want = np.maximum(ref_nhwc(_pad(x, "conv_2d_nhwc_hwcf", 1), w, (1, 1), (1, 1)) + b, 0)
    np.testing.assert_allclose(m.conv(x, w, b), want, rtol=1e-4, atol=1e-4)


def test_constant_filter_is_packed_once_at_load():
    w = np.random.default_rng(5).standard_normal((3, 3, 4, 16)).astype(np.float32)
    dense = "dense<[" + ", ".join(repr(float(v)) for v in w.reshape(-1)) + "]>"
    text = f"""
func.func @conv(%x: tensor<1x6x7x4xf32>) -> tensor<1x4x5x16xf32> {{
  %z = arith.constant 0.0 : f32
  %flat = arith.constant {dense} : tensor<576xf32>
  %w = tensor.expand_shape %flat [[0, 1, 2, 3]] output_shape [3, 3, 4, 16] : tensor<576xf32> into tensor<3x3x4x16xf32>
  %e = tensor.empty() : tensor<1x4x5x16xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x4x5x16xf32>) -> tensor<1x4x5x16xf32>
  %r = linalg.conv_2d_nhwc_hwcf {{dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}}
     ins(%x, %w : tensor<1x6x7x4xf32>, tensor<3x3x4x16xf32>) outs(%f : tensor<1x4x5x16xf32>) -> tensor<1x4x5x16xf32>
  return %r : tensor<1x4x5x16xf32>
}}
"""
    tracer = rt.Tracer()
    m = rt.load(rt.compile(text, devices=["llvm-cpu"]), devices=["local-task://llvm-cpu"], tracer=tracer)
    x = np.random.default_rng(6).standard_normal((1, 6, 7, 4)).astype(np.float32)
    for _ in range(3):
        np.testing.assert_allclose(m.conv(x), ref_nhwc(x, w, (1, 1), (1, 1)), rtol=1e-4, atol=1e-4)
    names = [e["name"] for e in tracer.events if e.get("ph") == "X"]
    assert sum("set_encoding" in n and ":" not in n for n in names) == 1
    assert sum("conv_2d_nhwc_hwcf" in n and ":" not in n for n in names) == 3
