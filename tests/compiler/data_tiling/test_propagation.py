"""Propagated data-tiled layouts end to end: consecutive matmuls with epilogues between them
keep the packed layout (iree-dispatch-creation-propagate-encodings), on both devices, against
numpy."""
import numpy as np
import pytest

import rt
from rt.compiler.codegen import lowering
from rt.compiler.codegen.lowering import dispatch as lowering_dispatch

DEVICES = [("llvm-cpu", "local-task://llvm-cpu"), ("vmvx", "local-sync://vmvx")]


def _t(*shape):
    return "tensor<" + "x".join(map(str, shape)) + "xf32>"


def chain_source(m, dims, residual=False):
    """@chain(x, w0, b0, w1, b1, ...): relu(x @ w_i + b_i) per layer; the last layer has no relu
    and, with ``residual``, adds the previous activation (needs equal widths)."""
    args = [f"%x: {_t(m, dims[0])}"]
    for i, (k, n) in enumerate(zip(dims, dims[1:])):
        args += [f"%w{i}: {_t(k, n)}", f"%b{i}: {_t(n)}"]
    lines = [f"func.func @chain({', '.join(args)}) -> {_t(m, dims[-1])} {{", "  %z = arith.constant 0.0 : f32"]
    act = "%x"
    layers = len(dims) - 1
    for i, (k, n) in enumerate(zip(dims, dims[1:])):
        last = i == layers - 1
        lines += [f"  %e{i} = tensor.empty() : {_t(m, n)}",
                  f"  %f{i} = linalg.fill ins(%z : f32) outs(%e{i} : {_t(m, n)}) -> {_t(m, n)}",
                  f"  %m{i} = linalg.matmul ins({act}, %w{i} : {_t(m, k)}, {_t(k, n)}) outs(%f{i} : {_t(m, n)}) -> {_t(m, n)}"]
        extra = residual and last
        ins = f"%m{i}, %b{i}" + (f", {act}" if extra else "")
        types = f"{_t(m, n)}, {_t(n)}" + (f", {_t(m, n)}" if extra else "")
        maps = "affine_map<(i,j)->(i,j)>, affine_map<(i,j)->(j)>" + (", affine_map<(i,j)->(i,j)>" if extra else "")
        lines += [f"  %a{i} = linalg.generic {{indexing_maps = [{maps}, affine_map<(i,j)->(i,j)>], "
                  f"iterator_types = [\"parallel\",\"parallel\"]}} ins({ins} : {types}) outs(%e{i} : {_t(m, n)}) {{",
                  "  ^bb0(%a: f32, %b: f32" + (", %r: f32" if extra else "") + ", %o: f32):",
                  "    %s = arith.addf %a, %b : f32"]
        value = "%s"
        if extra:
            lines.append("    %t = arith.addf %s, %r : f32")
            value = "%t"
        if not last:
            lines.append(f"    %y = arith.maximumf {value}, %z : f32")
            value = "%y"
        lines += [f"    linalg.yield {value} : f32", f"  }} -> {_t(m, n)}"]
        act = f"%a{i}"
    lines += [f"  return {act} : {_t(m, dims[-1])}", "}"]
    return "\n".join(lines)


def reference(x, params, residual=False):
    act = x.astype(np.float64)
    layers = len(params) // 2
    for i in range(layers):
        prev = act
        act = act @ params[2 * i] + params[2 * i + 1]
        if i < layers - 1:
            act = np.maximum(act, 0)
        elif residual:
            act = act + prev
    return act


def _dispatch_names(text, target):
    names = []
    original = lowering_dispatch.lower_dispatch_function

    def record(func, backend, config):
        kernel = original(func, backend, config)
        names.append(kernel.name.split("_dispatch_")[1])
        return kernel

    lowering.lower_dispatch_function = record
    try:
        rt.compile(text, devices=[target])
    finally:
        lowering.lower_dispatch_function = original
    return names


CASES = [(48, (96, 64, 32, 16), False), (64, (40, 32, 32), True), (8, (16, 32, 48), False),
         (20, (24, 40, 16), False)]


