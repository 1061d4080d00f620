// linalg convolutions as users write them: without strides/dilations (MLIR's default of 1),
// 1-D, 2-D, 3-D, grouped, FHWC filters, strides and dilations that differ per dim.
// Expected values computed with numpy (direct loops over the output and the window).

// no strides/dilations attributes: both default to 1
func.func @conv_2d_nhwc_hwcf_defaults() {
  %x = util.unfoldable_constant dense<[[[[-3.0, -3.0], [2.0, 0.0], [1.0, 1.0], [1.0, -3.0]], [[0.0, -2.0], [-1.0, 3.0], [0.0, -3.0], [0.0, -3.0]], [[2.0, 3.0], [3.0, 1.0], [3.0, -1.0], [-2.0, 0.0]], [[0.0, 1.0], [3.0, -2.0], [2.0, -3.0], [-1.0, 2.0]], [[-2.0, 1.0], [0.0, 0.0], [3.0, 2.0], [2.0, 0.0]]]]> : tensor<1x5x4x2xf32>
  %w = util.unfoldable_constant dense<[[[[3.0, 3.0, -3.0], [-2.0, -1.0, 0.0]], [[2.0, 0.0, 3.0], [-1.0, 3.0, 1.0]]], [[[2.0, -2.0, 1.0], [2.0, 3.0, 3.0]], [[3.0, -3.0, 2.0], [0.0, 1.0, -2.0]]], [[[-3.0, -3.0, 3.0], [3.0, -1.0, 0.0]], [[-2.0, -2.0, 3.0], [1.0, -3.0, -2.0]]]]> : tensor<3x2x2x3xf32>
  %o_z = arith.constant 0.0 : f32
  %o_e = tensor.empty() : tensor<1x3x3x3xf32>
  %o = linalg.fill ins(%o_z : f32) outs(%o_e : tensor<1x3x3x3xf32>) -> tensor<1x3x3x3xf32>
  %r = linalg.conv_2d_nhwc_hwcf ins(%x, %w : tensor<1x5x4x2xf32>, tensor<3x2x2x3xf32>) outs(%o : tensor<1x3x3x3xf32>) -> tensor<1x3x3x3xf32>
  check.expect_almost_eq_const(%r, dense<[[[[-8.0, -24.0, 14.0], [-2.0, 4.0, 32.0], [-8.0, -23.0, -3.0]], [[13.0, 7.0, 28.0], [-11.0, -30.0, 35.0], [-4.0, -16.0, -8.0]], [[25.0, 3.0, 11.0], [18.0, -28.0, 11.0], [-5.0, -13.0, -13.0]]]]> : tensor<1x3x3x3xf32>) : tensor<1x3x3x3xf32>
  return
}

