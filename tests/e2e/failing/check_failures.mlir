// Every function here must FAIL its check: proves the check ops are live on each device
// (a runner that skipped them would pass every program).
func.func @expect_true_on_zero() {
  %a = util.unfoldable_constant 3 : i32
  %b = util.unfoldable_constant 4 : i32
  %eq = arith.cmpi eq, %a, %b : i32
  check.expect_true(%eq) : i1
  return
}

func.func @expect_false_on_one() {
  %a = util.unfoldable_constant 1 : i32
  check.expect_false(%a) : i32
  return
}

func.func @expect_eq_one_element_differs() {
  %a = util.unfoldable_constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %b = util.unfoldable_constant dense<[1, 2, 3, 5]> : tensor<4xi32>
  check.expect_eq(%a, %b) : tensor<4xi32>
  return
}

func.func @expect_eq_const_wrong_sum() {
  %a = util.unfoldable_constant dense<[1.0, 2.0]> : tensor<2xf32>
  %s = arith.addf %a, %a : tensor<2xf32>
  check.expect_eq_const(%s, dense<[2.0, 5.0]> : tensor<2xf32>) : tensor<2xf32>
  return
}

func.func @expect_almost_eq_const_outside_tolerance() {
  %a = util.unfoldable_constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %e = math.exp %a : tensor<3xf32>
  check.expect_almost_eq_const(%e, dense<[2.7182817, 7.3890562, 20.1]> : tensor<3xf32>, atol 1.0e-03) : tensor<3xf32>
  return
}

func.func @expect_almost_eq_matmul_off_by_one() {
  %a = util.unfoldable_constant dense<1.0> : tensor<3x5xf32>
  %b = util.unfoldable_constant dense<1.0> : tensor<5x4xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<3x4xf32>) -> tensor<3x4xf32>
  %c = linalg.matmul ins(%a, %b : tensor<3x5xf32>, tensor<5x4xf32>) outs(%f : tensor<3x4xf32>) -> tensor<3x4xf32>
  %want = util.unfoldable_constant dense<[[5.0, 5.0, 5.0, 5.0], [5.0, 5.0, 5.0, 5.0], [5.0, 5.0, 6.0, 5.0]]> : tensor<3x4xf32>
  check.expect_almost_eq(%c, %want) : tensor<3x4xf32>
  return
}

func.func @expect_eq_i8_wraps() {
  %a = util.unfoldable_constant dense<[127]> : tensor<1xi8>
  %one = arith.constant dense<[1]> : tensor<1xi8>
  %s = arith.addi %a, %one : tensor<1xi8>
  check.expect_eq_const(%s, dense<[127]> : tensor<1xi8>) : tensor<1xi8>
  return
}
