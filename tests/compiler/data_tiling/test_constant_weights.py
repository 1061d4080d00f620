"""Constant weights are packed once, by a module initializer (iree-util-hoist-into-globals)."""
import collections
import re

import numpy as np
import pytest

import rt
from rt.compiler.dialects import make_context
from rt.compiler.frontend import parse_module
from rt.compiler.passes import PassPipeline, pipeline

W = np.arange(1, 33, dtype=np.float32).reshape(8, 4) / 8
W_TEXT = "[" + ", ".join("[" + ", ".join(repr(float(x)) for x in row) + "]" for row in W) + "]"
SOURCE = f"""
util.global private @bias = dense<[0.5, -1.0, 2.0, 0.25]> : tensor<4xf32>
func.func @predict(%a: tensor<?x8xf32>) -> tensor<?x4xf32> {{
  %w = arith.constant dense<{W_TEXT}> : tensor<8x4xf32>
  %c0 = arith.constant 0 : index
  %m = tensor.dim %a, %c0 : tensor<?x8xf32>
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty(%m) : tensor<?x4xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<?x4xf32>) -> tensor<?x4xf32>
  %r = linalg.matmul ins(%a, %w : tensor<?x8xf32>, tensor<8x4xf32>) outs(%f : tensor<?x4xf32>) -> tensor<?x4xf32>
  %b = util.global.load @bias : tensor<4xf32>
  %y = linalg.generic {{indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}} ins(%r, %b : tensor<?x4xf32>, tensor<4xf32>) outs(%e : tensor<?x4xf32>) {{
  ^bb0(%x: f32, %z: f32, %o: f32):
    %s = arith.addf %x, %z : f32
    linalg.yield %s : f32
  }} -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}}
"""
BIAS = np.array([0.5, -1.0, 2.0, 0.25], np.float32)


def _flow_module(source, options=None):
    ctx = make_context()
    module = parse_module(source, "w.mlir", ctx)
    passes = pipeline.build_passes({**(options or {}), "devices": ["llvm-cpu"]}, until="iree-flow-outline-dispatch-regions")
    PassPipeline(passes).run(module, ctx)
    return module


def test_constant_rhs_pack_runs_in_the_initializer_only():
    module = _flow_module(SOURCE)
    by_owner = {}
    for op in module.body.block.ops:
        if op.name in ("util.func", "util.initializer"):
            owner = op.sym_name.data if op.name == "util.func" else "initializer"
            by_owner[owner] = re.findall(r"flow\.dispatch @\w+::@(\w+)", str(op))
    assert [n.split("_dispatch_0_")[1] for n in by_owner["initializer"]] == ["set_encoding_8x4_f32"]
    kinds = [n.split("_dispatch_")[1].split("_", 1)[1] for n in by_owner["predict"]]
    # the argument LHS is packed panel by panel inside the matmul (form-dispatch-regions rule 5)
    assert kinds == ["matmul_Dx4x8_f32", "unset_encoding_Dx4_f32"]
    assert "util.global.load immutable @__hoisted_tensor_8x4xf32" in str(module)


@pytest.mark.parametrize("backend,uri", [("llvm-cpu", "local-task://llvm-cpu"), ("vmvx", "local-sync://vmvx")])
def test_packed_global_results_and_a_single_pack_over_calls(backend, uri):
    tracer = rt.Tracer()
    rng = np.random.default_rng(5)
    inputs = [rng.standard_normal((m, 8)).astype(np.float32) for m in (1, 5, 33)]
    with rt.load(rt.compile(SOURCE, devices=[backend]), devices=[uri], tracer=tracer) as mod:
        for a in inputs:
            np.testing.assert_allclose(mod.predict(a), a @ W + BIAS, rtol=1e-5, atol=1e-5)
    counts = collections.Counter(e["name"] for e in tracer.events if e.get("ph") == "X")
    packs = {name: n for name, n in counts.items() if "set_encoding_8x4" in name and ":" not in name}
    assert list(packs.values()) == [1] and next(iter(packs)).startswith("_initializer_")
    matmuls = [n for name, n in counts.items() if "matmul_Dx4x8" in name and ":" not in name]
    assert matmuls == [len(inputs)]


def test_no_data_tiling_hoists_nothing():
    module = _flow_module(SOURCE, {"data_tiling": False})
    assert "__hoisted" not in str(module) and "util.initializer" not in str(module)
