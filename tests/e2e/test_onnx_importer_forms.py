"""Programs shaped like what IREE 3.13's ONNX importer writes (``iree-import-onnx``, then
``iree-compile --compile-to=input``), against numpy on llvm-cpu and vmvx: the forms ONNX's backend
node tests found rt getting wrong (``benchmarks/onnx_node_tests.py``)."""
import numpy as np
import pytest

import rt

PROGRAM = """
func.func @topk_sge(%x: tensor<3x4xi64>) -> (tensor<3x3xi64>, tensor<3x3xi64>) {
  %e = tensor.empty() : tensor<3x4xi64>
  %pos = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<3x4xi64>) {
  ^bb0(%out: i64):
    %i = linalg.index 1 : index
    %c = arith.index_cast %i : index to i64
    linalg.yield %c : i64
  } -> tensor<3x4xi64>
  %s:2 = iree_linalg_ext.sort dimension(1) outs(%x, %pos : tensor<3x4xi64>, tensor<3x4xi64>) {
  ^bb0(%a: i64, %b: i64, %c: i64, %d: i64):
    %ge = arith.cmpi sge, %a, %b : i64
    iree_linalg_ext.yield %ge : i1
  } -> tensor<3x4xi64>, tensor<3x4xi64>
  %v = tensor.extract_slice %s#0[0, 0] [3, 3] [1, 1] : tensor<3x4xi64> to tensor<3x3xi64>
  %i = tensor.extract_slice %s#1[0, 0] [3, 3] [1, 1] : tensor<3x4xi64> to tensor<3x3xi64>
  return %v, %i : tensor<3x3xi64>, tensor<3x3xi64>
}

func.func @sort_long_oge(%x: tensor<100xf32>, %p: tensor<100xi32>) -> (tensor<100xf32>, tensor<100xi32>) {
  %s:2 = iree_linalg_ext.sort dimension(0) outs(%x, %p : tensor<100xf32>, tensor<100xi32>) {
  ^bb0(%a: f32, %b: f32, %c: i32, %d: i32):
    %ge = arith.cmpf oge, %a, %b : f32
    iree_linalg_ext.yield %ge : i1
  } -> tensor<100xf32>, tensor<100xi32>
  return %s#0, %s#1 : tensor<100xf32>, tensor<100xi32>
}

func.func @pad_by_input(%x: tensor<3x2xf32>, %pads: tensor<4xi64>) -> tensor<3x4xf32> {
  %cst = arith.constant 0.5 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %p0 = tensor.extract %pads[%c0] : tensor<4xi64>
  %p1 = tensor.extract %pads[%c1] : tensor<4xi64>
  %p2 = tensor.extract %pads[%c2] : tensor<4xi64>
  %p3 = tensor.extract %pads[%c3] : tensor<4xi64>
  %l0 = arith.index_cast %p0 : i64 to index
  %l1 = arith.index_cast %p1 : i64 to index
  %h0 = arith.index_cast %p2 : i64 to index
  %h1 = arith.index_cast %p3 : i64 to index
  %r = tensor.pad %x low[%l0, %l1] high[%h0, %h1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %cst : f32
  } : tensor<3x2xf32> to tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}

func.func @quantize_u8(%x: tensor<8xf32>, %scale: tensor<f32>, %zp: tensor<i8>) -> tensor<8xi8> {
  %s = tensor.extract %scale[] : tensor<f32>
  %z8 = tensor.extract %zp[] : tensor<i8>
  %z = arith.extui %z8 : i8 to i64
  %e = tensor.empty() : tensor<8xi8>
  %q = iree_linalg_ext.quantize_affine <indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>], quant_min = 0, quant_max = 255, storage_unsigned> ins(%x, %s, %z : tensor<8xf32>, f32, i64) outs(%e : tensor<8xi8>) -> tensor<8xi8>
  return %q : tensor<8xi8>
}

func.func @quantize_i16_per_axis(%x: tensor<2x3xf32>, %scale: tensor<3xf32>, %zp: tensor<3xi16>) -> tensor<2x3xi16> {
  %e = tensor.empty() : tensor<2x3xi16>
  %q = iree_linalg_ext.quantize_affine <indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], quant_min = -32768, quant_max = 32767> ins(%x, %scale, %zp : tensor<2x3xf32>, tensor<3xf32>, tensor<3xi16>) outs(%e : tensor<2x3xi16>) -> tensor<2x3xi16>
  return %q : tensor<2x3xi16>
}

func.func @dequantize_u8_per_axis(%x: tensor<2x3xi8>, %scale: tensor<3xf32>, %zp: tensor<3xi8>) -> tensor<2x3xf32> {
  %e = tensor.empty() : tensor<2x3xf32>
  %d = iree_linalg_ext.dequantize_affine <indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], quant_min = 0, quant_max = 255, input_unsigned, zp_unsigned> ins(%x, %scale, %zp : tensor<2x3xi8>, tensor<3xf32>, tensor<3xi8>) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  return %d : tensor<2x3xf32>
}

func.func @dequantize_i8(%x: tensor<4xi8>, %scale: tensor<f32>, %zp: tensor<i8>) -> tensor<4xf32> {
  %s = tensor.extract %scale[] : tensor<f32>
  %z8 = tensor.extract %zp[] : tensor<i8>
  %z = arith.extsi %z8 : i8 to i64
  %e = tensor.empty() : tensor<4xf32>
  %d = iree_linalg_ext.dequantize_affine <indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>], quant_min = -128, quant_max = 127> ins(%x, %s, %z : tensor<4xi8>, f32, i64) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %d : tensor<4xf32>
}
"""

