// IREE's coarse-fences ABI as its ONNX/torch importers emit it (after iree-compile
// --compile-to=input): @affine_relu$async takes the inputs, a wait fence and a signal fence;
// @affine_relu is the synchronous wrapper that makes the signal fence and awaits it.
util.func public @affine_relu$async(%arg0: !hal.buffer_view, %arg1: !hal.fence, %arg2: !hal.fence) -> !hal.buffer_view attributes {inlining_policy = #util.inline.never, iree.abi.model = "coarse-fences", iree.abi.stub} {
  %zero = arith.constant 0.000000e+00 : f32
  %w = arith.constant dense<[[1.0, -1.0, 0.5], [2.0, 0.0, -0.5], [0.0, 1.0, 1.0], [-1.0, 3.0, 2.0]]> : tensor<4x3xf32>
  %b = arith.constant dense<[0.5, -0.5, 1.0]> : tensor<3xf32>
  %0 = hal.tensor.import wait(%arg1) => %arg0 : !hal.buffer_view -> tensor<2x4xf32>
  %1 = tensor.empty() : tensor<2x3xf32>
  %2 = linalg.fill ins(%zero : f32) outs(%1 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = linalg.matmul ins(%0, %w : tensor<2x4xf32>, tensor<4x3xf32>) outs(%2 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%3, %b : tensor<2x3xf32>, tensor<3xf32>) outs(%1 : tensor<2x3xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %s = arith.addf %in, %in_1 : f32
    %gt = arith.cmpf ugt, %s, %zero : f32
    %r = arith.select %gt, %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<2x3xf32>
  %5 = hal.tensor.barrier join(%4 : tensor<2x3xf32>) => %arg2 : !hal.fence
  %6 = hal.tensor.export %5 : tensor<2x3xf32> -> !hal.buffer_view
  util.return %6 : !hal.buffer_view
}
util.func public @affine_relu(%arg0: !hal.buffer_view) -> !hal.buffer_view attributes {iree.abi.stub} {
  %0 = util.null : !hal.fence
  %c-1_i32 = arith.constant -1 : i32
  %c0 = arith.constant 0 : index
  %device_0 = hal.devices.get %c0 : !hal.device
  %fence = hal.fence.create device(%device_0 : !hal.device) flags("None") : !hal.fence
  %1 = util.call @affine_relu$async(%arg0, %0, %fence) : (!hal.buffer_view, !hal.fence, !hal.fence) -> !hal.buffer_view
  %status = hal.fence.await until([%fence]) timeout_millis(%c-1_i32) flags("None") : i32
  util.return %1 : !hal.buffer_view
}
