// linalg.matmul with a 2x3 LHS and a 4x2 RHS: the reduction sizes disagree.
func.func @f() {
  %a = util.unfoldable_constant dense<1.0> : tensor<2x3xf32>
  %b = util.unfoldable_constant dense<1.0> : tensor<4x2xf32>
  %e = tensor.empty() : tensor<2x2xf32>
  %c = linalg.matmul ins(%a, %b : tensor<2x3xf32>, tensor<4x2xf32>) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  return
}
