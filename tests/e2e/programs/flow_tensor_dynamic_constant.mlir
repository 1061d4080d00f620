// flow.tensor.dynamic_constant: constants whose '?' dims the compiler cannot see through
// (IREE's tests use it to exercise dynamic shapes); dims read back with tensor.dim.
func.func @dense_rows_dynamic() {
  %x = flow.tensor.dynamic_constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32> -> tensor<?x3xf32>
  %y = arith.mulf %x, %x : tensor<?x3xf32>
  %r = tensor.cast %y : tensor<?x3xf32> to tensor<2x3xf32>
  check.expect_eq_const(%r, dense<[[1.0, 4.0, 9.0], [16.0, 25.0, 36.0]]> : tensor<2x3xf32>) : tensor<2x3xf32>
  return
}

func.func @splat_all_dynamic_dims() {
  %x = flow.tensor.dynamic_constant dense<5> : tensor<3x4xi32> -> tensor<?x?xi32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = tensor.dim %x, %c0 : tensor<?x?xi32>
  %d1 = tensor.dim %x, %c1 : tensor<?x?xi32>
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %ok0 = arith.cmpi eq, %d0, %c3 : index
  %ok1 = arith.cmpi eq, %d1, %c4 : index
  %ok = arith.andi %ok0, %ok1 : i1
  check.expect_true(%ok) : i1
  %y = arith.addi %x, %x : tensor<?x?xi32>
  %r = tensor.cast %y : tensor<?x?xi32> to tensor<3x4xi32>
  check.expect_eq_const(%r, dense<10> : tensor<3x4xi32>) : tensor<3x4xi32>
  return
}

func.func @static_result_type() {
  %x = flow.tensor.dynamic_constant dense<[7, -8]> : tensor<2xi8> -> tensor<2xi8>
  %y = arith.addi %x, %x : tensor<2xi8>
  check.expect_eq_const(%y, dense<[14, -16]> : tensor<2xi8>) : tensor<2xi8>
  return
}

func.func @dynamic_reduction_matmul() {
  %lhs = flow.tensor.dynamic_constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32> -> tensor<2x?xf32>
  %rhs = flow.tensor.dynamic_constant dense<[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]> : tensor<3x2xf32> -> tensor<?x2xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %p = linalg.matmul ins(%lhs, %rhs : tensor<2x?xf32>, tensor<?x2xf32>) outs(%acc : tensor<2x2xf32>) -> tensor<2x2xf32>
  check.expect_almost_eq_const(%p, dense<[[4.0, 5.0], [10.0, 11.0]]> : tensor<2x2xf32>) : tensor<2x2xf32>
  return
}
