// The program of split_vmvx_llvm.mlir without device declarations: its ops name the devices
// @a and @b by affinity and the compile flags say what they are (issue 5).
//
//   python -m rt compile examples/multi_device/split.mlir -o /tmp/split.vmfb --device=a=vmvx --device=b=llvm-cpu
//   python -m rt compile examples/multi_device/split.mlir -o /tmp/split2.vmfb --device=a=llvm-cpu --device=b=llvm-cpu
//   python -m rt run /tmp/split2.vmfb --device=local-task://llvm-cpu --device=local-task://llvm-cpu \
//       --input=60x100xf32=0.5 --input=100x36xf32=0.25 --input=36xf32=-1
//
// The function runs on @a (its stream.affinity); the matmul and its fill on @b.
#map = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (j)>
func.func @split(%x: tensor<60x100xf32>, %w: tensor<100x36xf32>, %bias: tensor<36xf32>) -> tensor<60x36xf32>
    attributes {stream.affinity = #hal.device.affinity<@a>} {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<60x100xf32>
  %relu = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<60x100xf32>) outs(%e0 : tensor<60x100xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<60x100xf32>
  %xb = flow.tensor.transfer %relu : tensor<60x100xf32> to #hal.device.affinity<@b>
  %wb = flow.tensor.transfer %w : tensor<100x36xf32> to #hal.device.affinity<@b>
  %e1 = tensor.empty() : tensor<60x36xf32>
  %fill = linalg.fill {stream.affinity = #hal.device.affinity<@b>} ins(%zero : f32) outs(%e1 : tensor<60x36xf32>) -> tensor<60x36xf32>
  %mm = linalg.matmul {stream.affinity = #hal.device.affinity<@b>}
      ins(%xb, %wb : tensor<60x100xf32>, tensor<100x36xf32>) outs(%fill : tensor<60x36xf32>) -> tensor<60x36xf32>
  %back = flow.tensor.transfer %mm : tensor<60x36xf32> to #hal.device.affinity<@a>
  %e2 = tensor.empty() : tensor<60x36xf32>
  %out = linalg.generic {indexing_maps = [#map, #row, #map], iterator_types = ["parallel", "parallel"]}
      ins(%back, %bias : tensor<60x36xf32>, tensor<36xf32>) outs(%e2 : tensor<60x36xf32>) {
  ^bb0(%p: f32, %b: f32, %o: f32):
    %s = arith.addf %p, %b : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<60x36xf32>
  return %out : tensor<60x36xf32>
}
