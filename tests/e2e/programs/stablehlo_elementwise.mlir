// StableHLO elementwise ops (JAX's pretty forms and the generic form), converted by
// iree-stablehlo-to-iree-input. Expected values computed with numpy.

func.func @float_binary() {
  %a = util.unfoldable_constant dense<[1.5, -2.25, 0.0, 4.0]> : tensor<4xf32>
  %b = util.unfoldable_constant dense<[0.5, 3.0, -1.0, 2.0]> : tensor<4xf32>
  %add = stablehlo.add %a, %b : tensor<4xf32>
  check.expect_almost_eq_const(%add, dense<[2.0, 0.75, -1.0, 6.0]> : tensor<4xf32>) : tensor<4xf32>
  %sub = "stablehlo.subtract"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  check.expect_almost_eq_const(%sub, dense<[1.0, -5.25, 1.0, 2.0]> : tensor<4xf32>) : tensor<4xf32>
  %mul = stablehlo.multiply %a, %b : tensor<4xf32>
  check.expect_almost_eq_const(%mul, dense<[0.75, -6.75, -0.0, 8.0]> : tensor<4xf32>) : tensor<4xf32>
  %div = stablehlo.divide %a, %b : tensor<4xf32>
  check.expect_almost_eq_const(%div, dense<[3.0, -0.75, -0.0, 2.0]> : tensor<4xf32>) : tensor<4xf32>
  %max = stablehlo.maximum %a, %b : tensor<4xf32>
  check.expect_almost_eq_const(%max, dense<[1.5, 3.0, 0.0, 4.0]> : tensor<4xf32>) : tensor<4xf32>
  %min = stablehlo.minimum %a, %b : tensor<4xf32>
  check.expect_almost_eq_const(%min, dense<[0.5, -2.25, -1.0, 2.0]> : tensor<4xf32>) : tensor<4xf32>
  %rem = stablehlo.remainder %a, %b : tensor<4xf32>
  check.expect_almost_eq_const(%rem, dense<[0.0, -2.25, 0.0, 0.0]> : tensor<4xf32>) : tensor<4xf32>
  %atan2 = stablehlo.atan2 %a, %b : tensor<4xf32>
  check.expect_almost_eq_const(%atan2, dense<[1.249046, -0.643501, 3.141593, 1.107149]> : tensor<4xf32>) : tensor<4xf32>
  return
}

func.func @float_unary() {
  %a = util.unfoldable_constant dense<[1.5, -2.25, 0.0, 4.0]> : tensor<4xf32>
  %logistic = stablehlo.logistic %a : tensor<4xf32>
  check.expect_almost_eq_const(%logistic, dense<[0.817575, 0.095349, 0.5, 0.982014]> : tensor<4xf32>) : tensor<4xf32>
  %sign = stablehlo.sign %a : tensor<4xf32>
  check.expect_almost_eq_const(%sign, dense<[1.0, -1.0, 0.0, 1.0]> : tensor<4xf32>) : tensor<4xf32>
  %tanh = stablehlo.tanh %a : tensor<4xf32>
  check.expect_almost_eq_const(%tanh, dense<[0.905148, -0.978026, 0.0, 0.999329]> : tensor<4xf32>) : tensor<4xf32>
  %neg = stablehlo.negate %a : tensor<4xf32>
  %abs = "stablehlo.abs"(%neg) : (tensor<4xf32>) -> tensor<4xf32>
  check.expect_almost_eq_const(%abs, dense<[1.5, 2.25, 0.0, 4.0]> : tensor<4xf32>) : tensor<4xf32>
  %one = stablehlo.constant dense<1.0> : tensor<4xf32>
  %shifted = stablehlo.add %abs, %one : tensor<4xf32>
  %rsqrt = stablehlo.rsqrt %shifted : tensor<4xf32>
  check.expect_almost_eq_const(%rsqrt, dense<[0.632456, 0.5547, 1.0, 0.447214]> : tensor<4xf32>) : tensor<4xf32>
  %b = util.unfoldable_constant dense<[0.5, 3.0, -1.0, 2.0]> : tensor<4xf32>
  %pow = stablehlo.power %shifted, %b : tensor<4xf32>
  check.expect_almost_eq_const(%pow, dense<[1.581139, 34.328125, 1.0, 25.0]> : tensor<4xf32>) : tensor<4xf32>
  %floor = stablehlo.floor %a : tensor<4xf32>
  check.expect_almost_eq_const(%floor, dense<[1.0, -3.0, 0.0, 4.0]> : tensor<4xf32>) : tensor<4xf32>
  %round = stablehlo.round_nearest_afz %a : tensor<4xf32>
  check.expect_almost_eq_const(%round, dense<[2.0, -2.0, 0.0, 4.0]> : tensor<4xf32>) : tensor<4xf32>
  return
}

