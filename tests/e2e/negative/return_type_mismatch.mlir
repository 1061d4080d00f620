// A function returns tensor<4xf32> but declares tensor<4xi32>.
func.func private @g(%x: tensor<4xf32>) -> tensor<4xi32> {
  %y = arith.addf %x, %x : tensor<4xf32>
  return %y : tensor<4xf32>
}

func.func @f() {
  %x = util.unfoldable_constant dense<1.0> : tensor<4xf32>
  %r = call @g(%x) : (tensor<4xf32>) -> tensor<4xi32>
  check.expect_eq_const(%r, dense<2> : tensor<4xi32>) : tensor<4xi32>
  return
}
