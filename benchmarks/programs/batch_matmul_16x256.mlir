// batch_matmul 16x256x256x256 f32 (issue 10).
func.func @bmm(%a: tensor<16x256x256xf32>, %b: tensor<16x256x256xf32>) -> tensor<16x256x256xf32> {
  %c = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x256x256xf32>
  %f = linalg.fill ins(%c : f32) outs(%e : tensor<16x256x256xf32>) -> tensor<16x256x256xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<16x256x256xf32>, tensor<16x256x256xf32>) outs(%f : tensor<16x256x256xf32>) -> tensor<16x256x256xf32>
  return %r : tensor<16x256x256xf32>
}
