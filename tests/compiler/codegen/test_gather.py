"""Gathers: ``tensor.extract`` at data-dependent indices inside a linalg.generic body, on both
devices against numpy (kernel_ir's ``tensor.extract`` ScalarOp; IREE's gather-like generics)."""
import numpy as np
import pytest

import rt

DEVICES = [("llvm-cpu", "local-task://llvm-cpu"), ("vmvx", "local-sync://vmvx")]

_EMBED = """
func.func @embed(%table: tensor<?x?xf32>, %ids: tensor<?xi32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %ids, %c0 : tensor<?xi32>
  %d = tensor.dim %table, %c1 : tensor<?x?xf32>
  %empty = tensor.empty(%n, %d) : tensor<?x?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<?xi32>) outs(%empty : tensor<?x?xf32>) {
  ^bb0(%id: i32, %out: f32):
    %r = arith.index_cast %id : i32 to index
    %j = linalg.index 1 : index
    %v = tensor.extract %table[%r, %j] : tensor<?x?xf32>
    linalg.yield %v : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
"""


@pytest.mark.parametrize("target,uri", DEVICES)
def test_embedding_lookup_with_dynamic_shapes_matches_numpy(target, uri):
    rng = np.random.default_rng(7)
    table = rng.standard_normal((50, 33)).astype(np.float32)
    ids = rng.integers(0, 50, size=70).astype(np.int32)
    module = rt.load(rt.compile(_EMBED, devices=[target]), devices=[uri])
    np.testing.assert_array_equal(module["embed"](table, ids), table[ids])


@pytest.mark.parametrize("target,uri", DEVICES)
def test_out_of_range_indices_are_clamped_into_the_tensor(target, uri):
    table = np.arange(12, dtype=np.float32).reshape(4, 3)
    ids = np.array([-5, 0, 3, 4, 1 << 30], dtype=np.int32)
    module = rt.load(rt.compile(_EMBED, devices=[target]), devices=[uri])
    np.testing.assert_array_equal(module["embed"](table, ids), table[np.clip(ids, 0, 3)])


@pytest.mark.parametrize("target,uri", DEVICES)
def test_gather_from_an_empty_table_is_an_error_not_a_read(target, uri):
    module = rt.load(rt.compile(_EMBED, devices=[target]), devices=[uri])
    with pytest.raises(rt.RtError):
        module["embed"](np.zeros((0, 3), np.float32), np.zeros(2, np.int32))


def test_extract_of_a_tensor_made_in_the_body_is_a_located_error():
    text = """
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %out: f32):
    %t = tensor.from_elements %x : tensor<1xf32>
    %c0 = arith.constant 0 : index
    %v = tensor.extract %t[%c0] : tensor<1xf32>
    linalg.yield %v : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
"""
    with pytest.raises(rt.CompileError, match=r":\d+:\d+: error: "):
        rt.compile(text, devices=["llvm-cpu"])
