// 'same' convolution: tensor.pad (zero, 1 on each side) feeding linalg.conv_2d_nhwc_hwcf with a
// 3x3 all-ones filter, i.e. 3x3 box sums over a 1..9 grid.
func.func @conv_same_box_sum() {
  %x = util.unfoldable_constant dense<[[[[1.0], [2.0], [3.0]], [[4.0], [5.0], [6.0]], [[7.0], [8.0], [9.0]]]]> : tensor<1x3x3x1xf32>
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x3x3x1xf32> to tensor<1x5x5x1xf32>
  %w = arith.constant dense<1.0> : tensor<3x3x1x1xf32>
  %e = tensor.empty() : tensor<1x3x3x1xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x3x3x1xf32>) -> tensor<1x3x3x1xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : tensor<1x5x5x1xf32>, tensor<3x3x1x1xf32>) outs(%f : tensor<1x3x3x1xf32>) -> tensor<1x3x3x1xf32>
  check.expect_almost_eq_const(%r, dense<[[[[12.0], [21.0], [16.0]], [[27.0], [45.0], [33.0]], [[24.0], [39.0], [28.0]]]]> : tensor<1x3x3x1xf32>) : tensor<1x3x3x1xf32>
  return
}
