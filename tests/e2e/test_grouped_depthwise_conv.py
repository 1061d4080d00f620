"""Grouped, depthwise and 1x1 convolutions end to end on both devices against numpy.

The forms IREE's ONNX and StableHLO importers produce for grouped and depthwise convolutions
(ShuffleNet, MobileNet): ``conv_2d_ngchw_gfchw`` / ``conv_2d_ngchw_fgchw`` (NCHW) and
``conv_2d_nhwgc_gfhwc`` (NHWC) with groups 2, 4 and C, 1x1 and 3x3 windows, strides, dilations
and padding; a bias as the conv's init (a broadcast) and relu / clamp epilogues. vmvx runs the
convs' loops (the exact reference); llvm-cpu its conv kernels.
"""
import numpy as np
import pytest

import rt

DEVICES = [("llvm-cpu", "local-task://llvm-cpu"), ("vmvx", "local-sync://vmvx")]


def _t(shape):
    return "tensor<" + "x".join(str(s) for s in shape) + "xf32>"


def _out_size(size, k, stride, dilation):
    return (size - (k - 1) * dilation - 1) // stride + 1


def ref_grouped_nchw(x, w, stride, dilation):
    """x [N, G, C, H, W], w [G, F, C, KH, KW] -> [N, G, F, OH, OW] in float64."""
    n, g, c, h, wd = x.shape
    _, f, _, kh, kw = w.shape
    oh, ow = _out_size(h, kh, stride, dilation), _out_size(wd, kw, stride, dilation)
    out = np.zeros((n, g, f, oh, ow))
    for i in range(kh):
        for j in range(kw):
            patch = x[:, :, :, i * dilation::stride, j * dilation::stride][..., :oh, :ow]
            out += np.einsum("ngchw,gfc->ngfhw", patch.astype(np.float64), w[..., i, j].astype(np.float64))
    return out


def grouped_source(op, x_shape, w_shape, out_shape, stride, dilation, epilogue):
    """@conv(x, w, b) -> conv(x, w) over init broadcast(b) (+ relu / clamp to [0, 6])."""
    bias_dims = {"conv_2d_nhwgc_gfhwc": "[0, 1, 2]"}.get(op, "[0, 3, 4]")
    bias_shape = (out_shape[3], out_shape[4]) if op == "conv_2d_nhwgc_gfhwc" else (out_shape[1], out_shape[2])
    rank = len(out_shape)
    dims = ", ".join(f"d{k}" for k in range(rank))
    parallel = ", ".join(['"parallel"'] * rank)
    lines = [f"func.func @conv(%x: {_t(x_shape)}, %w: {_t(w_shape)}, %b: {_t(bias_shape)}) -> {_t(out_shape)} {{",
             "  %z = arith.constant 0.0 : f32", "  %six = arith.constant 6.0 : f32",
             f"  %e = tensor.empty() : {_t(out_shape)}",
             f"  %i = linalg.broadcast ins(%b : {_t(bias_shape)}) outs(%e : {_t(out_shape)}) dimensions = {bias_dims}",
             f"  %r = linalg.{op} {{dilations = dense<{dilation}> : tensor<2xi64>, strides = dense<{stride}> : "
             f"tensor<2xi64>}} ins(%x, %w : {_t(x_shape)}, {_t(w_shape)}) outs(%i : {_t(out_shape)}) -> {_t(out_shape)}"]
    result = "%r"
    if epilogue:
        body = {"relu": ["    %m = arith.maximumf %a, %z : f32"],
                "relu6": ["    %l = arith.maximumf %a, %z : f32", "    %m = arith.minimumf %l, %six : f32"]}[epilogue]
        lines += [f"  %y = linalg.generic {{indexing_maps = [affine_map<({dims}) -> ({dims})>, "
                  f"affine_map<({dims}) -> ({dims})>], iterator_types = [{parallel}]}}",
                  f"     ins(%r : {_t(out_shape)}) outs(%e : {_t(out_shape)}) {{",
                  "  ^bb0(%a: f32, %o: f32):", *body, "    linalg.yield %m : f32", f"  }} -> {_t(out_shape)}"]
        result = "%y"
    lines += [f"  return {result} : {_t(out_shape)}", "}"]
    return "\n".join(lines)


