// tensor.pad with a constant value: low/high padding on both dims, and 1-D i32 padding.
func.func @pad_2d() {
  %x = util.unfoldable_constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %pv = arith.constant -1.0 : f32
  %r = tensor.pad %x low[1, 0] high[0, 2] {
  ^bb0(%i: index, %j: index):
    tensor.yield %pv : f32
  } : tensor<2x2xf32> to tensor<3x4xf32>
  check.expect_eq_const(%r, dense<[[-1.0, -1.0, -1.0, -1.0], [1.0, 2.0, -1.0, -1.0], [3.0, 4.0, -1.0, -1.0]]> : tensor<3x4xf32>) : tensor<3x4xf32>
  return
}

func.func @pad_1d_i32() {
  %x = util.unfoldable_constant dense<[7, 8, 9]> : tensor<3xi32>
  %zero = arith.constant 0 : i32
  %r = tensor.pad %x low[2] high[1] {
  ^bb0(%i: index):
    tensor.yield %zero : i32
  } : tensor<3xi32> to tensor<6xi32>
  check.expect_eq_const(%r, dense<[0, 0, 7, 8, 9, 0]> : tensor<6xi32>) : tensor<6xi32>
  return
}
