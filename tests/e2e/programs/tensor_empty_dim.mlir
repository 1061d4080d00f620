// tensor.empty with dynamic sizes taken from tensor.dim of a dynamically shaped input, filled.
func.func @empty_like_dynamic() {
  %x = util.unfoldable_constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %d = tensor.cast %x : tensor<2x3xi32> to tensor<?x?xi32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = tensor.dim %d, %c0 : tensor<?x?xi32>
  %d1 = tensor.dim %d, %c1 : tensor<?x?xi32>
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %ok0 = arith.cmpi eq, %d0, %c2 : index
  %ok1 = arith.cmpi eq, %d1, %c3 : index
  check.expect_true(%ok0) : i1
  check.expect_true(%ok1) : i1
  %e = tensor.empty(%d1, %d0) : tensor<?x?xi32>
  %seven = arith.constant 7 : i32
  %f = linalg.fill ins(%seven : i32) outs(%e : tensor<?x?xi32>) -> tensor<?x?xi32>
  %s = tensor.cast %f : tensor<?x?xi32> to tensor<3x2xi32>
  check.expect_eq_const(%s, dense<7> : tensor<3x2xi32>) : tensor<3x2xi32>
  return
}

func.func @dim_of_static() {
  %x = util.unfoldable_constant dense<0.0> : tensor<5x9xf32>
  %c1 = arith.constant 1 : index
  %d1 = tensor.dim %x, %c1 : tensor<5x9xf32>
  %c9 = arith.constant 9 : index
  %ok = arith.cmpi eq, %d1, %c9 : index
  check.expect_true(%ok) : i1
  return
}