// NCHW input, FCHW filter, default strides/dilations
func.func @conv_2d_nchw_fchw_defaults() {
  %x = util.unfoldable_constant dense<[[[[0.0, -2.0, -2.0, -1.0, -1.0], [1.0, 3.0, -2.0, -3.0, 1.0], [0.0, 2.0, -3.0, -1.0, 2.0], [-3.0, -3.0, -3.0, 3.0, -3.0]], [[3.0, 1.0, -2.0, 2.0, 3.0], [2.0, -3.0, -3.0, 0.0, 2.0], [-3.0, -3.0, -1.0, -1.0, -2.0], [-3.0, 0.0, 1.0, -2.0, -3.0]], [[3.0, -3.0, 0.0, 0.0, 1.0], [-1.0, -1.0, 3.0, 2.0, -3.0], [-2.0, 1.0, 3.0, -3.0, 0.0], [2.0, -1.0, 2.0, 3.0, 1.0]]], [[[3.0, -3.0, 0.0, -3.0, -1.0], [2.0, -1.0, -2.0, 0.0, 3.0], [0.0, 0.0, 3.0, -3.0, 0.0], [-2.0, -1.0, 0.0, 3.0, 2.0]], [[3.0, -1.0, -2.0, 1.0, -1.0], [1.0, 2.0, -2.0, -2.0, -1.0], [-1.0, 2.0, 2.0, -3.0, -1.0], [-2.0, 2.0, -3.0, 1.0, 0.0]], [[2.0, 2.0, 1.0, -3.0, 3.0], [0.0, 3.0, -1.0, -1.0, 3.0], [3.0, -1.0, 3.0, -3.0, 3.0], [2.0, -1.0, 1.0, 3.0, 3.0]]]]> : tensor<2x3x4x5xf32>
  %w = util.unfoldable_constant dense<[[[[0.0, 1.0, -2.0], [1.0, 3.0, 1.0]], [[0.0, 0.0, 0.0], [0.0, 3.0, -1.0]], [[-2.0, 1.0, -3.0], [-3.0, 2.0, -2.0]]], [[[-2.0, 0.0, 2.0], [-2.0, -2.0, 3.0]], [[1.0, 2.0, -3.0], [3.0, -1.0, 1.0]], [[-2.0, 3.0, -1.0], [-2.0, -3.0, -2.0]]]]> : tensor<2x3x2x3xf32>
  %o_z = arith.constant 0.0 : f32
  %o_e = tensor.empty() : tensor<2x2x3x3xf32>
  %o = linalg.fill ins(%o_z : f32) outs(%o_e : tensor<2x2x3x3xf32>) -> tensor<2x2x3x3xf32>
  %r = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<2x3x4x5xf32>, tensor<2x3x2x3xf32>) outs(%o : tensor<2x2x3x3xf32>) -> tensor<2x2x3x3xf32>
  check.expect_almost_eq_const(%r, dense<[[[[-10.0, -4.0, -13.0], [-4.0, 2.0, -20.0], [-24.0, 6.0, -16.0]], [[-17.0, -29.0, -6.0], [-30.0, -27.0, 13.0], [-18.0, 10.0, -24.0]]], [[[5.0, -8.0, -24.0], [-1.0, 24.0, -49.0], [-28.0, 14.0, -10.0]], [[-14.0, 5.0, -6.0], [10.0, -17.0, 8.0], [-17.0, 37.0, -52.0]]]]> : tensor<2x2x3x3xf32>) : tensor<2x2x3x3xf32>
  return
}

