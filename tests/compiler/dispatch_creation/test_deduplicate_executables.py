"""iree-flow-deduplicate-executables end to end: a repeated layer compiles to one executable per
distinct dispatch and still computes the chain, on llvm-cpu and vmvx, against numpy."""
import numpy as np
import pytest

import rt
from rt.runtime.vm import Module


def chain(layers, m=8, k=32):
    """An N-layer matmul + bias + tanh chain with the weights and biases as arguments."""
    args = [f"%x: tensor<{m}x{k}xf32>"] + [f"%w{i}: tensor<{k}x{k}xf32>, %b{i}: tensor<{k}xf32>" for i in range(layers)]
    lines = [f"func.func @chain({', '.join(args)}) -> tensor<{m}x{k}xf32> {{", "  %zero = arith.constant 0.0 : f32"]
    current = "%x"
    for i in range(layers):
        lines += [
            f"  %e{i} = tensor.empty() : tensor<{m}x{k}xf32>",
            f"  %f{i} = linalg.fill ins(%zero : f32) outs(%e{i} : tensor<{m}x{k}xf32>) -> tensor<{m}x{k}xf32>",
            f"  %m{i} = linalg.matmul ins({current}, %w{i} : tensor<{m}x{k}xf32>, tensor<{k}x{k}xf32>) "
            f"outs(%f{i} : tensor<{m}x{k}xf32>) -> tensor<{m}x{k}xf32>",
            f"  %g{i} = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, "
            f"affine_map<(d0, d1) -> (d0, d1)>], iterator_types = [\"parallel\", \"parallel\"]}} "
            f"ins(%m{i}, %b{i} : tensor<{m}x{k}xf32>, tensor<{k}xf32>) outs(%e{i} : tensor<{m}x{k}xf32>) {{",
            "  ^bb0(%a: f32, %b: f32, %o: f32):",
            "    %s = arith.addf %a, %b : f32",
            "    %t = math.tanh %s : f32",
            "    linalg.yield %t : f32",
            f"  }} -> tensor<{m}x{k}xf32>",
        ]
        current = f"%g{i}"
    lines += [f"  return {current} : tensor<{m}x{k}xf32>", "}"]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("target,uri", [("llvm-cpu", "local-sync://llvm-cpu"), ("vmvx", "local-sync://vmvx")])
@pytest.mark.parametrize("data_tiling", [True, False])
def test_repeated_layers_share_executables(target, uri, data_tiling):
    layers = 3
    vmfb = rt.compile(chain(layers), devices=[target], data_tiling=data_tiling)
    # With data tiling the first layer packs x while the others read the previous packed
    # result (propagated layouts), so layers from the second one on repeat a two-layer chain.
    two = rt.compile(chain(2), devices=[target], data_tiling=data_tiling)
    assert len(Module.from_bytes(vmfb).executables) == len(Module.from_bytes(two).executables)
    rng = np.random.default_rng(1)
    x = rng.standard_normal((8, 32)).astype(np.float32)
    params = [(rng.standard_normal((32, 32)).astype(np.float32) * 0.2, rng.standard_normal(32).astype(np.float32))
              for _ in range(layers)]
    want = x
    for w, b in params:
        want = np.tanh(want @ w + b)
    with rt.load(vmfb, devices=[uri]) as module:
        got = module.chain(x, *[a for pair in params for a in pair])
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
