// tensor.pad of a 3x2 tensor by one on each side of dim 1 declared to produce a tensor<3x5xf32>.
func.func @f() {
  %a = util.unfoldable_constant dense<1.0> : tensor<3x2xf32>
  %cst = arith.constant 0.0 : f32
  %p = tensor.pad %a low[0, 1] high[0, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %cst : f32
  } : tensor<3x2xf32> to tensor<3x5xf32>
  check.expect_almost_eq_const(%p, dense<1.0> : tensor<3x5xf32>) : tensor<3x5xf32>
  return
}