DEVICES = [("llvm-cpu", "local-sync://llvm-cpu"), ("vmvx", "local-sync://vmvx")]


@pytest.fixture(scope="module", params=DEVICES, ids=[d for d, _ in DEVICES])
def module(request):
    target, uri = request.param
    return rt.load(rt.compile(PROGRAM, devices=[target]), devices=[uri])


def test_sort_with_a_non_strict_comparator_keeps_ties_in_order(module):
    """TopK as the importer writes it (``sge``, ties both ways): ties keep their order."""
    x = np.array([[0, 0, 0, 0], [1, 1, 1, 1], [2, 2, 1, 1]], np.int64)
    values, indices = module.topk_sge(x)
    order = np.argsort(-x, axis=1, kind="stable")[:, :3]
    np.testing.assert_array_equal(np.asarray(indices), order)
    np.testing.assert_array_equal(np.asarray(values), np.take_along_axis(x, order, 1))


def test_merge_sort_with_a_non_strict_comparator_keeps_ties_in_order(module):
    x = np.random.default_rng(3).integers(0, 5, 100).astype(np.float32)
    values, positions = module.sort_long_oge(x, np.arange(100, dtype=np.int32))
    order = np.argsort(-x, kind="stable")
    np.testing.assert_array_equal(np.asarray(positions), order)
    np.testing.assert_array_equal(np.asarray(values), x[order])


@pytest.mark.parametrize("pads", [(0, 1, 0, 1), (0, 2, 0, 0), (0, 0, 0, 2)])
def test_pad_by_dynamic_amounts_into_a_static_result(module, pads):
    """ONNX Pad with its pads as an input: dynamic pads, the result type static (valid in MLIR)."""
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    got = module.pad_by_input(x, np.array(pads, np.int64))
    want = np.pad(x, ((pads[0], pads[2]), (pads[1], pads[3])), constant_values=0.5)
    np.testing.assert_array_equal(np.asarray(got), want)


def _quantize(x, scale, zp, low, high):
    """ONNX QuantizeLinear: round half to even, add the zero point, saturate."""
    return np.clip(np.rint(x / scale) + zp, low, high)


def test_quantize_affine_per_tensor_to_unsigned_storage(module):
    x = np.array([0, 2, 3, 5, 1000, -254, -1000, 7], np.float32)
    got = np.asarray(module.quantize_u8(x, np.array(2, np.float32), np.array(128, np.uint8)))
    np.testing.assert_array_equal(got.view(np.uint8), _quantize(x, 2, 128, 0, 255).astype(np.uint8))


def test_quantize_affine_per_axis_to_signed_storage(module):
    x = np.array([[-70000, 1.5, 2.5], [3, 100000, -0.5]], np.float32)
    scale, zp = np.array([1, 0.5, 2], np.float32), np.array([-3, 0, 7], np.int16)
    got = np.asarray(module.quantize_i16_per_axis(x, scale, zp))
    np.testing.assert_array_equal(got, _quantize(x, scale, zp, -32768, 32767).astype(np.int16))


def test_dequantize_affine_unsigned_input_and_zero_point_per_axis(module):
    x = np.array([[0, 128, 255], [3, 200, 17]], np.uint8)
    scale, zp = np.array([0.5, 2, 0.25], np.float32), np.array([128, 255, 0], np.uint8)
    got = module.dequantize_u8_per_axis(x.view(np.int8), scale, zp.view(np.int8))
    want = (x.astype(np.int32) - zp.astype(np.int32)) * scale
    np.testing.assert_array_equal(np.asarray(got), want.astype(np.float32))


def test_dequantize_affine_signed(module):
    x = np.array([-128, -1, 0, 127], np.int8)
    got = module.dequantize_i8(x, np.array(0.5, np.float32), np.array(-128, np.int8))
    np.testing.assert_array_equal(np.asarray(got), (x.astype(np.int32) + 128) * np.float32(0.5))
