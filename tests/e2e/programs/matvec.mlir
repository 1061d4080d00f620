// linalg.matvec: a 4x3 f32 matrix times a 3-vector.
func.func @matvec_4x3() {
  %m = util.unfoldable_constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [-1.0, 0.0, 1.0], [2.0, 2.0, 2.0]]> : tensor<4x3xf32>
  %v = util.unfoldable_constant dense<[0.5, -1.0, 2.0]> : tensor<3xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.matvec ins(%m, %v : tensor<4x3xf32>, tensor<3xf32>) outs(%f : tensor<4xf32>) -> tensor<4xf32>
  check.expect_almost_eq_const(%r, dense<[4.5, 9.0, 1.5, 3.0]> : tensor<4xf32>) : tensor<4xf32>
  return
}
