"""Zero-element constants as IREE's importers write them (``dense<> : tensor<0xf32>``, a splat of
an empty shape, ONNX ConstantOfShape with a zero dimension): they compile and return empty
arrays of the right shape and dtype on both devices."""
import numpy as np
import pytest

import rt

SOURCE = """
func.func @empty_f32() -> tensor<0xf32> {
  %c = arith.constant dense<> : tensor<0xf32>
  return %c : tensor<0xf32>
}
func.func @empty_splat() -> tensor<2x0xi64> {
  %c = arith.constant dense<0> : tensor<2x0xi64>
  return %c : tensor<2x0xi64>
}
func.func @unused_empty(%x: tensor<3xf32>) -> tensor<3xf32> {
  %c = arith.constant dense<> : tensor<0xf32>
  return %x : tensor<3xf32>
}
"""


@pytest.mark.parametrize("device", ["llvm-cpu", "vmvx"])
def test_zero_element_constants(device):
    module = rt.load(rt.compile(SOURCE, devices=[device]), devices=[f"local-sync://{device}"])
    a, b = module.empty_f32(), module.empty_splat()
    assert (a.shape, a.dtype) == ((0,), np.float32)
    assert (b.shape, b.dtype) == ((2, 0), np.int64)
    np.testing.assert_array_equal(module.unused_empty(np.arange(3, dtype=np.float32)), [0, 1, 2])
