// A 2-stage pipeline over two devices: layer 1 (matmul + relu) on @stage0, layer 2 (matmul)
// on @stage1, for two micro-batches; activations and the layer-2 weights cross the link with
// flow.tensor.transfer, the results come back to @stage0. The simulation report shows each
// stage's busy time and the link's traffic. Bound both device globals to one device
// (rt.load(..., devices=[d, d])) it is the single-device program, with the same results.
//
//   python -m rt compile examples/multi_device/pipeline.mlir -o /tmp/pipe.vmfb \
//       --device=stage0=llvm-cpu --device=stage1=llvm-cpu
//   python -m rt run /tmp/pipe.vmfb --topology=examples/multi_device/pipeline2.yaml --deterministic \
//       --input=@x0.npy --input=@x1.npy --input=@w1.npy --input=@w2.npy --report=r.json
#map = affine_map<(i, j) -> (i, j)>
func.func @pipeline(%x0: tensor<16x64xf32>, %x1: tensor<16x64xf32>, %w1: tensor<64x64xf32>,
                    %w2: tensor<64x32xf32>) -> (tensor<16x32xf32>, tensor<16x32xf32>)
    attributes {stream.affinity = #hal.device.affinity<@stage0>} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %a0 = linalg.matmul ins(%x0, %w1 : tensor<16x64xf32>, tensor<64x64xf32>) outs(%f : tensor<16x64xf32>) -> tensor<16x64xf32>
  %a1 = linalg.matmul ins(%x1, %w1 : tensor<16x64xf32>, tensor<64x64xf32>) outs(%f : tensor<16x64xf32>) -> tensor<16x64xf32>
  %h0 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%a0 : tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  } -> tensor<16x64xf32>
  %h1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%a1 : tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  } -> tensor<16x64xf32>
  %t0 = flow.tensor.transfer %h0 : tensor<16x64xf32> to #hal.device.affinity<@stage1>
  %t1 = flow.tensor.transfer %h1 : tensor<16x64xf32> to #hal.device.affinity<@stage1>
  %w2s = flow.tensor.transfer %w2 : tensor<64x32xf32> to #hal.device.affinity<@stage1>
  %e2 = tensor.empty() : tensor<16x32xf32>
  %f2 = linalg.fill {stream.affinity = #hal.device.affinity<@stage1>} ins(%zero : f32) outs(%e2 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %y0 = linalg.matmul {stream.affinity = #hal.device.affinity<@stage1>}
      ins(%t0, %w2s : tensor<16x64xf32>, tensor<64x32xf32>) outs(%f2 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %y1 = linalg.matmul {stream.affinity = #hal.device.affinity<@stage1>}
      ins(%t1, %w2s : tensor<16x64xf32>, tensor<64x32xf32>) outs(%f2 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %r0 = flow.tensor.transfer %y0 : tensor<16x32xf32> to #hal.device.affinity<@stage0>
  %r1 = flow.tensor.transfer %y1 : tensor<16x32xf32> to #hal.device.affinity<@stage0>
  return %r0, %r1 : tensor<16x32xf32>, tensor<16x32xf32>
}
