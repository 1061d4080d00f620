// A chain that dispatch formation fuses and splits: scale (elementwise) -> matmul -> bias + relu
// -> row sum, with every intermediate also checked.
func.func @scale_matmul_bias_relu_sum() {
  %x = util.unfoldable_constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %w = util.unfoldable_constant dense<[[1.0, -1.0], [0.5, 0.5], [-1.0, 2.0]]> : tensor<3x2xf32>
  %b = util.unfoldable_constant dense<[0.5, -10.0]> : tensor<2xf32>
  %two = arith.constant dense<2.0> : tensor<2x3xf32>
  %xs = arith.mulf %x, %two : tensor<2x3xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %mm = linalg.matmul ins(%xs, %w : tensor<2x3xf32>, tensor<3x2xf32>) outs(%f : tensor<2x2xf32>) -> tensor<2x2xf32>
  check.expect_almost_eq_const(%mm, dense<[[-2.0, 12.0], [1.0, 21.0]]> : tensor<2x2xf32>) : tensor<2x2xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<2x2xf32>, tensor<2xf32>) outs(%e : tensor<2x2xf32>) {
  ^bb0(%v: f32, %bv: f32, %o: f32):
    %s = arith.addf %v, %bv : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<2x2xf32>
  check.expect_almost_eq_const(%y, dense<[[0.0, 2.0], [1.5, 11.0]]> : tensor<2x2xf32>) : tensor<2x2xf32>
  %er = tensor.empty() : tensor<2xf32>
  %fr = linalg.fill ins(%zero : f32) outs(%er : tensor<2xf32>) -> tensor<2xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%y : tensor<2x2xf32>) outs(%fr : tensor<2xf32>) {
  ^bb0(%v: f32, %a: f32):
    %r = arith.addf %v, %a : f32
    linalg.yield %r : f32
  } -> tensor<2xf32>
  check.expect_almost_eq_const(%s, dense<[2.0, 12.5]> : tensor<2xf32>) : tensor<2xf32>
  return
}
