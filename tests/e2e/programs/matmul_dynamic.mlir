// linalg.matmul on dynamically shaped operands (tensor.cast to ?x?), sizes from tensor.dim.
func.func @matmul_dynamic_3x4x2() {
  %a0 = util.unfoldable_constant dense<[[1.0, 0.0, 2.0, -1.0], [0.0, 1.0, 1.0, 1.0], [2.0, 2.0, 0.0, 0.5]]> : tensor<3x4xf32>
  %b0 = util.unfoldable_constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]> : tensor<4x2xf32>
  %a = tensor.cast %a0 : tensor<3x4xf32> to tensor<?x?xf32>
  %b = tensor.cast %b0 : tensor<4x2xf32> to tensor<?x?xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %n = tensor.dim %b, %c1 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %c = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%f : tensor<?x?xf32>) -> tensor<?x?xf32>
  %s = tensor.cast %c : tensor<?x?xf32> to tensor<3x2xf32>
  check.expect_almost_eq_const(%s, dense<[[4.0, 6.0], [15.0, 18.0], [11.5, 16.0]]> : tensor<3x2xf32>) : tensor<3x2xf32>
  return
}
