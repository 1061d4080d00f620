// A program split across two devices, declared as IREE writes them (issue 5): the elementwise
// prologue runs on a vmvx device (@dev_a, the default affinity), the data-tiled matmul on an
// llvm-cpu device (@dev_b), and the product comes back to @dev_a for the epilogue.
// flow.tensor.transfer moves tensors between the devices' heaps; the compiled program
// submits the copies as queue work ordered by fences (no host round trip in between).
//
//   python -m rt compile examples/multi_device/split_vmvx_llvm.mlir -o /tmp/split.vmfb
//   python -m rt run /tmp/split.vmfb --device=local-task://vmvx --device=local-task://llvm-cpu \
//       --input=60x100xf32=0.5 --input=100x36xf32=0.25 --input=36xf32=-1
//
// computes relu(relu(x) @ w + bias): 60x36xf32=11.5 everywhere for the inputs above.
#vmvx = #hal.executable.target<"vmvx", "vmvx-bytecode-fb", {iree.encoding.resolver = #iree_cpu.vmvx_encoding_layout<>}>
#cpu = #hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {iree.encoding.resolver = #iree_cpu.cpu_encoding_layout<>, target_triple = "x86_64-unknown-unknown-eabi-elf", cpu_features = "+avx,+avx2,+fma"}>
#map = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (j)>
module attributes {stream.affinity.default = #hal.device.affinity<@dev_a>} {
  util.global private @dev_a = #hal.device.target<"local", {ordinal = 0 : index}, [#vmvx]> : !hal.device
  util.global private @dev_b = #hal.device.target<"local", {ordinal = 1 : index}, [#cpu]> : !hal.device

  func.func @split(%x: tensor<60x100xf32>, %w: tensor<100x36xf32>, %bias: tensor<36xf32>) -> tensor<60x36xf32> {
    %zero = arith.constant 0.0 : f32
    %e0 = tensor.empty() : tensor<60x100xf32>
    %relu = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
        ins(%x : tensor<60x100xf32>) outs(%e0 : tensor<60x100xf32>) {
    ^bb0(%a: f32, %o: f32):
      %m = arith.maximumf %a, %zero : f32
      linalg.yield %m : f32
    } -> tensor<60x100xf32>
    %xb = flow.tensor.transfer %relu : tensor<60x100xf32> to #hal.device.affinity<@dev_b>
    %wb = flow.tensor.transfer %w : tensor<100x36xf32> to #hal.device.affinity<@dev_b>
    %e1 = tensor.empty() : tensor<60x36xf32>
    %fill = linalg.fill {stream.affinity = #hal.device.affinity<@dev_b>} ins(%zero : f32) outs(%e1 : tensor<60x36xf32>) -> tensor<60x36xf32>
    %mm = linalg.matmul {stream.affinity = #hal.device.affinity<@dev_b>}
        ins(%xb, %wb : tensor<60x100xf32>, tensor<100x36xf32>) outs(%fill : tensor<60x36xf32>) -> tensor<60x36xf32>
    %back = flow.tensor.transfer %mm : tensor<60x36xf32> to #hal.device.affinity<@dev_a>
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
}
