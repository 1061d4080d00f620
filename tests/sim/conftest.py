"""Shared fixtures of the simulation tests: small compiled programs (compiled once per session)."""
import pytest

import rt

MATMUL = """
func.func @mm(%a: tensor<64x32xf32>, %b: tensor<32x16xf32>) -> tensor<64x16xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x16xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<64x16xf32>) -> tensor<64x16xf32>
  %m = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x16xf32>)
                     outs(%f : tensor<64x16xf32>) -> tensor<64x16xf32>
  return %m : tensor<64x16xf32>
}
"""

# Two devices: negate on @a, the result moved to @b, doubled there, moved back to @a.
TWO_DEVICES = """
#map = affine_map<(i) -> (i)>
func.func @hop(%x: tensor<1024xf32>) -> tensor<1024xf32> attributes {stream.affinity = #hal.device.affinity<@a>} {
  %e0 = tensor.empty() : tensor<1024xf32>
  %n = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%x : tensor<1024xf32>) outs(%e0 : tensor<1024xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.negf %v : f32
    linalg.yield %r : f32
  } -> tensor<1024xf32>
  %nb = flow.tensor.transfer %n : tensor<1024xf32> to #hal.device.affinity<@b>
  %e1 = tensor.empty() : tensor<1024xf32>
  %d = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%nb : tensor<1024xf32>) outs(%e1 : tensor<1024xf32>) attrs = {stream.affinity = #hal.device.affinity<@b>} {
  ^bb0(%v: f32, %o: f32):
    %r = arith.addf %v, %v : f32
    linalg.yield %r : f32
  } -> tensor<1024xf32>
  %back = flow.tensor.transfer %d : tensor<1024xf32> to #hal.device.affinity<@a>
  return %back : tensor<1024xf32>
}
"""


@pytest.fixture(scope="session")
def matmul_vmfb():
    return rt.compile(MATMUL, data_tiling=False)


@pytest.fixture(scope="session")
def two_device_vmfb():
    return rt.compile(TWO_DEVICES, devices=["a=llvm-cpu", "b=llvm-cpu"])
