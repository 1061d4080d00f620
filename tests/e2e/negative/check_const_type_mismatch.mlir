// check.expect_eq_const compares a tensor<2xf32> with an i32 constant.
func.func @f() {
  %x = util.unfoldable_constant dense<[1.0, 2.0]> : tensor<2xf32>
  %y = arith.addf %x, %x : tensor<2xf32>
  check.expect_eq_const(%y, dense<[2, 4]> : tensor<2xi32>) : tensor<2xf32>
  return
}
