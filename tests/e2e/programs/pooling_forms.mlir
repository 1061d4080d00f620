// Poolings in every layout rt supports: NCHW, NHWC, NWC, NCW, NDHWC; sum, max, min and
// unsigned max; with and without strides/dilations. Expected values computed with numpy.

// pooling_nchw_max without attributes
func.func @pooling_nchw_max_defaults() {
  %x = util.unfoldable_constant dense<[[[[-3.0, 2.0, 3.0, -1.0, -2.0], [-2.0, 0.0, 2.0, 0.0, -1.0], [2.0, -1.0, 2.0, 2.0, 1.0], [-2.0, 2.0, 1.0, 2.0, 0.0], [-3.0, 3.0, -2.0, 1.0, 2.0]], [[3.0, 1.0, 3.0, -2.0, 1.0], [1.0, 0.0, 1.0, 0.0, -1.0], [1.0, -3.0, 0.0, 0.0, -2.0], [0.0, 1.0, -3.0, -1.0, -3.0], [1.0, -3.0, -2.0, 0.0, 0.0]]]]> : tensor<1x2x5x5xf32>
  %win = tensor.empty() : tensor<2x2xf32>
  %iv = arith.constant -1.0e+30 : f32
  %oe = tensor.empty() : tensor<1x2x4x4xf32>
  %o = linalg.fill ins(%iv : f32) outs(%oe : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %r = linalg.pooling_nchw_max ins(%x, %win : tensor<1x2x5x5xf32>, tensor<2x2xf32>) outs(%o : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  check.expect_almost_eq_const(%r, dense<[[[[2.0, 3.0, 3.0, 0.0], [2.0, 2.0, 2.0, 2.0], [2.0, 2.0, 2.0, 2.0], [3.0, 3.0, 2.0, 2.0]], [[3.0, 3.0, 3.0, 1.0], [1.0, 1.0, 1.0, 0.0], [1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 0.0, 0.0]]]]> : tensor<1x2x4x4xf32>) : tensor<1x2x4x4xf32>
  return
}

// pooling_nchw_sum, stride 2
func.func @pooling_nchw_sum_stride2() {
  %x = util.unfoldable_constant dense<[[[[3.0, 0.0, 2.0, -2.0, -3.0, 0.0], [3.0, -2.0, 1.0, -3.0, 2.0, 0.0], [0.0, -2.0, -1.0, 1.0, 0.0, 2.0], [-1.0, 1.0, 1.0, -2.0, -1.0, -2.0], [1.0, -1.0, 0.0, 2.0, -3.0, 0.0], [-3.0, 0.0, 2.0, -3.0, 1.0, 3.0]], [[-3.0, 3.0, -2.0, 1.0, -2.0, 1.0], [-1.0, -1.0, 0.0, 1.0, 1.0, 1.0], [-2.0, -3.0, -2.0, -1.0, 1.0, -1.0], [-1.0, -3.0, 1.0, -3.0, 0.0, 1.0], [1.0, -2.0, -1.0, 3.0, -3.0, 1.0], [0.0, 1.0, -1.0, -3.0, 0.0, -3.0]]], [[[3.0, 2.0, -2.0, -3.0, -1.0, 2.0], [3.0, 0.0, 1.0, 0.0, 2.0, -2.0], [0.0, 0.0, -3.0, -2.0, 3.0, 3.0], [-3.0, -3.0, 1.0, 1.0, -1.0, -2.0], [2.0, 1.0, 1.0, -3.0, 2.0, 3.0], [2.0, -1.0, -1.0, 3.0, 3.0, 3.0]], [[3.0, 2.0, -1.0, 0.0, 0.0, 3.0], [-3.0, -1.0, -1.0, 2.0, 2.0, -1.0], [-3.0, 1.0, -1.0, -3.0, 1.0, 0.0], [-1.0, -2.0, 0.0, -2.0, -1.0, 3.0], [0.0, -2.0, 0.0, 3.0, 3.0, 1.0], [3.0, 2.0, 1.0, -1.0, -2.0, 2.0]]]]> : tensor<2x2x6x6xf32>
  %win = tensor.empty() : tensor<2x2xf32>
  %iv = arith.constant 0.0 : f32
  %oe = tensor.empty() : tensor<2x2x3x3xf32>
  %o = linalg.fill ins(%iv : f32) outs(%oe : tensor<2x2x3x3xf32>) -> tensor<2x2x3x3xf32>
  %r = linalg.pooling_nchw_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %win : tensor<2x2x6x6xf32>, tensor<2x2xf32>) outs(%o : tensor<2x2x3x3xf32>) -> tensor<2x2x3x3xf32>
  check.expect_almost_eq_const(%r, dense<[[[[4.0, -2.0, -1.0], [-2.0, -1.0, -1.0], [-3.0, 1.0, 1.0]], [[-2.0, 0.0, 1.0], [-9.0, -5.0, 1.0], [0.0, -2.0, -5.0]]], [[[8.0, -4.0, 1.0], [-6.0, -3.0, 3.0], [4.0, 0.0, 11.0]], [[1.0, 0.0, 4.0], [-5.0, -6.0, 3.0], [3.0, 3.0, 4.0]]]]> : tensor<2x2x3x3xf32>) : tensor<2x2x3x3xf32>
  return
}

// pooling_nhwc_min on i32
func.func @pooling_nhwc_min_i32() {
  %x = util.unfoldable_constant dense<[[[[-3, 1, 3], [3, -3, -1], [1, 3, -1], [-2, 2, 3], [-3, 3, 1]], [[-3, 0, -1], [0, 3, 2], [3, 2, 1], [2, -3, -3], [-3, 2, -2]], [[0, 3, 3], [2, -3, -1], [3, 2, -3], [3, -2, -1], [-3, 3, 0]], [[-2, -2, -1], [-1, -3, -3], [-2, 1, 0], [3, -3, -3], [0, -3, -2]]]]> : tensor<1x4x5x3xi32>
  %win = tensor.empty() : tensor<2x3xi32>
  %iv = arith.constant 2147483647 : i32
  %oe = tensor.empty() : tensor<1x3x3x3xi32>
  %o = linalg.fill ins(%iv : i32) outs(%oe : tensor<1x3x3x3xi32>) -> tensor<1x3x3x3xi32>
  %r = linalg.pooling_nhwc_min ins(%x, %win : tensor<1x4x5x3xi32>, tensor<2x3xi32>) outs(%o : tensor<1x3x3x3xi32>) -> tensor<1x3x3x3xi32>
  check.expect_eq_const(%r, dense<[[[[-3, -3, -1], [-2, -3, -3], [-3, -3, -3]], [[-3, -3, -3], [0, -3, -3], [-3, -3, -3]], [[-2, -3, -3], [-2, -3, -3], [-3, -3, -3]]]]> : tensor<1x3x3x3xi32>) : tensor<1x3x3x3xi32>
  return
}

// pooling_nhwc_max_unsigned: i8 values compared as unsigned (-1 is 255)
func.func @pooling_nhwc_max_unsigned_i8() {
  %x = util.unfoldable_constant dense<[[[[106, 63], [6, -96], [31, -76], [105, -60]], [[-122, 21], [-46, 78], [-30, 64], [52, 61]], [[29, 46], [67, 11], [42, -41], [78, -82]], [[-121, 93], [84, -24], [15, 38], [-98, -111]]]]> : tensor<1x4x4x2xi8>
  %win = tensor.empty() : tensor<2x2xi8>
  %iv = arith.constant 0 : i8
  %oe = tensor.empty() : tensor<1x2x2x2xi8>
  %o = linalg.fill ins(%iv : i8) outs(%oe : tensor<1x2x2x2xi8>) -> tensor<1x2x2x2xi8>
  %r = linalg.pooling_nhwc_max_unsigned {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %win : tensor<1x4x4x2xi8>, tensor<2x2xi8>) outs(%o : tensor<1x2x2x2xi8>) -> tensor<1x2x2x2xi8>
  check.expect_eq_const(%r, dense<[[[[-46, -96], [-30, -60]], [[-121, -24], [-98, -41]]]]> : tensor<1x2x2x2xi8>) : tensor<1x2x2x2xi8>
  return
}

// pooling_nwc_sum, dilation 2
func.func @pooling_nwc_sum_dilated() {
  %x = util.unfoldable_constant dense<[[[0.0, -1.0], [-1.0, -3.0], [-2.0, -1.0], [3.0, 2.0], [3.0, -1.0], [0.0, 1.0], [0.0, -3.0], [1.0, -1.0]]]> : tensor<1x8x2xf32>
  %win = tensor.empty() : tensor<3xf32>
  %iv = arith.constant 0.0 : f32
  %oe = tensor.empty() : tensor<1x4x2xf32>
  %o = linalg.fill ins(%iv : f32) outs(%oe : tensor<1x4x2xf32>) -> tensor<1x4x2xf32>
  %r = linalg.pooling_nwc_sum {dilations = dense<2> : tensor<1xi64>, strides = dense<1> : tensor<1xi64>} ins(%x, %win : tensor<1x8x2xf32>, tensor<3xf32>) outs(%o : tensor<1x4x2xf32>) -> tensor<1x4x2xf32>
  check.expect_almost_eq_const(%r, dense<[[[1.0, -3.0], [2.0, 0.0], [1.0, -5.0], [4.0, 2.0]]]> : tensor<1x4x2xf32>) : tensor<1x4x2xf32>
  return
}

// pooling_ncw_max, defaults
func.func @pooling_ncw_max() {
  %x = util.unfoldable_constant dense<[[[1.0, 0.0, 0.0, 3.0, 3.0], [-1.0, -3.0, 1.0, -2.0, -3.0], [1.0, -2.0, -2.0, 2.0, 3.0]], [[0.0, 3.0, -3.0, 3.0, 3.0], [-1.0, 1.0, 0.0, -1.0, -2.0], [-1.0, -1.0, 2.0, -1.0, -3.0]]]> : tensor<2x3x5xf32>
  %win = tensor.empty() : tensor<2xf32>
  %iv = arith.constant -1.0e+30 : f32
  %oe = tensor.empty() : tensor<2x3x4xf32>
  %o = linalg.fill ins(%iv : f32) outs(%oe : tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %r = linalg.pooling_ncw_max ins(%x, %win : tensor<2x3x5xf32>, tensor<2xf32>) outs(%o : tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  check.expect_almost_eq_const(%r, dense<[[[1.0, 0.0, 3.0, 3.0], [-1.0, 1.0, 1.0, -2.0], [1.0, -2.0, 2.0, 3.0]], [[3.0, 3.0, 3.0, 3.0], [1.0, 1.0, 0.0, -1.0], [-1.0, 2.0, 2.0, -1.0]]]> : tensor<2x3x4xf32>) : tensor<2x3x4xf32>
  return
}

// pooling_ndhwc_sum, defaults
func.func @pooling_ndhwc_sum() {
  %x = util.unfoldable_constant dense<[[[[[-1.0, -1.0], [-3.0, 0.0], [0.0, 2.0], [-3.0, 2.0]], [[-3.0, -2.0], [3.0, -1.0], [1.0, 2.0], [-1.0, -1.0]], [[-1.0, -2.0], [0.0, 3.0], [-2.0, 2.0], [0.0, -1.0]]], [[[2.0, 0.0], [1.0, 3.0], [3.0, -2.0], [1.0, 3.0]], [[-3.0, 3.0], [-2.0, 2.0], [-2.0, 1.0], [1.0, 1.0]], [[-3.0, 0.0], [-1.0, 1.0], [3.0, -2.0], [1.0, 0.0]]], [[[-2.0, 1.0], [1.0, 0.0], [2.0, 1.0], [-2.0, 0.0]], [[-2.0, 2.0], [1.0, 2.0], [0.0, -3.0], [-3.0, 2.0]], [[1.0, -2.0], [1.0, -3.0], [-1.0, -3.0], [0.0, -1.0]]]]]> : tensor<1x3x3x4x2xf32>
  %win = tensor.empty() : tensor<2x2x2xf32>
  %iv = arith.constant 0.0 : f32
  %oe = tensor.empty() : tensor<1x2x2x3x2xf32>
  %o = linalg.fill ins(%iv : f32) outs(%oe : tensor<1x2x2x3x2xf32>) -> tensor<1x2x2x3x2xf32>
  %r = linalg.pooling_ndhwc_sum ins(%x, %win : tensor<1x3x3x4x2xf32>, tensor<2x2x2xf32>) outs(%o : tensor<1x2x2x3x2xf32>) -> tensor<1x2x2x3x2xf32>
  check.expect_almost_eq_const(%r, dense<[[[[[-6.0, 4.0], [1.0, 7.0], [0.0, 8.0]], [[-10.0, 4.0], [0.0, 8.0], [1.0, 2.0]]], [[[-4.0, 13.0], [4.0, 4.0], [0.0, 3.0]], [[-8.0, 5.0], [-1.0, -5.0], [-1.0, -5.0]]]]]> : tensor<1x2x2x3x2xf32>) : tensor<1x2x2x3x2xf32>
  return
}
