// tensor.insert_slice at column offset 4 of a 3x4 destination.
func.func @f() {
  %d = util.unfoldable_constant dense<0.0> : tensor<3x4xf32>
  %s = util.unfoldable_constant dense<1.0> : tensor<2x1xf32>
  %r = tensor.insert_slice %s into %d[0, 4] [2, 1] [1, 1] : tensor<2x1xf32> into tensor<3x4xf32>
  check.expect_almost_eq_const(%r, dense<0.0> : tensor<3x4xf32>) : tensor<3x4xf32>
  return
}
