// linalg.broadcast: a vector to rows, a vector to columns, a 2-D tensor along a new middle dim.
func.func @broadcast_rows() {
  %v = util.unfoldable_constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %e = tensor.empty() : tensor<2x3xf32>
  %r = linalg.broadcast ins(%v : tensor<3xf32>) outs(%e : tensor<2x3xf32>) dimensions = [0]
  check.expect_eq_const(%r, dense<[[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]]> : tensor<2x3xf32>) : tensor<2x3xf32>
  return
}

func.func @broadcast_columns() {
  %v = util.unfoldable_constant dense<[7, -8]> : tensor<2xi32>
  %e = tensor.empty() : tensor<2x3xi32>
  %r = linalg.broadcast ins(%v : tensor<2xi32>) outs(%e : tensor<2x3xi32>) dimensions = [1]
  check.expect_eq_const(%r, dense<[[7, 7, 7], [-8, -8, -8]]> : tensor<2x3xi32>) : tensor<2x3xi32>
  return
}

func.func @broadcast_middle() {
  %v = util.unfoldable_constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %e = tensor.empty() : tensor<2x3x2xf32>
  %r = linalg.broadcast ins(%v : tensor<2x2xf32>) outs(%e : tensor<2x3x2xf32>) dimensions = [1]
  check.expect_eq_const(%r, dense<[[[1.0, 2.0], [1.0, 2.0], [1.0, 2.0]], [[3.0, 4.0], [3.0, 4.0], [3.0, 4.0]]]> : tensor<2x3x2xf32>) : tensor<2x3x2xf32>
  return
}
