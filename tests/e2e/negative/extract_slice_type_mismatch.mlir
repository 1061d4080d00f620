// tensor.extract_slice of sizes [3, 2] declared to produce a tensor<2x3xf32>.
func.func @f() {
  %a = util.unfoldable_constant dense<1.0> : tensor<4x4xf32>
  %s = tensor.extract_slice %a[0, 0] [3, 2] [1, 1] : tensor<4x4xf32> to tensor<2x3xf32>
  check.expect_almost_eq_const(%s, dense<1.0> : tensor<2x3xf32>) : tensor<2x3xf32>
  return
}
