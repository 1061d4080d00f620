"""``reassociate_fp_reductions=False`` (IREE's ``--iree-llvmcpu-reassociate-fp-reductions=false``):
llvm-cpu float reductions in loop order, bit-identical to a sequential sum and to vmvx."""
import functools

import numpy as np
import pytest

import rt

ROW_SUMS = """
func.func @row_sums(%x: tensor<3x1024xf32>) -> tensor<3xf32> {
  %zero = arith.constant -0.0 : f32
  %e = tensor.empty() : tensor<3xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<3xf32>) -> tensor<3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<3x1024xf32>) outs(%f : tensor<3xf32>) {
    ^bb0(%in: f32, %acc: f32):
      %s = arith.addf %acc, %in : f32
      linalg.yield %s : f32
  } -> tensor<3xf32>
  return %r : tensor<3xf32>
}
"""


def _inputs():
    """Rows whose float sum depends on the order: large values cancelling, small ones lost."""
    rng = np.random.default_rng(0)
    x = (rng.standard_normal((3, 1024)) * np.array([[1.0], [1e4], [1e7]])).astype(np.float32)
    x[:, ::7] *= 1000.0
    return x


def _sequential(row):
    return functools.reduce(lambda acc, v: np.float32(acc + v), row, np.float32(-0.0))


@pytest.mark.parametrize("target,uri", [("llvm-cpu", "local-sync://llvm-cpu"), ("vmvx", "local-sync://vmvx")])
def test_in_order_reductions_match_a_sequential_sum(target, uri):
    x = _inputs()
    vmfb = rt.compile(ROW_SUMS, devices=[target], reassociate_fp_reductions=False)
    got = rt.load(vmfb, devices=[uri]).row_sums(x)
    want = np.array([_sequential(row) for row in x], np.float32)
    assert got.tobytes() == want.tobytes()


def test_reassociated_reductions_stay_close():
    x = _inputs()
    got = rt.load(rt.compile(ROW_SUMS, devices=["llvm-cpu"]), devices=["local-sync://llvm-cpu"]).row_sums(x)
    np.testing.assert_allclose(got, x.astype(np.float64).sum(axis=1), rtol=1e-4,
                               atol=1e-4 * np.abs(x).sum(axis=1).max())
