// The bundled example examples/test_constant_add.mlir (@test: collapse, add a dense constant,
// expand) as a check test.
func.func private @test(%arg0: tensor<1x10xf32>) -> tensor<1x10xf32> {
  %cst = arith.constant dense<[0.000000e+00, 0.00999999977, 2.000000e-02, 3.000000e-02, 4.000000e-02, 5.000000e-02, 6.000000e-02, 7.000000e-02, 8.000000e-02, 9.000000e-02]> : tensor<10xf32>
  %0 = tensor.collapse_shape %arg0 [[0, 1]] : tensor<1x10xf32> into tensor<10xf32>
  %1 = arith.addf %0, %cst : tensor<10xf32>
  %2 = tensor.expand_shape %1 [[0, 1]] output_shape [1, 10] : tensor<10xf32> into tensor<1x10xf32>
  return %2 : tensor<1x10xf32>
}

func.func @test_known_input() {
  %x = util.unfoldable_constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0]]> : tensor<1x10xf32>
  %r = call @test(%x) : (tensor<1x10xf32>) -> tensor<1x10xf32>
  check.expect_almost_eq_const(%r, dense<[[1.0, 2.01, 3.02, 4.03, 5.04, 6.05, 7.06, 8.07, 9.08, 10.09]]> : tensor<1x10xf32>) : tensor<1x10xf32>
  return
}
