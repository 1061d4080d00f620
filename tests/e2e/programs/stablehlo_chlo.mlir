// CHLO ops JAX emits beside StableHLO (broadcasting binary ops, special functions), converted by
// iree-stablehlo-to-iree-input. Expected values computed with numpy and math.erf.

func.func @chlo_ops() {
  %a = util.unfoldable_constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %b = util.unfoldable_constant dense<[10.0, 20.0, 30.0]> : tensor<3xf32>
  %s = chlo.broadcast_add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  check.expect_almost_eq_const(%s, dense<[[11.0, 22.0, 33.0], [14.0, 25.0, 36.0]]> : tensor<2x3xf32>) : tensor<2x3xf32>
  %c = util.unfoldable_constant dense<[2.0, 0.5]> : tensor<2xf32>
  %m = "chlo.broadcast_multiply"(%a, %c) {broadcast_dimensions = array<i64: 0>} : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  check.expect_almost_eq_const(%m, dense<[[2.0, 4.0, 6.0], [2.0, 2.5, 3.0]]> : tensor<2x3xf32>) : tensor<2x3xf32>
  %x = util.unfoldable_constant dense<[-0.5, 0.0, 0.25, 0.75]> : tensor<4xf32>
  %erf = chlo.erf %x : tensor<4xf32> -> tensor<4xf32>
  check.expect_almost_eq_const(%erf, dense<[-0.5204999, 0.0, 0.2763264, 0.7111556]> : tensor<4xf32>) : tensor<4xf32>
  %y = util.unfoldable_constant dense<[-2.5, -0.5, 0.0, 0.3, 1.7, 4.0]> : tensor<6xf32>
  %erfc = chlo.erfc %y : tensor<6xf32> -> tensor<6xf32>
  check.expect_almost_eq_const(%erfc, dense<[1.9995930, 1.5204999, 1.0, 0.6713732, 0.0162095, 1.5417258e-08]> : tensor<6xf32>) : tensor<6xf32>
  %sinh = chlo.sinh %x : tensor<4xf32> -> tensor<4xf32>
  check.expect_almost_eq_const(%sinh, dense<[-0.5210953, 0.0, 0.2526123, 0.8223167]> : tensor<4xf32>) : tensor<4xf32>
  %atanh = chlo.atanh %x : tensor<4xf32> -> tensor<4xf32>
  check.expect_almost_eq_const(%atanh, dense<[-0.5493061, 0.0, 0.2554128, 0.9729551]> : tensor<4xf32>) : tensor<4xf32>
  %asin = chlo.asin %x : tensor<4xf32> -> tensor<4xf32>
  check.expect_almost_eq_const(%asin, dense<[-0.5235988, 0.0, 0.2526803, 0.8480621]> : tensor<4xf32>) : tensor<4xf32>
  %acos = chlo.acos %x : tensor<4xf32> -> tensor<4xf32>
  check.expect_almost_eq_const(%acos, dense<[2.0943951, 1.5707964, 1.3181161, 0.7227342]> : tensor<4xf32>) : tensor<4xf32>
  %cosh = chlo.cosh %x : tensor<4xf32> -> tensor<4xf32>
  check.expect_almost_eq_const(%cosh, dense<[1.127626, 1.0, 1.0314131, 1.2946833]> : tensor<4xf32>) : tensor<4xf32>
  %asinh = chlo.asinh %x : tensor<4xf32> -> tensor<4xf32>
  check.expect_almost_eq_const(%asinh, dense<[-0.4812118, 0.0, 0.2474665, 0.6931472]> : tensor<4xf32>) : tensor<4xf32>
  return
}
