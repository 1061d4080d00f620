// linalg.pooling_nhwc_sum: 3x3 window, stride 1, over a 1x4x4x2 ramp (0..31), f32 and i32.
func.func @sum_pool_3x3_f32() {
  %in = util.unfoldable_constant dense<[[[[0.0, 1.0], [2.0, 3.0], [4.0, 5.0], [6.0, 7.0]],
                                         [[8.0, 9.0], [10.0, 11.0], [12.0, 13.0], [14.0, 15.0]],
                                         [[16.0, 17.0], [18.0, 19.0], [20.0, 21.0], [22.0, 23.0]],
                                         [[24.0, 25.0], [26.0, 27.0], [28.0, 29.0], [30.0, 31.0]]]]> : tensor<1x4x4x2xf32>
  %window = tensor.empty() : tensor<3x3xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x2x2xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %r = linalg.pooling_nhwc_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %window : tensor<1x4x4x2xf32>, tensor<3x3xf32>) outs(%f : tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  check.expect_almost_eq_const(%r, dense<[[[[90.0, 99.0], [108.0, 117.0]], [[162.0, 171.0], [180.0, 189.0]]]]> : tensor<1x2x2x2xf32>) : tensor<1x2x2x2xf32>
  return
}

func.func @sum_pool_2x2_i32() {
  %in = util.unfoldable_constant dense<[[[[1], [2], [3]], [[4], [5], [6]], [[7], [8], [9]]]]> : tensor<1x3x3x1xi32>
  %window = tensor.empty() : tensor<2x2xi32>
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<1x2x2x1xi32>
  %f = linalg.fill ins(%zero : i32) outs(%e : tensor<1x2x2x1xi32>) -> tensor<1x2x2x1xi32>
  %r = linalg.pooling_nhwc_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %window : tensor<1x3x3x1xi32>, tensor<2x2xi32>) outs(%f : tensor<1x2x2x1xi32>) -> tensor<1x2x2x1xi32>
  check.expect_eq_const(%r, dense<[[[[12], [16]], [[24], [28]]]]> : tensor<1x2x2x1xi32>) : tensor<1x2x2x1xi32>
  return
}