GROUPED = [
    # op, N, G, C (per group), F (per group), H, W, K, stride, dilation, epilogue
    ("conv_2d_ngchw_gfchw", 1, 4, 6, 18, 12, 12, 1, 1, 1, "relu"),
    ("conv_2d_ngchw_gfchw", 1, 2, 8, 12, 9, 7, 3, 2, 1, None),
    ("conv_2d_ngchw_gfchw", 2, 4, 3, 8, 10, 11, 3, 1, 2, "relu6"),
    ("conv_2d_ngchw_gfchw", 1, 6, 1, 1, 8, 9, 3, 1, 1, None),        # groups = C: depthwise as grouped
    ("conv_2d_ngchw_fgchw", 1, 2, 4, 16, 6, 20, 1, 1, 1, "relu"),
    ("conv_2d_nhwgc_gfhwc", 1, 4, 6, 16, 7, 9, 1, 1, 1, "relu"),
    ("conv_2d_nhwgc_gfhwc", 1, 2, 8, 8, 11, 10, 3, 2, 1, "relu6"),
    ("conv_2d_nhwgc_gfhwc", 1, 8, 1, 1, 6, 7, 3, 1, 1, None),        # groups = C
]


@pytest.mark.parametrize("target,uri", DEVICES)
@pytest.mark.parametrize("op,n,g,c,f,h,w,k,stride,dilation,epilogue", GROUPED)
def test_grouped_conv_matches_numpy(target, uri, op, n, g, c, f, h, w, k, stride, dilation, epilogue):
    rng = np.random.default_rng(11)
    x = rng.standard_normal((n, g, c, h, w)).astype(np.float32)       # NGCHW
    wt = rng.standard_normal((g, f, c, k, k)).astype(np.float32)      # GFCHW
    b = rng.standard_normal((g, f)).astype(np.float32)
    want = ref_grouped_nchw(x, wt, stride, dilation) + b[None, :, :, None, None]
    if op == "conv_2d_ngchw_fgchw":
        wt = wt.transpose(1, 0, 2, 3, 4)
    if op == "conv_2d_nhwgc_gfhwc":
        x, wt, want = x.transpose(0, 3, 4, 1, 2), wt.transpose(0, 1, 3, 4, 2), want.transpose(0, 3, 4, 1, 2)
    if epilogue:
        want = np.clip(want, 0, 6 if epilogue == "relu6" else None)
    text = grouped_source(op, x.shape, wt.shape, want.shape, stride, dilation, epilogue)
    m = rt.load(rt.compile(text, devices=[target]), devices=[uri])
    got = m.conv(x, wt, b)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def ref_depthwise_nchw(x, w, stride, dilation):
    """x [N, C, H, W], w [C, KH, KW] -> [N, C, OH, OW] in float64."""
    return ref_grouped_nchw(x[:, :, None], w[:, None, None], stride, dilation)[:, :, 0]


def window_source(op, x_shape, w_shape, out_shape, stride, dilation, pad, init):
    """@f(x, w, b) -> op(pad(x), w) over ``init``: "bias" (broadcast b along the channel), or
    the pooling identity ("zero" / "-inf")."""
    nchw = "nchw" in op
    spatial = (2, 3) if nchw else (1, 2)
    padded = [s + (2 * pad if k in spatial else 0) for k, s in enumerate(x_shape)]
    low = ", ".join(str(pad if k in spatial else 0) for k in range(4))
    channel = 1 if nchw else 3
    dims = "[0, 2, 3]" if nchw else "[0, 1, 2]"
    lines = [f"func.func @f(%x: {_t(x_shape)}, %w: {_t(w_shape)}, %b: {_t([out_shape[channel]])}) -> {_t(out_shape)} {{",
             "  %z = arith.constant 0.0 : f32", "  %ninf = arith.constant 0xFF800000 : f32",
             f"  %p = tensor.pad %x low[{low}] high[{low}] {{",
             "  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):", "    tensor.yield %z : f32",
             f"  }} : {_t(x_shape)} to {_t(padded)}",
             f"  %e = tensor.empty() : {_t(out_shape)}"]
    if init == "bias":
        lines.append(f"  %i = linalg.broadcast ins(%b : {_t([out_shape[channel]])}) outs(%e : {_t(out_shape)}) "
                     f"dimensions = {dims}")
    else:
        lines.append(f"  %i = linalg.fill ins(%{init} : f32) outs(%e : {_t(out_shape)}) -> {_t(out_shape)}")
    lines += [f"  %r = linalg.{op} {{dilations = dense<{dilation}> : tensor<2xi64>, strides = dense<{stride}> : "
              f"tensor<2xi64>}} ins(%p, %w : {_t(padded)}, {_t(w_shape)}) outs(%i : {_t(out_shape)}) -> {_t(out_shape)}",
              f"  return %r : {_t(out_shape)}", "}"]
    return "\n".join(lines)


