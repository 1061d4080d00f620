// linalg.conv_2d_nhwc_hwcf: 1x4x4x2 input, 3x3x2x2 filter, stride 1, no padding -> 1x2x2x2.
func.func @conv_nhwc_hwcf() {
  %in = util.unfoldable_constant dense<[[[[-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, -3.0]],
                                         [[-2.0, -1.0], [0.0, 1.0], [2.0, 3.0], [-3.0, -2.0]],
                                         [[-1.0, 0.0], [1.0, 2.0], [3.0, -3.0], [-2.0, -1.0]],
                                         [[0.0, 1.0], [2.0, 3.0], [-3.0, -2.0], [-1.0, 0.0]]]]> : tensor<1x4x4x2xf32>
  %w = util.unfoldable_constant dense<[[[[-1.0, -0.5], [0.0, 0.5]], [[1.0, -1.0], [-0.5, 0.0]], [[0.5, 1.0], [-1.0, -0.5]]],
                                       [[[0.0, 0.5], [1.0, -1.0]], [[-0.5, 0.0], [0.5, 1.0]], [[-1.0, -0.5], [0.0, 0.5]]],
                                       [[[1.0, -1.0], [-0.5, 0.0]], [[0.5, 1.0], [-1.0, -0.5]], [[0.0, 0.5], [1.0, -1.0]]]]> : tensor<3x3x2x2xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x2x2xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %w : tensor<1x4x4x2xf32>, tensor<3x3x2x2xf32>) outs(%f : tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  check.expect_almost_eq_const(%r, dense<[[[[-7.5, 8.5], [13.5, 10.0]], [[-7.5, 0.5], [3.0, -12.0]]]]> : tensor<1x2x2x2xf32>) : tensor<1x2x2x2xf32>
  return
}
