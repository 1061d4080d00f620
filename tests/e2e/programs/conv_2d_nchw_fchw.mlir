// linalg.conv_2d_nchw_fchw: 1x1x5x5 input (x^2/4 ramp), two 3x3 filters (Sobel-x, Laplacian), stride 2.
func.func @conv_nchw_fchw_stride2() {
  %in = util.unfoldable_constant dense<[[[[0.0, 0.25, 1.0, 2.25, 4.0],
                                          [6.25, 9.0, 12.25, 16.0, 20.25],
                                          [25.0, 30.25, 36.0, 42.25, 49.0],
                                          [56.25, 64.0, 72.25, 81.0, 90.25],
                                          [100.0, 110.25, 121.0, 132.25, 144.0]]]]> : tensor<1x1x5x5xf32>
  %w = util.unfoldable_constant dense<[[[[1.0, 0.0, -1.0], [2.0, 0.0, -2.0], [1.0, 0.0, -1.0]]],
                                       [[[0.0, 1.0, 0.0], [1.0, -4.0, 1.0], [0.0, 1.0, 0.0]]]]> : tensor<2x1x3x3xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x2x2xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%in, %w : tensor<1x1x5x5xf32>, tensor<2x1x3x3xf32>) outs(%f : tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  check.expect_almost_eq_const(%r, dense<[[[[-24.0, -32.0], [-64.0, -72.0]], [[13.0, 13.0], [13.0, 13.0]]]]> : tensor<1x2x2x2xf32>) : tensor<1x2x2x2xf32>
  return
}
