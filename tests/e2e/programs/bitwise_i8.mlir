// i8 tensors: wrapping add/sub/mul and bitwise ops, shifts.
func.func @wrapping_arith() {
  %a = util.unfoldable_constant dense<[100, -128, 127, -1]> : tensor<4xi8>
  %b = util.unfoldable_constant dense<[100, -1, 1, 3]> : tensor<4xi8>
  %s = arith.addi %a, %b : tensor<4xi8>
  %d = arith.subi %a, %b : tensor<4xi8>
  %m = arith.muli %a, %b : tensor<4xi8>
  check.expect_eq_const(%s, dense<[-56, 127, -128, 2]> : tensor<4xi8>) : tensor<4xi8>
  check.expect_eq_const(%d, dense<[0, -127, 126, -4]> : tensor<4xi8>) : tensor<4xi8>
  check.expect_eq_const(%m, dense<[16, -128, 127, -3]> : tensor<4xi8>) : tensor<4xi8>
  return
}

func.func @and_or_xor() {
  %a = util.unfoldable_constant dense<[100, -128, 127, -1]> : tensor<4xi8>
  %b = util.unfoldable_constant dense<[100, -1, 1, 3]> : tensor<4xi8>
  %and = arith.andi %a, %b : tensor<4xi8>
  %or = arith.ori %a, %b : tensor<4xi8>
  %xor = arith.xori %a, %b : tensor<4xi8>
  check.expect_eq_const(%and, dense<[100, -128, 1, 3]> : tensor<4xi8>) : tensor<4xi8>
  check.expect_eq_const(%or, dense<[100, -1, 127, -1]> : tensor<4xi8>) : tensor<4xi8>
  check.expect_eq_const(%xor, dense<[0, 127, 126, -4]> : tensor<4xi8>) : tensor<4xi8>
  return
}

func.func @shifts() {
  %a = util.unfoldable_constant dense<[100, -128, 127, -1]> : tensor<4xi8>
  %one = arith.constant dense<1> : tensor<4xi8>
  %shl = arith.shli %a, %one : tensor<4xi8>
  %shrs = arith.shrsi %a, %one : tensor<4xi8>
  %shru = arith.shrui %a, %one : tensor<4xi8>
  check.expect_eq_const(%shl, dense<[-56, 0, -2, -2]> : tensor<4xi8>) : tensor<4xi8>
  check.expect_eq_const(%shrs, dense<[50, -64, 63, -1]> : tensor<4xi8>) : tensor<4xi8>
  check.expect_eq_const(%shru, dense<[50, 64, 63, 127]> : tensor<4xi8>) : tensor<4xi8>
  return
}
