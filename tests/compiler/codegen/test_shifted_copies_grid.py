"""Tests that pad / concat / insert_slice dispatches spanning many workgroups cover the whole
output: the grid comes from the root's extent (Distribution.extents), not from the shifted copy
whose domain is only the source's."""
import numpy as np
import pytest

import rt

PAD = """
func.func @pad(%x: tensor<300x200xf32>) -> tensor<340x230xf32> {
  %cst = arith.constant -1.5 : f32
  %p = tensor.pad %x low[10, 20] high[30, 10] {
  ^bb0(%i: index, %j: index):
    tensor.yield %cst : f32
  } : tensor<300x200xf32> to tensor<340x230xf32>
  return %p : tensor<340x230xf32>
}
"""

CONCAT = """
func.func @concat(%a: tensor<300x64xf32>, %b: tensor<300x100xf32>) -> tensor<300x164xf32> {
  %c = tensor.concat dim(1) %a, %b : (tensor<300x64xf32>, tensor<300x100xf32>) -> tensor<300x164xf32>
  return %c : tensor<300x164xf32>
}
"""

DEVICES = [("llvm-cpu", "local-task://llvm-cpu"), ("vmvx", "local-sync://vmvx")]


@pytest.mark.parametrize("target,uri", DEVICES)
def test_large_pad_fills_every_element(target, uri):
    x = np.arange(300 * 200, dtype=np.float32).reshape(300, 200)
    m = rt.load(rt.compile(PAD, devices=[target]), devices=[uri])
    got = m.pad(x)
    want = np.pad(x, ((10, 30), (20, 10)), constant_values=-1.5)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("target,uri", DEVICES)
def test_large_concat_copies_both_operands(target, uri):
    a = np.arange(300 * 64, dtype=np.float32).reshape(300, 64)
    b = -np.arange(300 * 100, dtype=np.float32).reshape(300, 100)
    m = rt.load(rt.compile(CONCAT, devices=[target]), devices=[uri])
    np.testing.assert_array_equal(m.concat(a, b), np.concatenate([a, b], axis=1))
