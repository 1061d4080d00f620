// cmpf / cmpi on tensors producing i1 tensors, and select with a tensor condition.
func.func @cmpf_select() {
  %a = util.unfoldable_constant dense<[1.0, -2.0, 3.0, 4.0]> : tensor<4xf32>
  %b = util.unfoldable_constant dense<[2.0, -3.0, 3.0, -4.0]> : tensor<4xf32>
  %lt = arith.cmpf olt, %a, %b : tensor<4xf32>
  %r = arith.select %lt, %a, %b : tensor<4xi1>, tensor<4xf32>
  check.expect_eq_const(%lt, dense<[true, false, false, false]> : tensor<4xi1>) : tensor<4xi1>
  check.expect_eq_const(%r, dense<[1.0, -3.0, 3.0, -4.0]> : tensor<4xf32>) : tensor<4xf32>
  return
}

func.func @cmpf_predicates() {
  %a = util.unfoldable_constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %b = util.unfoldable_constant dense<[2.0, 2.0, 2.0]> : tensor<3xf32>
  %oeq = arith.cmpf oeq, %a, %b : tensor<3xf32>
  %one = arith.cmpf one, %a, %b : tensor<3xf32>
  %ogt = arith.cmpf ogt, %a, %b : tensor<3xf32>
  %ole = arith.cmpf ole, %a, %b : tensor<3xf32>
  %oge = arith.cmpf oge, %a, %b : tensor<3xf32>
  check.expect_eq_const(%oeq, dense<[false, true, false]> : tensor<3xi1>) : tensor<3xi1>
  check.expect_eq_const(%one, dense<[true, false, true]> : tensor<3xi1>) : tensor<3xi1>
  check.expect_eq_const(%ogt, dense<[false, false, true]> : tensor<3xi1>) : tensor<3xi1>
  check.expect_eq_const(%ole, dense<[true, true, false]> : tensor<3xi1>) : tensor<3xi1>
  check.expect_eq_const(%oge, dense<[false, true, true]> : tensor<3xi1>) : tensor<3xi1>
  return
}

func.func @cmpi_select() {
  %a = util.unfoldable_constant dense<[5, -5, 0, -1]> : tensor<4xi32>
  %b = util.unfoldable_constant dense<[3, 3, 0, 1]> : tensor<4xi32>
  %slt = arith.cmpi slt, %a, %b : tensor<4xi32>
  %ult = arith.cmpi ult, %a, %b : tensor<4xi32>
  %eq = arith.cmpi eq, %a, %b : tensor<4xi32>
  %ne = arith.cmpi ne, %a, %b : tensor<4xi32>
  %sge = arith.cmpi sge, %a, %b : tensor<4xi32>
  %r = arith.select %slt, %a, %b : tensor<4xi1>, tensor<4xi32>
  check.expect_eq_const(%slt, dense<[false, true, false, true]> : tensor<4xi1>) : tensor<4xi1>
  check.expect_eq_const(%ult, dense<[false, false, false, false]> : tensor<4xi1>) : tensor<4xi1>
  check.expect_eq_const(%eq, dense<[false, false, true, false]> : tensor<4xi1>) : tensor<4xi1>
  check.expect_eq_const(%ne, dense<[true, true, false, true]> : tensor<4xi1>) : tensor<4xi1>
  check.expect_eq_const(%sge, dense<[true, false, true, false]> : tensor<4xi1>) : tensor<4xi1>
  check.expect_eq_const(%r, dense<[3, -5, 0, -1]> : tensor<4xi32>) : tensor<4xi32>
  return
}

func.func @relu_by_select() {
  %x = util.unfoldable_constant dense<[[-1.0, 2.0], [3.0, -4.0]]> : tensor<2x2xf32>
  %zero = arith.constant dense<0.0> : tensor<2x2xf32>
  %pos = arith.cmpf ogt, %x, %zero : tensor<2x2xf32>
  %r = arith.select %pos, %x, %zero : tensor<2x2xi1>, tensor<2x2xf32>
  check.expect_eq_const(%r, dense<[[0.0, 2.0], [3.0, 0.0]]> : tensor<2x2xf32>) : tensor<2x2xf32>
  return
}
