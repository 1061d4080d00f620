"""``cf.assert`` inside a dispatch (as IREE's ONNX importer writes for GatherElements,
Reciprocal, LayerNorm...): a device-side check on llvm-cpu and vmvx; where it fails, the call
raises a DeviceError carrying the assert's ``file:line:col`` and its message, and inputs that
pass compute the same values on both devices."""
import numpy as np
import pytest

import rt

GATHER = """
func.func @gather(%data: tensor<4x3xf32>, %idx: tensor<4x2xi64>) -> tensor<4x2xf32> {
  %c0 = arith.constant 0 : i64
  %c3 = arith.constant 3 : index
  %e = tensor.empty() : tensor<4x2xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%idx : tensor<4x2xi64>) outs(%e : tensor<4x2xf32>) {
  ^bb0(%in: i64, %out: f32):
    %i = linalg.index 0 : index
    %j = arith.index_cast %in : i64 to index
    %lt = arith.cmpi slt, %j, %c3 : index
    cf.assert %lt, "index must be smaller than dim size"
    %ge = arith.cmpi sge, %in, %c0 : i64
    cf.assert %ge, "index must be larger or equal to 0"
    %x = tensor.extract %data[%i, %j] : tensor<4x3xf32>
    linalg.yield %x : f32
  } -> tensor<4x2xf32>
  return %r : tensor<4x2xf32>
}

func.func @reciprocal(%x: tensor<37xf32>) -> tensor<37xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<37xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<37xf32>) outs(%e : tensor<37xf32>) {
  ^bb0(%in: f32, %out: f32):
    %nz = arith.cmpf one, %in, %zero : f32
    cf.assert %nz, "unimplemented: tensor with zero element"
    %y = arith.divf %one, %in : f32
    linalg.yield %y : f32
  } -> tensor<37xf32>
  return %r : tensor<37xf32>
}
"""
DEVICES = ("llvm-cpu", "vmvx")
DATA = np.arange(12, dtype=np.float32).reshape(4, 3)


@pytest.fixture(scope="module", params=DEVICES)
def module(request):
    device = request.param
    return rt.load(rt.compile(GATHER, devices=[device]), devices=[f"local-sync://{device}"])


def test_passing_asserts_compute_the_values(module):
    idx = np.array([[0, 2], [1, 1], [2, 0], [1, 2]], np.int64)
    np.testing.assert_array_equal(module.gather(DATA, idx), np.take_along_axis(DATA, idx, axis=1))
    x = np.linspace(0.5, 4.0, 37, dtype=np.float32)
    np.testing.assert_allclose(module.reciprocal(x), 1 / x, rtol=1e-6)


@pytest.mark.parametrize("idx,where", [
    ([[0, 3], [1, 1], [2, 0], [1, 2]], "<input>:13:5: cf.assert failed: index must be smaller than dim size"),
    ([[0, 1], [1, -1], [2, 0], [1, 2]], "<input>:15:5: cf.assert failed: index must be larger or equal to 0"),
])
def test_failing_assert_fails_the_call_with_its_location_and_message(module, idx, where):
    with pytest.raises(rt.DeviceError) as info:
        module.gather(DATA, np.array(idx, np.int64))
    assert where in str(info.value)


def test_an_assert_failing_in_one_vector_lane_is_reported(module):
    x = np.linspace(0.5, 4.0, 37, dtype=np.float32)
    x[5] = 0.0  # inside the first vector of llvm-cpu's loop
    with pytest.raises(rt.DeviceError, match="cf.assert failed: unimplemented: tensor with zero element"):
        module.reciprocal(x)
    np.testing.assert_allclose(module.reciprocal(np.ones(37, np.float32)), np.ones(37), rtol=0)
