// linalg.matmul / batch_matmul / batch_reduce_matmul with explicit indexing_maps (transposed
// and broadcast operands), the matmul_transpose_* named forms, and quantized_matmul.
// Expected values computed with numpy (einsum over the maps' meaning).

// C[m,n] += A[k,m] * B[k,n]
func.func @matmul_transpose_a() {
  %a = util.unfoldable_constant dense<[[4.0, 1.0, 2.0], [4.0, 1.0, 2.0], [3.0, -2.0, -4.0], [-2.0, -2.0, 3.0]]> : tensor<4x3xf32>
  %b = util.unfoldable_constant dense<[[4.0, -4.0, 0.0, 3.0, -3.0], [3.0, -3.0, 0.0, 3.0, -2.0], [-1.0, -2.0, 2.0, -2.0, 4.0], [0.0, 0.0, 0.0, 1.0, 0.0]]> : tensor<4x5xf32>
  %c_z = arith.constant 0.0 : f32
  %c_e = tensor.empty() : tensor<3x5xf32>
  %c = linalg.fill ins(%c_z : f32) outs(%c_e : tensor<3x5xf32>) -> tensor<3x5xf32>
  %r = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
      ins(%a, %b : tensor<4x3xf32>, tensor<4x5xf32>) outs(%c : tensor<3x5xf32>) -> tensor<3x5xf32>
  check.expect_almost_eq_const(%r, dense<[[25.0, -34.0, 6.0, 16.0, -8.0], [9.0, -3.0, -4.0, 8.0, -13.0], [18.0, -6.0, -8.0, 23.0, -26.0]]> : tensor<3x5xf32>) : tensor<3x5xf32>
  return
}

// C[m,n] += A[m,k] * B[n,k]
func.func @matmul_transpose_b() {
  %a = util.unfoldable_constant dense<[[0.0, 4.0, 3.0, 3.0], [2.0, 1.0, -1.0, 4.0], [0.0, -3.0, 3.0, -3.0]]> : tensor<3x4xf32>
  %b = util.unfoldable_constant dense<[[3.0, 1.0, -3.0, -4.0], [0.0, -4.0, -3.0, 0.0], [4.0, 0.0, 3.0, 4.0], [3.0, 1.0, -1.0, 0.0], [-2.0, 0.0, -1.0, -2.0]]> : tensor<5x4xf32>
  %c_z = arith.constant 0.0 : f32
  %c_e = tensor.empty() : tensor<3x5xf32>
  %c = linalg.fill ins(%c_z : f32) outs(%c_e : tensor<3x5xf32>) -> tensor<3x5xf32>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %b : tensor<3x4xf32>, tensor<5x4xf32>) outs(%c : tensor<3x5xf32>) -> tensor<3x5xf32>
  check.expect_almost_eq_const(%r, dense<[[-17.0, -25.0, 21.0, 1.0, -9.0], [-6.0, -1.0, 21.0, 8.0, -11.0], [0.0, 3.0, -3.0, -6.0, 3.0]]> : tensor<3x5xf32>) : tensor<3x5xf32>
  return
}

// C[m,n] += A[k] * B[k,n] (A broadcast along m)
func.func @matmul_broadcast_lhs() {
  %a = util.unfoldable_constant dense<[4.0, -4.0, -4.0, -3.0]> : tensor<4xf32>
  %b = util.unfoldable_constant dense<[[4.0, 2.0, 3.0, -3.0, 2.0], [-1.0, 0.0, -4.0, 1.0, 3.0], [1.0, -3.0, 0.0, -2.0, 4.0], [3.0, -3.0, 0.0, 4.0, 3.0]]> : tensor<4x5xf32>
  %c_z = arith.constant 0.0 : f32
  %c_e = tensor.empty() : tensor<3x5xf32>
  %c = linalg.fill ins(%c_z : f32) outs(%c_e : tensor<3x5xf32>) -> tensor<3x5xf32>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %b : tensor<4xf32>, tensor<4x5xf32>) outs(%c : tensor<3x5xf32>) -> tensor<3x5xf32>
  check.expect_almost_eq_const(%r, dense<[[7.0, 29.0, 28.0, -20.0, -29.0], [7.0, 29.0, 28.0, -20.0, -29.0], [7.0, 29.0, 28.0, -20.0, -29.0]]> : tensor<3x5xf32>) : tensor<3x5xf32>
  return
}