// FHWC filter with strides [2, 1] and dilations [1, 2]
func.func @conv_2d_nhwc_fhwc_strided_dilated() {
  %x = util.unfoldable_constant dense<[[[[-3.0, 0.0], [0.0, -3.0], [-2.0, 1.0], [-1.0, -2.0], [-3.0, -3.0], [1.0, -3.0], [2.0, 0.0]], [[-2.0, 1.0], [-2.0, -1.0], [0.0, 1.0], [-3.0, -1.0], [-3.0, -3.0], [-2.0, -1.0], [3.0, -1.0]], [[-3.0, 3.0], [0.0, -3.0], [-3.0, -3.0], [3.0, 0.0], [1.0, 3.0], [-1.0, 3.0], [-1.0, 1.0]], [[2.0, -3.0], [2.0, 2.0], [3.0, 1.0], [0.0, -2.0], [2.0, 0.0], [2.0, -3.0], [-1.0, 2.0]], [[1.0, 2.0], [1.0, 2.0], [2.0, 2.0], [1.0, -2.0], [-3.0, 2.0], [-1.0, -2.0], [-3.0, -3.0]], [[-3.0, -1.0], [-1.0, 0.0], [1.0, -1.0], [0.0, 1.0], [1.0, 1.0], [-3.0, -2.0], [2.0, 1.0]], [[-1.0, -1.0], [3.0, 2.0], [-1.0, -1.0], [-3.0, 2.0], [1.0, -1.0], [1.0, 0.0], [0.0, 1.0]]]]> : tensor<1x7x7x2xf32>
  %w = util.unfoldable_constant dense<[[[[2.0, -1.0], [-1.0, -2.0], [1.0, -3.0]], [[2.0, 0.0], [1.0, 2.0], [-1.0, 1.0]]], [[[0.0, -2.0], [3.0, -3.0], [-1.0, 0.0]], [[-3.0, -2.0], [2.0, 2.0], [1.0, 3.0]]]]> : tensor<2x2x3x2xf32>
  %o_z = arith.constant 0.0 : f32
  %o_e = tensor.empty() : tensor<1x3x3x2xf32>
  %o = linalg.fill ins(%o_z : f32) outs(%o_e : tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xf32>
  %r = linalg.conv_2d_nhwc_fhwc {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>} ins(%x, %w : tensor<1x7x7x2xf32>, tensor<2x2x3x2xf32>) outs(%o : tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xf32>
  check.expect_almost_eq_const(%r, dense<[[[[-2.0, -12.0], [10.0, 3.0], [-7.0, -18.0]], [[-1.0, 3.0], [-15.0, -5.0], [-3.0, -1.0]], [[-22.0, 14.0], [9.0, 2.0], [11.0, -8.0]]]]> : tensor<1x3x3x2xf32>) : tensor<1x3x3x2xf32>
  return
}

// 1-D convolution NWC x WCF, stride 2
func.func @conv_1d_nwc_wcf_stride2() {
  %x = util.unfoldable_constant dense<[[[1.0, 2.0, -3.0], [-1.0, -1.0, 1.0], [3.0, -1.0, 0.0], [2.0, -2.0, -1.0], [-2.0, -2.0, 1.0], [3.0, -2.0, 1.0], [1.0, 2.0, 1.0], [0.0, -3.0, 2.0], [-2.0, 0.0, 3.0]], [[0.0, -1.0, -3.0], [-2.0, 0.0, 2.0], [2.0, -2.0, 1.0], [1.0, 2.0, 0.0], [0.0, -1.0, 3.0], [0.0, -3.0, 0.0], [3.0, 2.0, -1.0], [3.0, -3.0, 2.0], [1.0, -3.0, 0.0]]]> : tensor<2x9x3xf32>
  %w = util.unfoldable_constant dense<[[[-1.0, -1.0], [-2.0, 2.0], [2.0, -3.0]], [[2.0, 1.0], [-2.0, -1.0], [-2.0, 0.0]], [[-3.0, 0.0], [-3.0, -3.0], [2.0, 0.0]]]> : tensor<3x3x2xf32>
  %o_z = arith.constant 0.0 : f32
  %o_e = tensor.empty() : tensor<2x4x2xf32>
  %o = linalg.fill ins(%o_z : f32) outs(%o_e : tensor<2x4x2xf32>) -> tensor<2x4x2xf32>
  %r = linalg.conv_1d_nwc_wcf {dilations = dense<1> : tensor<1xi64>, strides = dense<2> : tensor<1xi64>} ins(%x, %w : tensor<2x9x3xf32>, tensor<3x3x2xf32>) outs(%o : tensor<2x4x2xf32>) -> tensor<2x4x2xf32>
  check.expect_almost_eq_const(%r, dense<[[[-19.0, 15.0], [23.0, 5.0], [9.0, -6.0], [11.0, 3.0]], [[-10.0, 11.0], [11.0, -7.0], [-3.0, -14.0], [5.0, 19.0]]]> : tensor<2x4x2xf32>) : tensor<2x4x2xf32>
  return
}

// 1-D convolution NCW x FCW, dilation 2
func.func @conv_1d_ncw_fcw_dilated() {
  %x = util.unfoldable_constant dense<[[[-1.0, -1.0, 3.0, 3.0, 2.0, -3.0, -1.0, 2.0], [3.0, -2.0, -3.0, -3.0, 0.0, 3.0, -3.0, 3.0]]]> : tensor<1x2x8xf32>
  %w = util.unfoldable_constant dense<[[[-2.0, -3.0], [-3.0, 1.0]], [[0.0, -2.0], [2.0, 3.0]], [[3.0, 3.0], [-1.0, 0.0]]]> : tensor<3x2x2xf32>
  %o_z = arith.constant 0.0 : f32
  %o_e = tensor.empty() : tensor<1x3x6xf32>
  %o = linalg.fill ins(%o_z : f32) outs(%o_e : tensor<1x3x6xf32>) -> tensor<1x3x6xf32>
  %r = linalg.conv_1d_ncw_fcw {dilations = dense<2> : tensor<1xi64>, strides = dense<1> : tensor<1xi64>} ins(%x, %w : tensor<1x2x8xf32>, tensor<3x2x2xf32>) outs(%o : tensor<1x3x6xf32>) -> tensor<1x3x6xf32>
  check.expect_almost_eq_const(%r, dense<[[[-19.0, -4.0, -3.0, 15.0, -4.0, -6.0], [-9.0, -19.0, -10.0, 9.0, -7.0, 11.0], [3.0, 8.0, 18.0, 3.0, 3.0, -6.0]]]> : tensor<1x3x6xf32>) : tensor<1x3x6xf32>
  return
}

// 3-D convolution NDHWC x DHWCF, default strides
func.func @conv_3d_ndhwc_dhwcf() {
  %x = util.unfoldable_constant dense<[[[[[-3.0, -1.0], [-1.0, -2.0], [-3.0, 3.0], [-3.0, 2.0]], [[2.0, 0.0], [1.0, -1.0], [0.0, 2.0], [0.0, 3.0]], [[2.0, -3.0], [3.0, -2.0], [-2.0, -1.0], [2.0, 0.0]], [[2.0, -3.0], [2.0, -3.0], [-2.0, -2.0], [2.0, -1.0]]], [[[2.0, 2.0], [1.0, 1.0], [3.0, -3.0], [1.0, -3.0]], [[1.0, 0.0], [3.0, 3.0], [-3.0, 3.0], [-2.0, -1.0]], [[0.0, 3.0], [-1.0, 3.0], [-1.0, -1.0], [3.0, 2.0]], [[1.0, -1.0], [-3.0, -2.0], [-1.0, 1.0], [3.0, -3.0]]], [[[-3.0, 1.0], [-2.0, 2.0], [1.0, 3.0], [0.0, 0.0]], [[2.0, -3.0], [-2.0, 3.0], [-3.0, 3.0], [1.0, 3.0]], [[-2.0, 1.0], [-3.0, 1.0], [-3.0, -1.0], [-1.0, -2.0]], [[0.0, -1.0], [-3.0, 2.0], [-2.0, -1.0], [-1.0, 1.0]]]]]> : tensor<1x3x4x4x2xf32>
  %w = util.unfoldable_constant dense<[[[[[2.0, 0.0], [-3.0, 0.0]], [[1.0, 3.0], [3.0, -2.0]], [[-2.0, 0.0], [-2.0, -2.0]]], [[[-2.0, 3.0], [1.0, 0.0]], [[0.0, -1.0], [0.0, -2.0]], [[-3.0, 1.0], [0.0, -1.0]]]], [[[[0.0, -3.0], [2.0, -3.0]], [[0.0, -1.0], [2.0, 1.0]], [[-2.0, 0.0], [1.0, 3.0]]], [[[0.0, 3.0], [-1.0, 3.0]], [[3.0, 2.0], [2.0, 0.0]], [[3.0, 0.0], [1.0, -1.0]]]]]> : tensor<2x2x3x2x2xf32>
  %o_z = arith.constant 0.0 : f32
  %o_e = tensor.empty() : tensor<1x2x3x2x2xf32>
  %o = linalg.fill ins(%o_z : f32) outs(%o_e : tensor<1x2x3x2x2xf32>) -> tensor<1x2x3x2x2xf32>
  %r = linalg.conv_3d_ndhwc_dhwcf ins(%x, %w : tensor<1x3x4x4x2xf32>, tensor<2x2x3x2x2xf32>) outs(%o : tensor<1x2x3x2x2xf32>) -> tensor<1x2x3x2x2xf32>
  check.expect_almost_eq_const(%r, dense<[[[[[-8.0, -15.0], [-13.0, -31.0]], [[8.0, 21.0], [9.0, -8.0]], [[14.0, 10.0], [-3.0, -3.0]]], [[[13.0, 4.0], [10.0, 22.0]], [[11.0, 1.0], [1.0, -10.0]], [[1.0, -3.0], [-42.0, -15.0]]]]]> : tensor<1x2x3x2x2xf32>) : tensor<1x2x3x2x2xf32>
  return
}

// linalg.conv_2d: no batch, no channels
func.func @conv_2d_plain() {
  %x = util.unfoldable_constant dense<[[1.0, -1.0, 0.0, -3.0, -3.0, 2.0], [3.0, -2.0, -3.0, -3.0, 2.0, 0.0], [-2.0, 2.0, 0.0, 0.0, -3.0, -1.0], [2.0, 1.0, 0.0, -2.0, 1.0, -3.0], [3.0, 1.0, 2.0, 0.0, -1.0, 3.0]]> : tensor<5x6xf32>
  %w = util.unfoldable_constant dense<[[-3.0, -1.0, 2.0], [2.0, -2.0, -3.0]]> : tensor<2x3xf32>
  %o_z = arith.constant 0.0 : f32
  %o_e = tensor.empty() : tensor<4x4xf32>
  %o = linalg.fill ins(%o_z : f32) outs(%o_e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %r = linalg.conv_2d ins(%x, %w : tensor<5x6xf32>, tensor<2x3xf32>) outs(%o : tensor<4x4xf32>) -> tensor<4x4xf32>
  check.expect_almost_eq_const(%r, dense<[[17.0, 8.0, -9.0, 6.0], [-21.0, 7.0, 25.0, 16.0], [6.0, 2.0, -5.0, 4.0], [-9.0, -9.0, 11.0, -8.0]]> : tensor<4x4xf32>) : tensor<4x4xf32>
  return
}

// grouped convolution, 2 groups
func.func @conv_2d_ngchw_fgchw() {
  %x = util.unfoldable_constant dense<[[[[[3.0, -3.0, 2.0, 1.0, -3.0], [-2.0, -2.0, -3.0, 1.0, -3.0], [-1.0, -1.0, -3.0, -1.0, 1.0], [0.0, 0.0, 3.0, -2.0, -1.0], [1.0, -2.0, -1.0, 1.0, 1.0]], [[-3.0, -1.0, -1.0, -1.0, -1.0], [2.0, -1.0, 1.0, -3.0, 2.0], [0.0, -1.0, 1.0, 2.0, 2.0], [3.0, 3.0, 2.0, -1.0, 2.0], [1.0, -1.0, 0.0, -3.0, -2.0]]], [[[-3.0, 3.0, 3.0, 2.0, -2.0], [3.0, -2.0, 2.0, 2.0, 3.0], [2.0, -3.0, -3.0, -3.0, 3.0], [-2.0, 2.0, -1.0, 3.0, 1.0], [-3.0, 0.0, 1.0, 0.0, -2.0]], [[2.0, 1.0, -3.0, -2.0, 1.0], [-3.0, -3.0, -1.0, -2.0, -1.0], [2.0, -2.0, 1.0, 1.0, -1.0], [-3.0, -1.0, -1.0, 2.0, -3.0], [-2.0, 2.0, -3.0, 1.0, -2.0]]]]]> : tensor<1x2x2x5x5xf32>
  %w = util.unfoldable_constant dense<[[[[[0.0, -3.0, -2.0], [2.0, 3.0, -3.0], [3.0, 3.0, 1.0]], [[-2.0, 1.0, -1.0], [-1.0, 1.0, -2.0], [-1.0, 3.0, -1.0]]], [[[1.0, -3.0, 2.0], [-1.0, 1.0, -3.0], [-2.0, -2.0, -3.0]], [[3.0, 0.0, -2.0], [-2.0, -2.0, -2.0], [1.0, 0.0, 3.0]]]], [[[[2.0, -1.0, -1.0], [-1.0, 2.0, 2.0], [0.0, 2.0, 1.0]], [[1.0, 2.0, -2.0], [1.0, -2.0, -3.0], [2.0, -3.0, 1.0]]], [[[-2.0, 3.0, -3.0], [2.0, 3.0, -1.0], [3.0, -3.0, 3.0]], [[3.0, -2.0, 1.0], [2.0, 1.0, -3.0], [1.0, -3.0, -1.0]]]]]> : tensor<2x2x2x3x3xf32>
  %o_z = arith.constant 0.0 : f32
  %o_e = tensor.empty() : tensor<1x2x2x3x3xf32>
  %o = linalg.fill ins(%o_z : f32) outs(%o_e : tensor<1x2x2x3x3xf32>) -> tensor<1x2x2x3x3xf32>
  %r = linalg.conv_2d_ngchw_fgchw ins(%x, %w : tensor<1x2x2x5x5xf32>, tensor<2x2x2x3x3xf32>) outs(%o : tensor<1x2x2x3x3xf32>) -> tensor<1x2x2x3x3xf32>
  check.expect_almost_eq_const(%r, dense<[[[[[-8.0, -25.0, -5.0], [14.0, 14.0, -24.0], [-14.0, 24.0, -11.0]], [[-4.0, -16.0, 2.0], [-7.0, -8.0, -15.0], [-5.0, -3.0, -6.0]]], [[[25.0, 37.0, -18.0], [5.0, -6.0, -27.0], [18.0, -17.0, 17.0]], [[12.0, -12.0, 16.0], [-39.0, -5.0, -32.0], [-5.0, -5.0, -4.0]]]]]> : tensor<1x2x2x3x3xf32>) : tensor<1x2x2x3x3xf32>
  return
}
