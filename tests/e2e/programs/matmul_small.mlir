// linalg.matmul on small f32 literals, accumulating into a fill and into a non-zero init.
func.func @matmul_2x3x4() {
  %a = util.unfoldable_constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %b = util.unfoldable_constant dense<[[1.0, 0.0, -1.0, 2.0], [0.5, 1.0, 0.0, -1.0], [2.0, -2.0, 1.0, 0.0]]> : tensor<3x4xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x4xf32>) -> tensor<2x4xf32>
  %c = linalg.matmul ins(%a, %b : tensor<2x3xf32>, tensor<3x4xf32>) outs(%f : tensor<2x4xf32>) -> tensor<2x4xf32>
  check.expect_almost_eq_const(%c, dense<[[8.0, -4.0, 2.0, 0.0], [18.5, -7.0, 2.0, 3.0]]> : tensor<2x4xf32>) : tensor<2x4xf32>
  return
}

func.func @matmul_accumulate_into_init() {
  %a = util.unfoldable_constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %b = util.unfoldable_constant dense<[[1.0, 1.0], [1.0, 1.0]]> : tensor<2x2xf32>
  %init = util.unfoldable_constant dense<[[100.0, 200.0], [300.0, 400.0]]> : tensor<2x2xf32>
  %c = linalg.matmul ins(%a, %b : tensor<2x2xf32>, tensor<2x2xf32>) outs(%init : tensor<2x2xf32>) -> tensor<2x2xf32>
  check.expect_almost_eq_const(%c, dense<[[103.0, 203.0], [307.0, 407.0]]> : tensor<2x2xf32>) : tensor<2x2xf32>
  return
}
