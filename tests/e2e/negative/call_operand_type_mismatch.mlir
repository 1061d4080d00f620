// A call passes tensor<3xf32> to a helper that takes tensor<3xi32>.
func.func private @consume(%x: tensor<3xi32>) {
  check.expect_eq_const(%x, dense<[1, 2, 3]> : tensor<3xi32>) : tensor<3xi32>
  return
}

func.func @f() {
  %x = util.unfoldable_constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  call @consume(%x) : (tensor<3xf32>) -> ()
  return
}