WINDOWS = [
    # op, N, C, H, W, K, stride, dilation, pad
    ("depthwise_conv_2d_nchw_chw", 1, 24, 12, 12, 3, 1, 1, 1),
    ("depthwise_conv_2d_nchw_chw", 1, 5, 13, 37, 3, 2, 1, 1),
    ("depthwise_conv_2d_nchw_chw", 2, 3, 20, 70, 3, 1, 2, 2),
    ("depthwise_conv_2d_nchw_chw", 1, 4, 9, 9, 5, 2, 1, 2),
    ("depthwise_conv_2d_nhwc_hwc", 1, 24, 12, 12, 3, 1, 1, 1),
    ("depthwise_conv_2d_nhwc_hwc", 1, 40, 9, 11, 3, 2, 1, 1),
    ("depthwise_conv_2d_nhwc_hwc", 1, 7, 10, 10, 3, 1, 2, 0),
    ("pooling_nchw_max", 1, 6, 24, 24, 3, 2, 1, 1),
    ("pooling_nchw_max", 1, 3, 11, 67, 2, 2, 1, 0),
    ("pooling_nchw_sum", 1, 5, 14, 14, 3, 2, 1, 1),
    ("pooling_nchw_sum", 1, 4, 9, 33, 3, 1, 1, 0),
    ("pooling_nhwc_max", 1, 20, 9, 9, 3, 2, 1, 1),
    ("pooling_nhwc_sum", 1, 17, 8, 8, 2, 1, 1, 0),
]


@pytest.mark.parametrize("target,uri", DEVICES)
@pytest.mark.parametrize("op,n,c,h,w,k,stride,dilation,pad", WINDOWS)
def test_depthwise_conv_and_pooling_match_numpy(target, uri, op, n, c, h, w, k, stride, dilation, pad):
    rng = np.random.default_rng(13)
    x = rng.standard_normal((n, c, h, w)).astype(np.float32)
    b = rng.standard_normal(c).astype(np.float32)
    xp = np.pad(x, [(0, 0), (0, 0), (pad, pad), (pad, pad)])
    oh, ow = _out_size(h + 2 * pad, k, stride, dilation), _out_size(w + 2 * pad, k, stride, dilation)
    if op.startswith("depthwise"):
        wt = rng.standard_normal((c, k, k)).astype(np.float32)
        want = ref_depthwise_nchw(xp, wt, stride, dilation) + b[None, :, None, None]
        init = "bias"
    else:
        wt = np.zeros((k, k), np.float32)
        windows = [xp[:, :, i * dilation::stride, j * dilation::stride][..., :oh, :ow]
                   for i in range(k) for j in range(k)]
        want = np.max(windows, axis=0) if op.endswith("max") else np.sum(windows, axis=0, dtype=np.float64)
        init = "ninf" if op.endswith("max") else "z"
    if "nhwc" in op:
        x, want = x.transpose(0, 2, 3, 1), want.transpose(0, 2, 3, 1)
        if op.startswith("depthwise"):
            wt = wt.transpose(1, 2, 0)
    text = window_source(op, x.shape, wt.shape, want.shape, stride, dilation, pad, init)
    m = rt.load(rt.compile(text, devices=[target]), devices=[uri])
    got = m.f(x, wt, b)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("op,stride", [("depthwise_conv_2d_nchw_chw", 2), ("pooling_nchw_max", 2),
                                       ("depthwise_conv_2d_nhwc_hwc", 1)])
