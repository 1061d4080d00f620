"""``hal.tensor.import ... -> tensor<..xf64> as tensor<..xf32>`` and its export counterpart, the
form IREE's importers write when they narrow f64 data: the caller passes and receives f64
buffers, the program computes in f32 (rt-convert-hal-tensor-encodings), on both devices."""
import numpy as np
import pytest

import rt

SOURCE = """
util.func public @scale$async(%arg0: !hal.buffer_view, %arg1: !hal.fence, %arg2: !hal.fence) -> !hal.buffer_view attributes {inlining_policy = #util.inline.never, iree.abi.model = "coarse-fences", iree.abi.stub} {
  %two = arith.constant 2.000000e+00 : f32
  %0 = hal.tensor.import wait(%arg1) => %arg0 : !hal.buffer_view -> tensor<3x4xf64> as tensor<3x4xf32>
  %1 = tensor.empty() : tensor<3x4xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%0 : tensor<3x4xf32>) outs(%1 : tensor<3x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %two : f32
    linalg.yield %m : f32
  } -> tensor<3x4xf32>
  %3 = hal.tensor.barrier join(%2 : tensor<3x4xf32>) => %arg2 : !hal.fence
  %4 = hal.tensor.export %3 : tensor<3x4xf64> as tensor<3x4xf32> -> !hal.buffer_view
  util.return %4 : !hal.buffer_view
}
util.func public @scale(%arg0: !hal.buffer_view) -> !hal.buffer_view attributes {iree.abi.stub} {
  %0 = util.null : !hal.fence
  %c-1_i32 = arith.constant -1 : i32
  %c0 = arith.constant 0 : index
  %device_0 = hal.devices.get %c0 : !hal.device
  %fence = hal.fence.create device(%device_0 : !hal.device) flags("None") : !hal.fence
  %1 = util.call @scale$async(%arg0, %0, %fence) : (!hal.buffer_view, !hal.fence, !hal.fence) -> !hal.buffer_view
  %status = hal.fence.await until([%fence]) timeout_millis(%c-1_i32) flags("None") : i32
  util.return %1 : !hal.buffer_view
}
"""


@pytest.mark.parametrize("device", ["llvm-cpu", "vmvx"])
def test_narrowed_f64_import_and_export(device):
    module = rt.load(rt.compile(SOURCE, devices=[device]), devices=[f"local-sync://{device}"])
    x = np.linspace(-3, 3, 12).reshape(3, 4) + 1e-9  # f64 data; 1e-9 is lost in f32
    got = module.scale(x)
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got, (x.astype(np.float32) * 2).astype(np.float64))
    with pytest.raises(rt.InvalidArgumentError):
        module.scale(x.astype(np.float32))