func.func @integer_ops() {
  %i = util.unfoldable_constant dense<[7, -8, 3, 100]> : tensor<4xi32>
  %j = util.unfoldable_constant dense<[2, 3, -5, 7]> : tensor<4xi32>
  %div = stablehlo.divide %i, %j : tensor<4xi32>
  check.expect_eq_const(%div, dense<[3, -2, 0, 14]> : tensor<4xi32>) : tensor<4xi32>
  %rem = stablehlo.remainder %i, %j : tensor<4xi32>
  check.expect_eq_const(%rem, dense<[1, -2, 3, 2]> : tensor<4xi32>) : tensor<4xi32>
  %s = util.unfoldable_constant dense<[1, 31, 32, 40]> : tensor<4xi32>
  %shl = stablehlo.shift_left %i, %s : tensor<4xi32>
  check.expect_eq_const(%shl, dense<[14, 0, 0, 0]> : tensor<4xi32>) : tensor<4xi32>
  %shra = stablehlo.shift_right_arithmetic %i, %s : tensor<4xi32>
  check.expect_eq_const(%shra, dense<[3, -1, 0, 0]> : tensor<4xi32>) : tensor<4xi32>
  %shrl = stablehlo.shift_right_logical %i, %s : tensor<4xi32>
  check.expect_eq_const(%shrl, dense<[3, 1, 0, 0]> : tensor<4xi32>) : tensor<4xi32>
  %neg = stablehlo.negate %i : tensor<4xi32>
  %sign = stablehlo.sign %neg : tensor<4xi32>
  check.expect_eq_const(%sign, dense<[-1, 1, -1, -1]> : tensor<4xi32>) : tensor<4xi32>
  %not = stablehlo.not %i : tensor<4xi32>
  check.expect_eq_const(%not, dense<[-8, 7, -4, -101]> : tensor<4xi32>) : tensor<4xi32>
  %max = stablehlo.maximum %i, %j : tensor<4xi32>
  check.expect_eq_const(%max, dense<[7, 3, 3, 100]> : tensor<4xi32>) : tensor<4xi32>
  return
}

func.func @compare_select_clamp_convert() {
  %a = util.unfoldable_constant dense<[1.5, -2.25, 0.0, 4.0]> : tensor<4xf32>
  %b = util.unfoldable_constant dense<[0.5, 3.0, 0.0, 2.0]> : tensor<4xf32>
  %gt = stablehlo.compare GT, %a, %b, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %sel = stablehlo.select %gt, %a, %b : tensor<4xi1>, tensor<4xf32>
  check.expect_almost_eq_const(%sel, dense<[1.5, 3.0, 0.0, 4.0]> : tensor<4xf32>) : tensor<4xf32>
  %le = "stablehlo.compare"(%a, %b) {comparison_direction = #stablehlo<comparison_direction LE>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %le_i32 = stablehlo.convert %le : (tensor<4xi1>) -> tensor<4xi32>
  check.expect_eq_const(%le_i32, dense<[0, 1, 1, 0]> : tensor<4xi32>) : tensor<4xi32>
  %lo = stablehlo.constant dense<-1.0> : tensor<f32>
  %hi = stablehlo.constant dense<2.0> : tensor<f32>
  %clamped = stablehlo.clamp %lo, %a, %hi : (tensor<f32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  check.expect_almost_eq_const(%clamped, dense<[1.5, -1.0, 0.0, 2.0]> : tensor<4xf32>) : tensor<4xf32>
  %trunc = stablehlo.convert %a : (tensor<4xf32>) -> tensor<4xi32>
  check.expect_eq_const(%trunc, dense<[1, -2, 0, 4]> : tensor<4xi32>) : tensor<4xi32>
  %nonzero = stablehlo.convert %a : (tensor<4xf32>) -> tensor<4xi1>
  %nz_i8 = stablehlo.convert %nonzero : (tensor<4xi1>) -> tensor<4xi8>
  check.expect_eq_const(%nz_i8, dense<[1, 1, 0, 1]> : tensor<4xi8>) : tensor<4xi8>
  %bits = stablehlo.bitcast_convert %a : (tensor<4xf32>) -> tensor<4xi32>
  check.expect_eq_const(%bits, dense<[1069547520, -1072693248, 0, 1082130432]> : tensor<4xi32>) : tensor<4xi32>
  return
}

func.func @bit_counts() {
  %x = util.unfoldable_constant dense<[0, 1, 255, -1, 65536, 2147483647]> : tensor<6xi32>
  %c = stablehlo.count_leading_zeros %x : tensor<6xi32>
  check.expect_eq_const(%c, dense<[32, 31, 24, 0, 15, 1]> : tensor<6xi32>) : tensor<6xi32>
  %p = stablehlo.popcnt %x : tensor<6xi32>
  check.expect_eq_const(%p, dense<[0, 1, 8, 32, 1, 31]> : tensor<6xi32>) : tensor<6xi32>
  %y = util.unfoldable_constant dense<[0, 1, 16, -1, 100]> : tensor<5xi8>
  %cy = stablehlo.count_leading_zeros %y : tensor<5xi8>
  check.expect_eq_const(%cy, dense<[8, 7, 3, 0, 1]> : tensor<5xi8>) : tensor<5xi8>
  %py = stablehlo.popcnt %y : tensor<5xi8>
  check.expect_eq_const(%py, dense<[0, 1, 1, 8, 3]> : tensor<5xi8>) : tensor<5xi8>
  %z = util.unfoldable_constant dense<[0, 1, -1, 4294967296]> : tensor<4xi64>
  %cz = stablehlo.count_leading_zeros %z : tensor<4xi64>
  check.expect_eq_const(%cz, dense<[64, 63, 0, 31]> : tensor<4xi64>) : tensor<4xi64>
  return
}
