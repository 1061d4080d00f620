// linalg.batch_matmul: two batches of 2x3 @ 3x2 in f32.
func.func @batch_matmul_2x2x3x2() {
  %a = util.unfoldable_constant dense<[[[-5.0, -4.0, -3.0], [-2.0, -1.0, 0.0]], [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]]> : tensor<2x2x3xf32>
  %b = util.unfoldable_constant dense<[[[0.0, 0.5], [1.0, 1.5], [2.0, 2.5]], [[3.0, 3.5], [4.0, 4.5], [5.0, 5.5]]]> : tensor<2x3x2xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2x2xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x2x2xf32>) -> tensor<2x2x2xf32>
  %c = linalg.batch_matmul ins(%a, %b : tensor<2x2x3xf32>, tensor<2x3x2xf32>) outs(%f : tensor<2x2x2xf32>) -> tensor<2x2x2xf32>
  check.expect_almost_eq_const(%c, dense<[[[-10.0, -16.0], [-1.0, -2.5]], [[26.0, 29.0], [62.0, 69.5]]]> : tensor<2x2x2xf32>) : tensor<2x2x2xf32>
  return
}
