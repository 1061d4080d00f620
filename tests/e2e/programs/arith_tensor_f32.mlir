// Elementwise arith on f32 tensors (add/sub/mul/div/rem, minimum/maximum, neg).
func.func @addf() {
  %a = util.unfoldable_constant dense<[1.5, -2.25, 3.0, -4.5]> : tensor<4xf32>
  %b = util.unfoldable_constant dense<[0.5, 1.5, -2.0, 2.0]> : tensor<4xf32>
  %r = arith.addf %a, %b : tensor<4xf32>
  check.expect_almost_eq_const(%r, dense<[2.0, -0.75, 1.0, -2.5]> : tensor<4xf32>) : tensor<4xf32>
  return
}

func.func @subf() {
  %a = util.unfoldable_constant dense<[1.5, -2.25, 3.0, -4.5]> : tensor<4xf32>
  %b = util.unfoldable_constant dense<[0.5, 1.5, -2.0, 2.0]> : tensor<4xf32>
  %r = arith.subf %a, %b : tensor<4xf32>
  check.expect_almost_eq_const(%r, dense<[1.0, -3.75, 5.0, -6.5]> : tensor<4xf32>) : tensor<4xf32>
  return
}

func.func @mulf() {
  %a = util.unfoldable_constant dense<[1.5, -2.25, 3.0, -4.5]> : tensor<4xf32>
  %b = util.unfoldable_constant dense<[0.5, 1.5, -2.0, 2.0]> : tensor<4xf32>
  %r = arith.mulf %a, %b : tensor<4xf32>
  check.expect_almost_eq_const(%r, dense<[0.75, -3.375, -6.0, -9.0]> : tensor<4xf32>) : tensor<4xf32>
  return
}

func.func @divf() {
  %a = util.unfoldable_constant dense<[1.5, -2.25, 3.0, -4.5]> : tensor<4xf32>
  %b = util.unfoldable_constant dense<[0.5, 1.5, -2.0, 2.0]> : tensor<4xf32>
  %r = arith.divf %a, %b : tensor<4xf32>
  check.expect_almost_eq_const(%r, dense<[3.0, -1.5, -1.5, -2.25]> : tensor<4xf32>) : tensor<4xf32>
  return
}

func.func @remf() {
  %a = util.unfoldable_constant dense<[1.5, -2.25, 3.0, -4.5]> : tensor<4xf32>
  %b = util.unfoldable_constant dense<[0.5, 1.5, -2.0, 2.0]> : tensor<4xf32>
  %r = arith.remf %a, %b : tensor<4xf32>
  check.expect_almost_eq_const(%r, dense<[0.0, -0.75, 1.0, -0.5]> : tensor<4xf32>) : tensor<4xf32>
  return
}

func.func @minimumf_maximumf() {
  %a = util.unfoldable_constant dense<[1.5, -2.25, 3.0, -4.5]> : tensor<4xf32>
  %b = util.unfoldable_constant dense<[0.5, 1.5, -2.0, 2.0]> : tensor<4xf32>
  %lo = arith.minimumf %a, %b : tensor<4xf32>
  %hi = arith.maximumf %a, %b : tensor<4xf32>
  check.expect_almost_eq_const(%lo, dense<[0.5, -2.25, -2.0, -4.5]> : tensor<4xf32>) : tensor<4xf32>
  check.expect_almost_eq_const(%hi, dense<[1.5, 1.5, 3.0, 2.0]> : tensor<4xf32>) : tensor<4xf32>
  return
}

func.func @negf() {
  %a = util.unfoldable_constant dense<[1.5, -2.25, 3.0, -4.5]> : tensor<4xf32>
  %r = arith.negf %a : tensor<4xf32>
  check.expect_almost_eq_const(%r, dense<[-1.5, 2.25, -3.0, 4.5]> : tensor<4xf32>) : tensor<4xf32>
  return
}
