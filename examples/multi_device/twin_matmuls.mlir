// Two independent 512x512x512 matmuls, one per device (issue 5): @a multiplies the first pair,
// @b the second (transferred to it), and @b's product comes back to @a. Nothing orders the
// two devices' work, so the compiled program submits both before it waits on either and the
// dispatches overlap in time (see --trace).
//
//   python -m rt compile examples/multi_device/twin_matmuls.mlir -o /tmp/twin.vmfb --device=a=llvm-cpu --device=b=llvm-cpu
//   python -m rt run /tmp/twin.vmfb --device=local-task://llvm-cpu --device=local-task://llvm-cpu \
//       --input=512x512xf32=1 --input=512x512xf32=1 --input=512x512xf32=1 --input=512x512xf32=1 \
//       --output=@y0.npy --output=@y1.npy --trace=twin.json
func.func @twin(%a0: tensor<512x512xf32>, %b0: tensor<512x512xf32>, %a1: tensor<512x512xf32>, %b1: tensor<512x512xf32>)
    -> (tensor<512x512xf32>, tensor<512x512xf32>) attributes {stream.affinity = #hal.device.affinity<@a>} {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<512x512xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<512x512xf32>) -> tensor<512x512xf32>
  %m0 = linalg.matmul ins(%a0, %b0 : tensor<512x512xf32>, tensor<512x512xf32>) outs(%f0 : tensor<512x512xf32>) -> tensor<512x512xf32>
  %a1b = flow.tensor.transfer %a1 : tensor<512x512xf32> to #hal.device.affinity<@b>
  %b1b = flow.tensor.transfer %b1 : tensor<512x512xf32> to #hal.device.affinity<@b>
  %e1 = tensor.empty() : tensor<512x512xf32>
  %f1 = linalg.fill {stream.affinity = #hal.device.affinity<@b>} ins(%zero : f32) outs(%e1 : tensor<512x512xf32>) -> tensor<512x512xf32>
  %m1 = linalg.matmul {stream.affinity = #hal.device.affinity<@b>} ins(%a1b, %b1b : tensor<512x512xf32>, tensor<512x512xf32>) outs(%f1 : tensor<512x512xf32>) -> tensor<512x512xf32>
  %m1a = flow.tensor.transfer %m1 : tensor<512x512xf32> to #hal.device.affinity<@a>
  return %m0, %m1a : tensor<512x512xf32>, tensor<512x512xf32>
}
