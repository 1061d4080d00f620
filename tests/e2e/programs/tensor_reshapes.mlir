// tensor.expand_shape, tensor.collapse_shape and tensor.reshape (shape given as a tensor).
func.func @expand_collapse() {
  %x = util.unfoldable_constant dense<[1, 2, 3, 4, 5, 6]> : tensor<6xi32>
  %e = tensor.expand_shape %x [[0, 1]] output_shape [2, 3] : tensor<6xi32> into tensor<2x3xi32>
  check.expect_eq_const(%e, dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>) : tensor<2x3xi32>
  %e3 = tensor.expand_shape %e [[0], [1, 2]] output_shape [2, 3, 1] : tensor<2x3xi32> into tensor<2x3x1xi32>
  %c = tensor.collapse_shape %e3 [[0, 1], [2]] : tensor<2x3x1xi32> into tensor<6x1xi32>
  check.expect_eq_const(%c, dense<[[1], [2], [3], [4], [5], [6]]> : tensor<6x1xi32>) : tensor<6x1xi32>
  return
}

func.func @collapse_then_compute() {
  %x = util.unfoldable_constant dense<[[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]]> : tensor<2x2x2xf32>
  %c = tensor.collapse_shape %x [[0], [1, 2]] : tensor<2x2x2xf32> into tensor<2x4xf32>
  %d = arith.addf %c, %c : tensor<2x4xf32>
  check.expect_eq_const(%d, dense<[[2.0, 4.0, 6.0, 8.0], [10.0, 12.0, 14.0, 16.0]]> : tensor<2x4xf32>) : tensor<2x4xf32>
  return
}

func.func @reshape_with_shape_tensor() {
  %x = util.unfoldable_constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %shape = arith.constant dense<[3, 2]> : tensor<2xi64>
  %r = tensor.reshape %x(%shape) : (tensor<2x3xi32>, tensor<2xi64>) -> tensor<3x2xi32>
  check.expect_eq_const(%r, dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi32>) : tensor<3x2xi32>
  return
}
