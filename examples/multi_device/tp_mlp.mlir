// A tensor-parallel MLP over 4 devices, written as upstream MLIR's SPMD `shard` dialect
// (Megatron-LM's split: column-parallel first layer, row-parallel second layer, one
// all_reduce). Every rank runs @mlp on its own shard of the weights:
//
//   x   : 8x64    replicated                 w1_r: 64x32  columns 32r..32r+31 of W1 (64x128)
//   b1_r: 32      entries 32r..32r+31 of b1  w2_r: 32x16  rows 32r..32r+31 of W2 (128x16)
//   b2  : 16      replicated
//
//   h_r = relu(x @ w1_r + b1_r)        (no communication: a column block of the hidden layer)
//   y   = all_reduce_sum(h_r @ w2_r) + b2   == relu(x @ W1 + b1) @ W2 + b2 on every rank
//
// Run it on four simulated GPUs (docs/MULTI_DEVICE.md walks through the report and trace):
//
//   python -m rt compile examples/multi_device/tp_mlp.mlir -o /tmp/tp_mlp.vmfb
//   python -m rt run /tmp/tp_mlp.vmfb --topology=examples/multi_device/tp4.yaml --ranks=4 \
//       --deterministic --input=@x.npy --input=@w1_{rank}.npy --input=@b1_{rank}.npy \
//       --input=@w2_{rank}.npy --input=@b2.npy --output=@y_{rank}.npy --report=r.json --trace=t.json
shard.grid @tp(shape = 4)

#map = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (j)>
func.func @mlp(%x: tensor<8x64xf32>, %w1: tensor<64x32xf32>, %b1: tensor<32xf32>,
               %w2: tensor<32x16xf32>, %b2: tensor<16xf32>) -> tensor<8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<8x32xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %xw = linalg.matmul ins(%x, %w1 : tensor<8x64xf32>, tensor<64x32xf32>) outs(%f0 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %h = linalg.generic {indexing_maps = [#map, #row, #map], iterator_types = ["parallel", "parallel"]}
      ins(%xw, %b1 : tensor<8x32xf32>, tensor<32xf32>) outs(%e0 : tensor<8x32xf32>) {
  ^bb0(%v: f32, %b: f32, %o: f32):
    %s = arith.addf %v, %b : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<8x32xf32>
  %e1 = tensor.empty() : tensor<8x16xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %partial = linalg.matmul ins(%h, %w2 : tensor<8x32xf32>, tensor<32x16xf32>) outs(%f1 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %sum = shard.all_reduce %partial on @tp grid_axes = [0] : tensor<8x16xf32> -> tensor<8x16xf32>
  %y = linalg.generic {indexing_maps = [#map, #row, #map], iterator_types = ["parallel", "parallel"]}
      ins(%sum, %b2 : tensor<8x16xf32>, tensor<16xf32>) outs(%e1 : tensor<8x16xf32>) {
  ^bb0(%v: f32, %b: f32, %o: f32):
    %s = arith.addf %v, %b : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}
