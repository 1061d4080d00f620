// tensor.extract_slice whose last row (2 + 4 * 2 = 10) is past the end of a 10-row tensor.
func.func @f() {
  %a = util.unfoldable_constant dense<1> : tensor<10x4xi32>
  %s = tensor.extract_slice %a[2, 0] [5, 4] [2, 1] : tensor<10x4xi32> to tensor<5x4xi32>
  check.expect_eq_const(%s, dense<1> : tensor<5x4xi32>) : tensor<5x4xi32>
  return
}
