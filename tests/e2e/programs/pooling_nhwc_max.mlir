// linalg.pooling_nhwc_max: 2x2 window, stride 2, over a 1x4x4x1 input, initialized with -inf.
func.func @max_pool_2x2_stride2() {
  %in = util.unfoldable_constant dense<[[[[1.0], [5.0], [-2.0], [0.0]],
                                         [[3.0], [-1.0], [4.0], [8.0]],
                                         [[-6.0], [2.0], [7.0], [7.0]],
                                         [[0.0], [9.0], [-3.0], [1.0]]]]> : tensor<1x4x4x1xf32>
  %window = tensor.empty() : tensor<2x2xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<1x2x2x1xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x2x2x1xf32>) -> tensor<1x2x2x1xf32>
  %r = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%in, %window : tensor<1x4x4x1xf32>, tensor<2x2xf32>) outs(%f : tensor<1x2x2x1xf32>) -> tensor<1x2x2x1xf32>
  check.expect_eq_const(%r, dense<[[[[5.0], [8.0]], [[9.0], [7.0]]]]> : tensor<1x2x2x1xf32>) : tensor<1x2x2x1xf32>
  return
}
