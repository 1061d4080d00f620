// The bundled example examples/matmul_f32.mlir (@foo, dynamic-shape matmul) as a check test:
// @foo is kept as written (made private) and called with known inputs.
func.func private @foo(%lhs: tensor<?x?xf32>, %rhs: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %M = tensor.dim %lhs, %c0 : tensor<?x?xf32>
  %N = tensor.dim %rhs, %c1 : tensor<?x?xf32>
  %cst = arith.constant 0.0 : f32
  %init = tensor.empty(%M, %N) : tensor<?x?xf32>
  %fill = linalg.fill ins(%cst : f32) outs(%init : tensor<?x?xf32>) -> tensor<?x?xf32>
  %op = linalg.matmul
      ins(%lhs, %rhs : tensor<?x?xf32>, tensor<?x?xf32>)
      outs(%fill : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %op : tensor<?x?xf32>
}

// The README's quick-start inputs: 2x3xf32=1,2,3,4,5,6 and 3x2xf32=1,0,0,1,1,1.
func.func @foo_readme_inputs() {
  %a = util.unfoldable_constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %b = util.unfoldable_constant dense<[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]> : tensor<3x2xf32>
  %da = tensor.cast %a : tensor<2x3xf32> to tensor<?x?xf32>
  %db = tensor.cast %b : tensor<3x2xf32> to tensor<?x?xf32>
  %r = call @foo(%da, %db) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %s = tensor.cast %r : tensor<?x?xf32> to tensor<2x2xf32>
  check.expect_almost_eq_const(%s, dense<[[4.0, 5.0], [10.0, 11.0]]> : tensor<2x2xf32>) : tensor<2x2xf32>
  return
}

// The README's Python example: ones(37x53) @ ones(53x29) = 53 everywhere.
func.func @foo_ones_37x53x29() {
  %a = util.unfoldable_constant dense<1.0> : tensor<37x53xf32>
  %b = util.unfoldable_constant dense<1.0> : tensor<53x29xf32>
  %da = tensor.cast %a : tensor<37x53xf32> to tensor<?x?xf32>
  %db = tensor.cast %b : tensor<53x29xf32> to tensor<?x?xf32>
  %r = call @foo(%da, %db) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %s = tensor.cast %r : tensor<?x?xf32> to tensor<37x29xf32>
  check.expect_eq_const(%s, dense<53.0> : tensor<37x29xf32>) : tensor<37x29xf32>
  return
}
