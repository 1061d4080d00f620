// tensor.gather parses in MLIR but rt rejects it as unsupported.
func.func @f() {
  %src = util.unfoldable_constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %idx = util.unfoldable_constant dense<[[1], [0]]> : tensor<2x1xindex>
  %g = tensor.gather %src[%idx] gather_dims([0]) : (tensor<2x2xf32>, tensor<2x1xindex>) -> tensor<2x1x2xf32>
  check.expect_eq_const(%g, dense<[[[3.0, 4.0]], [[1.0, 2.0]]]> : tensor<2x1x2xf32>) : tensor<2x1x2xf32>
  return
}
