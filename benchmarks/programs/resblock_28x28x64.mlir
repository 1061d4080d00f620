// Two-conv residual block at 28x28x64: conv+bias+relu, then conv+bias+residual+relu (issue 10).
func.func @resblock(%x: tensor<1x30x30x64xf32>, %w1: tensor<3x3x64x64xf32>, %b1: tensor<64xf32>, %w2: tensor<3x3x64x64xf32>, %b2: tensor<64xf32>) -> tensor<1x26x26x64xf32> {
  %c = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<1x28x28x64xf32>
  %f1 = linalg.fill ins(%c : f32) outs(%e1 : tensor<1x28x28x64xf32>) -> tensor<1x28x28x64xf32>
  %c1 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
     ins(%x, %w1 : tensor<1x30x30x64xf32>, tensor<3x3x64x64xf32>) outs(%f1 : tensor<1x28x28x64xf32>) -> tensor<1x28x28x64xf32>
  %r1 = linalg.generic {indexing_maps = [affine_map<(n,h,w,c)->(n,h,w,c)>, affine_map<(n,h,w,c)->(c)>, affine_map<(n,h,w,c)->(n,h,w,c)>], iterator_types = ["parallel","parallel","parallel","parallel"]}
     ins(%c1, %b1 : tensor<1x28x28x64xf32>, tensor<64xf32>) outs(%e1 : tensor<1x28x28x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    %m = arith.maximumf %s, %c : f32
    linalg.yield %m : f32
  } -> tensor<1x28x28x64xf32>
  %e2 = tensor.empty() : tensor<1x26x26x64xf32>
  %f2 = linalg.fill ins(%c : f32) outs(%e2 : tensor<1x26x26x64xf32>) -> tensor<1x26x26x64xf32>
  %c2 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
     ins(%r1, %w2 : tensor<1x28x28x64xf32>, tensor<3x3x64x64xf32>) outs(%f2 : tensor<1x26x26x64xf32>) -> tensor<1x26x26x64xf32>
  %skip = tensor.extract_slice %x[0, 2, 2, 0] [1, 26, 26, 64] [1, 1, 1, 1] : tensor<1x30x30x64xf32> to tensor<1x26x26x64xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(n,h,w,c)->(n,h,w,c)>, affine_map<(n,h,w,c)->(c)>, affine_map<(n,h,w,c)->(n,h,w,c)>, affine_map<(n,h,w,c)->(n,h,w,c)>], iterator_types = ["parallel","parallel","parallel","parallel"]}
     ins(%c2, %b2, %skip : tensor<1x26x26x64xf32>, tensor<64xf32>, tensor<1x26x26x64xf32>) outs(%e2 : tensor<1x26x26x64xf32>) {
  ^bb0(%a: f32, %b: f32, %s: f32, %o: f32):
    %t = arith.addf %a, %b : f32
    %u = arith.addf %t, %s : f32
    %m = arith.maximumf %u, %c : f32
    linalg.yield %m : f32
  } -> tensor<1x26x26x64xf32>
  return %y : tensor<1x26x26x64xf32>
}
