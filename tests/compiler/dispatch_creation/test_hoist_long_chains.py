"""iree-util-hoist-into-globals on chains far longer than Python's recursion limit (issue 8
item 5: 400 elementwise ops before a matmul raised RecursionError). No pass may recurse once
per op."""
import numpy as np
import pytest

import rt


def _chain(n, source):
    """``n`` chained tanh ops on ``source`` (an argument or a constant), then a matmul."""
    head = "func.func @g(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {"
    lines = [head]
    if source == "constant":
        lines.append("  %c = arith.constant dense<0.5> : tensor<4x8xf32>")
    prev = "%x" if source == "argument" else "%c"
    for i in range(n):
        lines.append(f"  %v{i} = math.tanh {prev} : tensor<4x8xf32>")
        prev = f"%v{i}"
    lines += ["  %z = arith.constant 0.0 : f32", "  %e = tensor.empty() : tensor<4x8xf32>",
              "  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>",
              f"  %r = linalg.matmul ins({prev}, %w : tensor<4x8xf32>, tensor<8x8xf32>) "
              "outs(%f : tensor<4x8xf32>) -> tensor<4x8xf32>",
              "  return %r : tensor<4x8xf32>", "}"]
    return "\n".join(lines)


@pytest.mark.slow
@pytest.mark.parametrize("source", ["argument", "constant"])
def test_a_chain_of_1500_ops_before_a_matmul_compiles_and_runs(source):
    n = 1500
    module = rt.load(rt.compile(_chain(n, source), devices=["vmvx"]), devices=["local-sync://vmvx"])
    x = np.linspace(-1, 1, 32, dtype=np.float32).reshape(4, 8)
    w = np.eye(8, dtype=np.float32)
    v = x if source == "argument" else np.full((4, 8), 0.5, np.float32)
    for _ in range(n):
        v = np.tanh(v)
    np.testing.assert_allclose(module["g"](x, w), v @ w, rtol=1e-4, atol=1e-6)
