// tensor.concat along each dimension of 2-D tensors, and of three 1-D i8 tensors.
func.func @concat_dim0() {
  %a = util.unfoldable_constant dense<[[1.0, 2.0]]> : tensor<1x2xf32>
  %b = util.unfoldable_constant dense<[[3.0, 4.0], [5.0, 6.0]]> : tensor<2x2xf32>
  %r = tensor.concat dim(0) %a, %b : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  check.expect_eq_const(%r, dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>) : tensor<3x2xf32>
  return
}

func.func @concat_dim1() {
  %a = util.unfoldable_constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %b = util.unfoldable_constant dense<[[5], [6]]> : tensor<2x1xi32>
  %r = tensor.concat dim(1) %a, %b : (tensor<2x2xi32>, tensor<2x1xi32>) -> tensor<2x3xi32>
  check.expect_eq_const(%r, dense<[[1, 2, 5], [3, 4, 6]]> : tensor<2x3xi32>) : tensor<2x3xi32>
  return
}

func.func @concat_three_i8() {
  %a = util.unfoldable_constant dense<[1, 2]> : tensor<2xi8>
  %b = util.unfoldable_constant dense<[-3]> : tensor<1xi8>
  %c = util.unfoldable_constant dense<[4, 5, 6]> : tensor<3xi8>
  %r = tensor.concat dim(0) %a, %b, %c : (tensor<2xi8>, tensor<1xi8>, tensor<3xi8>) -> tensor<6xi8>
  check.expect_eq_const(%r, dense<[1, 2, -3, 4, 5, 6]> : tensor<6xi8>) : tensor<6xi8>
  return
}