def test_window_ops_run_the_vectorized_window_kernel(monkeypatch, op, stride):
    from rt.compiler.codegen.llvm_cpu import window

    taken = []
    original = window.plan

    def record(ctx, generic, where):
        p = original(ctx, generic, where)
        taken.append((generic.kind, type(p).__name__ if p is not None else None))
        return p

    monkeypatch.setattr(window, "plan", record)
    w_shape = (3, 3) if op.startswith("pooling") else ((4, 3, 3) if "nchw" in op else (3, 3, 4))
    x_shape, out = ((1, 4, 9, 9), (1, 4, 4 if stride == 2 else 9, 4 if stride == 2 else 9))
    if "nhwc" in op:
        x_shape, out = (1, 9, 9, 4), (1, 9, 9, 4)
    text = window_source(op, x_shape, w_shape, out, stride, 1, 1 if stride == 1 else 0,
                         "ninf" if op.startswith("pooling") else "bias")
    rt.compile(text, devices=["llvm-cpu"])
    assert ("pooling" if op.startswith("pooling") else "conv", "WindowPlan") in taken


IMPORTED_GROUPED = """
func.func @f(%x: tensor<1x24x6x7xf32>, %w: tensor<4x18x6x1x1xf32>, %bias: tensor<72xf32>, %skip: tensor<1x72x6x7xf32>) -> tensor<1x72x6x7xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x72x6x7xf32>
  %b = linalg.broadcast ins(%bias : tensor<72xf32>) outs(%e : tensor<1x72x6x7xf32>) dimensions = [0, 2, 3]
  %xs = tensor.expand_shape %x [[0], [1, 2], [3], [4]] output_shape [1, 4, 6, 6, 7] : tensor<1x24x6x7xf32> into tensor<1x4x6x6x7xf32>
  %bs = tensor.expand_shape %b [[0], [1, 2], [3], [4]] output_shape [1, 4, 18, 6, 7] : tensor<1x72x6x7xf32> into tensor<1x4x18x6x7xf32>
  %c = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%xs, %w : tensor<1x4x6x6x7xf32>, tensor<4x18x6x1x1xf32>) outs(%bs : tensor<1x4x18x6x7xf32>) -> tensor<1x4x18x6x7xf32>
  %cc = tensor.collapse_shape %c [[0], [1, 2], [3], [4]] : tensor<1x4x18x6x7xf32> into tensor<1x72x6x7xf32>
  %a = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%cc, %skip : tensor<1x72x6x7xf32>, tensor<1x72x6x7xf32>) outs(%e : tensor<1x72x6x7xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %m = arith.addf %in, %s : f32
    %r = arith.maximumf %m, %z : f32
    linalg.yield %r : f32
  } -> tensor<1x72x6x7xf32>
  return %a : tensor<1x72x6x7xf32>
}
"""


@pytest.mark.parametrize("target,uri", DEVICES)
def test_imported_grouped_conv_with_bias_residual_relu_is_one_dispatch(target, uri):
    from rt.compiler.codegen import lowering

    names = []
    original = lowering.lower_dispatch_function

    def record(func, backend, config):
        kernel = original(func, backend, config)
        names.append(kernel.name.split("_dispatch_")[1].split("_", 1)[1])
        return kernel

    lowering.lower_dispatch_function = record
    try:
        vmfb = rt.compile(IMPORTED_GROUPED, devices=[target])
    finally:
        lowering.lower_dispatch_function = original
    assert [n for n in names if "set_encoding" not in n] == ["conv_2d_ngchw_gfchw_1x4x18x6x7x6x1x1_f32"]
    rng = np.random.default_rng(17)
    x = rng.standard_normal((1, 24, 6, 7)).astype(np.float32)
    w = rng.standard_normal((4, 18, 6, 1, 1)).astype(np.float32)
    bias = rng.standard_normal(72).astype(np.float32)
    skip = rng.standard_normal((1, 72, 6, 7)).astype(np.float32)
    conv = ref_grouped_nchw(x.reshape(1, 4, 6, 6, 7), w, 1, 1).reshape(1, 72, 6, 7)
    want = np.maximum(conv + bias[None, :, None, None] + skip, 0)
    m = rt.load(vmfb, devices=[uri])
    np.testing.assert_allclose(m.f(x, w, bias, skip), want, rtol=1e-4, atol=1e-4)