// linalg.matmul_transpose_b accumulating into a non-zero init
func.func @matmul_transpose_b_named() {
  %a = util.unfoldable_constant dense<[[2.0, 1.0, -4.0, 2.0], [0.0, -4.0, -2.0, 0.0], [2.0, 0.0, 1.0, 3.0]]> : tensor<3x4xf32>
  %b = util.unfoldable_constant dense<[[2.0, -1.0, 1.0, 1.0], [-4.0, -4.0, 1.0, -1.0], [1.0, -2.0, -2.0, -3.0], [-1.0, 3.0, -1.0, -1.0], [1.0, 4.0, -1.0, 1.0]]> : tensor<5x4xf32>
  %c = util.unfoldable_constant dense<[[-1.0, 1.0, 0.0, 1.0, 0.0], [2.0, 4.0, -3.0, 1.0, -1.0], [-1.0, -2.0, -4.0, -1.0, 3.0]]> : tensor<3x5xf32>
  %r = linalg.matmul_transpose_b ins(%a, %b : tensor<3x4xf32>, tensor<5x4xf32>) outs(%c : tensor<3x5xf32>) -> tensor<3x5xf32>
  check.expect_almost_eq_const(%r, dense<[[0.0, -17.0, 2.0, 4.0, 12.0], [4.0, 18.0, 9.0, -9.0, -15.0], [7.0, -12.0, -13.0, -7.0, 7.0]]> : tensor<3x5xf32>) : tensor<3x5xf32>
  return
}