@pytest.mark.parametrize("target,uri", DEVICES)
@pytest.mark.parametrize("m,dims,residual", CASES)
def test_chains_match_numpy(target, uri, m, dims, residual):
    text = chain_source(m, dims, residual)
    rng = np.random.default_rng(11)
    x = rng.standard_normal((m, dims[0])).astype(np.float32)
    params = []
    for k, n in zip(dims, dims[1:]):
        params += [(rng.standard_normal((k, n)) / np.sqrt(k)).astype(np.float32),
                   rng.standard_normal(n).astype(np.float32)]
    module = rt.load(rt.compile(text, devices=[target]), devices=[uri])
    np.testing.assert_allclose(module.chain(x, *params), reference(x, params, residual), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("target", ["llvm-cpu", "vmvx"])
def test_layers_keep_the_packed_layout(target):
    names = [n.split("_", 1)[1] for n in _dispatch_names(chain_source(48, (96, 64, 32, 16)), target)]
    # three matmuls (epilogues fused), one final unpack; on vmvx the packs of x and of the three
    # weights -- llvm-cpu reads the weights in place and packs x panel by panel inside the
    # first matmul (form-dispatch-regions rule 5)
    packs = ["set_encoding_48x96_f32", "set_encoding_96x64_f32", "set_encoding_64x32_f32",
             "set_encoding_32x16_f32"]
    assert sorted(names) == sorted(["matmul_48x64x96_f32", "matmul_48x32x64_f32",
                                    "matmul_48x16x32_f32", "unset_encoding_48x16_f32"]
                                   + (packs if target == "vmvx" else []))


def test_a_width_that_is_not_a_multiple_of_16_keeps_its_unpack():
    names = [n.split("_", 1)[1] for n in _dispatch_names(chain_source(20, (24, 40, 16)), "llvm-cpu")]
    # the unpacked 20x40 is the next matmul's LHS, packed panel by panel inside it
    assert "unset_encoding_20x40_f32" in names and "set_encoding_20x40_f32" not in names


#: exp(x @ w) returned beside (x @ w) * exp(x @ w): the exp runs on the packed result and is
#: read both plain (returned) and by the product; at N = 2048 the exp's packed result (1 MiB)
#: exceeds llvm-cpu's 512 KiB workgroup scratch, so it must not be fused whole into an unpack.
_EXP_TWICE = """
func.func @f(%x: tensor<128x64xf32>, %w: tensor<64xNxf32>) -> (tensor<128xNxf32>, tensor<128xNxf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128xNxf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<128xNxf32>) -> tensor<128xNxf32>
  %m = linalg.matmul ins(%x, %w : tensor<128x64xf32>, tensor<64xNxf32>) outs(%f : tensor<128xNxf32>) -> tensor<128xNxf32>
  %a = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<128xNxf32>) outs(%e : tensor<128xNxf32>) {
  ^bb0(%p: f32, %o: f32):
    %r = math.exp %p : f32
    linalg.yield %r : f32
  } -> tensor<128xNxf32>
  %b = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%m, %a : tensor<128xNxf32>, tensor<128xNxf32>) outs(%e : tensor<128xNxf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %r = arith.mulf %p, %q : f32
    linalg.yield %r : f32
  } -> tensor<128xNxf32>
  return %a, %b : tensor<128xNxf32>, tensor<128xNxf32>
}
"""


@pytest.mark.parametrize("n", [256, 2048])
def test_an_epilogue_too_large_for_scratch_stays_apart_from_its_unpack(n):
    source = _EXP_TWICE.replace("N", str(n))
    flow = rt.compile(source, devices=["llvm-cpu"], compile_to="flow").decode()
    separate = f"elementwise_128x{n}_f32" in flow
    assert separate == (n == 2048)  # 128 x 256 f32 (128 KiB) still fuses into its unpack
    rng = np.random.default_rng(5)
    x = (rng.standard_normal((128, 64)) * 0.1).astype(np.float32)
    w = (rng.standard_normal((64, n)) * 0.1).astype(np.float32)
    m = x.astype(np.float64) @ w.astype(np.float64)
    for target, uri in DEVICES:
        a, b = rt.load(rt.compile(source, devices=[target]), devices=[uri]).f(x, w)
        np.testing.assert_allclose(np.asarray(a), np.exp(m), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(np.asarray(b), m * np.exp(m), rtol=1e-5, atol=1e-6)
