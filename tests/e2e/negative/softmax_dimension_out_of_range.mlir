// linalg.softmax along dimension 2 of a rank-2 tensor.
func.func @f() {
  %a = util.unfoldable_constant dense<1.0> : tensor<2x3xf32>
  %e = tensor.empty() : tensor<2x3xf32>
  %s = linalg.softmax dimension(2) ins(%a : tensor<2x3xf32>) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  check.expect_almost_eq_const(%s, dense<1.0> : tensor<2x3xf32>) : tensor<2x3xf32>
  return
}
