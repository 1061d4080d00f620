// linalg.transpose: 2-D f32, 3-D i32 with permutation [2, 0, 1], and an i8 transpose.
func.func @transpose_2d() {
  %x = util.unfoldable_constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %e = tensor.empty() : tensor<3x2xf32>
  %r = linalg.transpose ins(%x : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>) permutation = [1, 0]
  check.expect_eq_const(%r, dense<[[1.0, 4.0], [2.0, 5.0], [3.0, 6.0]]> : tensor<3x2xf32>) : tensor<3x2xf32>
  return
}

func.func @transpose_3d() {
  %x = util.unfoldable_constant dense<[[[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]],
                                       [[12, 13, 14, 15], [16, 17, 18, 19], [20, 21, 22, 23]]]> : tensor<2x3x4xi32>
  %e = tensor.empty() : tensor<4x2x3xi32>
  %r = linalg.transpose ins(%x : tensor<2x3x4xi32>) outs(%e : tensor<4x2x3xi32>) permutation = [2, 0, 1]
  check.expect_eq_const(%r, dense<[[[0, 4, 8], [12, 16, 20]], [[1, 5, 9], [13, 17, 21]],
                                   [[2, 6, 10], [14, 18, 22]], [[3, 7, 11], [15, 19, 23]]]> : tensor<4x2x3xi32>) : tensor<4x2x3xi32>
  return
}

func.func @transpose_i8() {
  %x = util.unfoldable_constant dense<[[1, -2], [3, -4], [5, -6]]> : tensor<3x2xi8>
  %e = tensor.empty() : tensor<2x3xi8>
  %r = linalg.transpose ins(%x : tensor<3x2xi8>) outs(%e : tensor<2x3xi8>) permutation = [1, 0]
  check.expect_eq_const(%r, dense<[[1, 3, 5], [-2, -4, -6]]> : tensor<2x3xi8>) : tensor<2x3xi8>
  return
}
