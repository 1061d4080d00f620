// Bitwise ops on i32 tensors: andi, ori, xori, shli, shrsi, shrui.
func.func @and_or_xor() {
  %a = util.unfoldable_constant dense<[252645135, -1, 12345, -8]> : tensor<4xi32>
  %b = util.unfoldable_constant dense<[16711935, 5, 255, 3]> : tensor<4xi32>
  %and = arith.andi %a, %b : tensor<4xi32>
  %or = arith.ori %a, %b : tensor<4xi32>
  %xor = arith.xori %a, %b : tensor<4xi32>
  check.expect_eq_const(%and, dense<[983055, 5, 57, 0]> : tensor<4xi32>) : tensor<4xi32>
  check.expect_eq_const(%or, dense<[268374015, -1, 12543, -5]> : tensor<4xi32>) : tensor<4xi32>
  check.expect_eq_const(%xor, dense<[267390960, -6, 12486, -5]> : tensor<4xi32>) : tensor<4xi32>
  return
}

func.func @shifts() {
  %a = util.unfoldable_constant dense<[252645135, -1, 12345, -8]> : tensor<4xi32>
  %s = util.unfoldable_constant dense<[4, 1, 3, 2]> : tensor<4xi32>
  %shl = arith.shli %a, %s : tensor<4xi32>
  %shrs = arith.shrsi %a, %s : tensor<4xi32>
  %shru = arith.shrui %a, %s : tensor<4xi32>
  check.expect_eq_const(%shl, dense<[-252645136, -2, 98760, -32]> : tensor<4xi32>) : tensor<4xi32>
  check.expect_eq_const(%shrs, dense<[15790320, -1, 1543, -2]> : tensor<4xi32>) : tensor<4xi32>
  check.expect_eq_const(%shru, dense<[15790320, 2147483647, 1543, 1073741822]> : tensor<4xi32>) : tensor<4xi32>
  return
}