// C[b,m,n] += A[b,m,k] * B[b,n,k]
func.func @batch_matmul_transpose_b() {
  %a = util.unfoldable_constant dense<[[[-4.0, -1.0, 4.0, 4.0], [-3.0, -4.0, 2.0, -4.0], [-2.0, 0.0, 3.0, -4.0]], [[1.0, 0.0, -3.0, 3.0], [3.0, 0.0, 4.0, 1.0], [4.0, 4.0, 1.0, -2.0]]]> : tensor<2x3x4xf32>
  %b = util.unfoldable_constant dense<[[[-3.0, 1.0, -3.0, 2.0], [4.0, -2.0, 0.0, -4.0], [-3.0, -1.0, 3.0, 4.0], [1.0, 1.0, 1.0, -4.0], [-1.0, 4.0, -1.0, -3.0]], [[-2.0, 2.0, -4.0, 4.0], [3.0, 1.0, 0.0, 2.0], [0.0, 0.0, -2.0, 0.0], [2.0, -4.0, -4.0, 2.0], [-1.0, 3.0, -4.0, 4.0]]]> : tensor<2x5x4xf32>
  %c_z = arith.constant 0.0 : f32
  %c_e = tensor.empty() : tensor<2x3x5xf32>
  %c = linalg.fill ins(%c_z : f32) outs(%c_e : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %r = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
      ins(%a, %b : tensor<2x3x4xf32>, tensor<2x5x4xf32>) outs(%c : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  check.expect_almost_eq_const(%r, dense<[[[7.0, -30.0, 41.0, -17.0, -16.0], [-9.0, 12.0, 3.0, 11.0, -3.0], [-11.0, 8.0, -1.0, 17.0, 11.0]], [[22.0, 9.0, 6.0, 20.0, 23.0], [-18.0, 11.0, -8.0, -8.0, -15.0], [-12.0, 12.0, -2.0, -16.0, -4.0]]]> : tensor<2x3x5xf32>) : tensor<2x3x5xf32>
  return
}

// C[b,m,n] += A[b,m,k] * B[k,n] (B shared by every batch)
func.func @batch_matmul_broadcast_rhs() {
  %a = util.unfoldable_constant dense<[[[-3.0, -1.0, 4.0, -4.0], [1.0, 2.0, -1.0, -4.0], [0.0, -1.0, 3.0, 2.0]], [[-1.0, -4.0, 1.0, -2.0], [2.0, 3.0, -1.0, 4.0], [0.0, 0.0, 2.0, 3.0]]]> : tensor<2x3x4xf32>
  %b = util.unfoldable_constant dense<[[4.0, 4.0, -3.0, -1.0, 4.0], [-2.0, -4.0, 1.0, 2.0, 2.0], [3.0, 1.0, -3.0, 3.0, -1.0], [3.0, 3.0, 4.0, -4.0, 3.0]]> : tensor<4x5xf32>
  %c_z = arith.constant 0.0 : f32
  %c_e = tensor.empty() : tensor<2x3x5xf32>
  %c = linalg.fill ins(%c_z : f32) outs(%c_e : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %r = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (k, n)>, affine_map<(b, m, n, k) -> (b, m, n)>]
      ins(%a, %b : tensor<2x3x4xf32>, tensor<4x5xf32>) outs(%c : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  check.expect_almost_eq_const(%r, dense<[[[-10.0, -16.0, -20.0, 29.0, -30.0], [-15.0, -17.0, -14.0, 16.0, -3.0], [17.0, 13.0, -2.0, -1.0, 1.0]], [[1.0, 7.0, -12.0, 4.0, -19.0], [11.0, 7.0, 16.0, -15.0, 27.0], [15.0, 11.0, 6.0, -6.0, 7.0]]]> : tensor<2x3x5xf32>) : tensor<2x3x5xf32>
  return
}

// C[m,n] += sum over b of A[b] @ B[b]
func.func @batch_reduce_matmul() {
  %a = util.unfoldable_constant dense<[[[1.0, 0.0, 3.0, 4.0], [0.0, -4.0, 2.0, -2.0], [-2.0, -3.0, -3.0, 4.0]], [[-1.0, -4.0, -3.0, -1.0], [-1.0, -2.0, 4.0, 3.0], [1.0, 4.0, -1.0, -3.0]]]> : tensor<2x3x4xf32>
  %b = util.unfoldable_constant dense<[[[-2.0, -4.0, 4.0, -3.0, 0.0], [-3.0, 4.0, -3.0, 0.0, 4.0], [0.0, 4.0, 4.0, 2.0, 2.0], [1.0, 1.0, 3.0, -1.0, 4.0]], [[3.0, -1.0, -1.0, 2.0, 4.0], [-4.0, -4.0, -2.0, -1.0, -3.0], [0.0, 0.0, 4.0, 2.0, -2.0], [3.0, 3.0, 2.0, 2.0, -2.0]]]> : tensor<2x4x5xf32>
  %c_z = arith.constant 0.0 : f32
  %c_e = tensor.empty() : tensor<3x5xf32>
  %c = linalg.fill ins(%c_z : f32) outs(%c_e : tensor<3x5xf32>) -> tensor<3x5xf32>
  %r = linalg.batch_reduce_matmul ins(%a, %b : tensor<2x3x4xf32>, tensor<2x4x5xf32>) outs(%c : tensor<3x5xf32>) -> tensor<3x5xf32>
  check.expect_almost_eq_const(%r, dense<[[12.0, 26.0, 23.0, -7.0, 38.0], [24.0, 8.0, 41.0, 20.0, -32.0], [-5.0, -38.0, -18.0, -14.0, -2.0]]> : tensor<3x5xf32>) : tensor<3x5xf32>
  return
}

// C = (A - azp) @ (B - bzp) with i8 operands and i32 zero points
func.func @quantized_matmul_i8() {
  %a = util.unfoldable_constant dense<[[55, -94, 33, 107], [120, -52, -43, 30], [-27, 59, -77, -85]]> : tensor<3x4xi8>
  %b = util.unfoldable_constant dense<[[-116, -8, -74, -52, 106], [80, 87, 23, -100, 63], [26, 104, -6, -84, 24], [-12, 40, -32, -50, -96]]> : tensor<4x5xi8>
  %azp = arith.constant 3 : i32
  %bzp = arith.constant -7 : i32
  %c_z = arith.constant 0 : i32
  %c_e = tensor.empty() : tensor<3x5xi32>
  %c = linalg.fill ins(%c_z : i32) outs(%c_e : tensor<3x5xi32>) -> tensor<3x5xi32>
  %r = linalg.quantized_matmul ins(%a, %b, %azp, %bzp : tensor<3x4xi8>, tensor<4x5xi8>, i32, i32) outs(%c : tensor<3x5xi32>) -> tensor<3x5xi32>
  check.expect_eq_const(%r, dense<[[-13637, -952, -8964, -101, -9240], [-19191, -9124, -10210, 2231, 5542], [5942, -7722, 5810, 6086, 5882]]> : tensor<3x5xi32>) : tensor<3x5xi32>
  return
}
