// linalg.matmul with i8 operands accumulating into i32 (sign-extended), the int8 GEMM case.
func.func @matmul_i8_i8_i32() {
  %a = util.unfoldable_constant dense<[[127, -128, 3], [-1, 2, 100]]> : tensor<2x3xi8>
  %b = util.unfoldable_constant dense<[[127, 1], [-128, 2], [5, -7]]> : tensor<3x2xi8>
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<2x2xi32>
  %f = linalg.fill ins(%zero : i32) outs(%e : tensor<2x2xi32>) -> tensor<2x2xi32>
  %c = linalg.matmul ins(%a, %b : tensor<2x3xi8>, tensor<3x2xi8>) outs(%f : tensor<2x2xi32>) -> tensor<2x2xi32>
  check.expect_eq_const(%c, dense<[[32528, -150], [117, -697]]> : tensor<2x2xi32>) : tensor<2x2xi32>
  return
}

func.func @matmul_i32() {
  %a = util.unfoldable_constant dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi32>
  %b = util.unfoldable_constant dense<[[7, 8, 9], [10, 11, 12]]> : tensor<2x3xi32>
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<3x3xi32>
  %f = linalg.fill ins(%zero : i32) outs(%e : tensor<3x3xi32>) -> tensor<3x3xi32>
  %c = linalg.matmul ins(%a, %b : tensor<3x2xi32>, tensor<2x3xi32>) outs(%f : tensor<3x3xi32>) -> tensor<3x3xi32>
  check.expect_eq_const(%c, dense<[[27, 30, 33], [61, 68, 75], [95, 106, 117]]> : tensor<3x3xi32>) : tensor<3x3xi32>
  return
}
