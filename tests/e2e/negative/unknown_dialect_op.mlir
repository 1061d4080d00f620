// An op from a dialect rt does not accept.
func.func @f() {
  %x = util.unfoldable_constant dense<[1.0, 2.0]> : tensor<2xf32>
  %y = foo.frobnicate %x : tensor<2xf32>
  check.expect_eq(%x, %y) : tensor<2xf32>
  return
}
