// Four independent heads x @ w_i (32x256 * 256x64, f32) summed: small dispatches with little
// parallelism each, which a command buffer runs side by side (issue 10, item 4).
func.func @heads(%x: tensor<32x256xf32>, %w1: tensor<256x64xf32>, %w2: tensor<256x64xf32>,
                 %w3: tensor<256x64xf32>, %w4: tensor<256x64xf32>) -> tensor<32x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<32x64xf32>) -> tensor<32x64xf32>
  %a = linalg.matmul ins(%x, %w1 : tensor<32x256xf32>, tensor<256x64xf32>) outs(%f : tensor<32x64xf32>) -> tensor<32x64xf32>
  %b = linalg.matmul ins(%x, %w2 : tensor<32x256xf32>, tensor<256x64xf32>) outs(%f : tensor<32x64xf32>) -> tensor<32x64xf32>
  %c = linalg.matmul ins(%x, %w3 : tensor<32x256xf32>, tensor<256x64xf32>) outs(%f : tensor<32x64xf32>) -> tensor<32x64xf32>
  %d = linalg.matmul ins(%x, %w4 : tensor<32x256xf32>, tensor<256x64xf32>) outs(%f : tensor<32x64xf32>) -> tensor<32x64xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>,
                                        affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>,
                                        affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%a, %b, %c, %d : tensor<32x64xf32>, tensor<32x64xf32>, tensor<32x64xf32>, tensor<32x64xf32>)
      outs(%e : tensor<32x64xf32>) {
  ^bb0(%p: f32, %q: f32, %r: f32, %t: f32, %out: f32):
    %u = arith.addf %p, %q : f32
    %v = arith.addf %r, %t : f32
    %w = arith.addf %u, %v : f32
    linalg.yield %w : f32
  } -> tensor<32x64xf32>
  return %s : tensor<32x64xf32>
}
