// Two chained matmuls with constant (non-splat) right-hand sides: data tiling hoists each
// packed weight into a global set by its own initializer, which must run after the
// initializer uploading the constants it packs (issue 8: it used to read a null buffer).
func.func private @chain(%x: tensor<2x3xf32>) -> tensor<2x2xf32> {
  %w1 = arith.constant dense<[[1.0, 0.0, 2.0, -1.0], [0.5, 1.0, 0.0, 2.0], [-1.0, 3.0, 1.0, 0.0]]> : tensor<3x4xf32>
  %w2 = arith.constant dense<[[1.0, 2.0], [0.0, -1.0], [3.0, 1.0], [2.0, 0.5]]> : tensor<4x2xf32>
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<2x4xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x4xf32>) -> tensor<2x4xf32>
  %m1 = linalg.matmul ins(%x, %w1 : tensor<2x3xf32>, tensor<3x4xf32>) outs(%f1 : tensor<2x4xf32>) -> tensor<2x4xf32>
  %e2 = tensor.empty() : tensor<2x2xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x2xf32>) -> tensor<2x2xf32>
  %m2 = linalg.matmul ins(%m1, %w2 : tensor<2x4xf32>, tensor<4x2xf32>) outs(%f2 : tensor<2x2xf32>) -> tensor<2x2xf32>
  return %m2 : tensor<2x2xf32>
}

func.func @chained_constant_weights() {
  %x = util.unfoldable_constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %r = call @chain(%x) : (tensor<2x3xf32>) -> tensor<2x2xf32>
  check.expect_almost_eq_const(%r, dense<[[20.0, -6.5], [54.5, -5.0]]> : tensor<2x2xf32>) : tensor<2x2xf32>
  return
}
