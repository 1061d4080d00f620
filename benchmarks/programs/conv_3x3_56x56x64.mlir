// conv_2d_nhwc_hwcf 1x58x58x64 * 3x3x64x64 -> 1x56x56x64 f32 (issue 10's conv case).
func.func @conv(%x: tensor<1x58x58x64xf32>, %w: tensor<3x3x64x64xf32>) -> tensor<1x56x56x64xf32> {
  %c = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x56x56x64xf32>
  %f = linalg.fill ins(%c : f32) outs(%e : tensor<1x56x56x64xf32>) -> tensor<1x56x56x64xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
     ins(%x, %w : tensor<1x58x58x64xf32>, tensor<3x3x64x64xf32>) outs(%f : tensor<1x56x56x64xf32>) -> tensor<1x56x56x64xf32>
  return %r : tensor<1x56x56x64xf32>
}
