// Elementwise integer arith on i32 tensors: signed and unsigned div/rem/min/max, floor/ceil div, wrap-around.
func.func @addi_subi_muli() {
  %a = util.unfoldable_constant dense<[7, -7, 9, 2147483647]> : tensor<4xi32>
  %b = util.unfoldable_constant dense<[2, 2, -4, 1]> : tensor<4xi32>
  %s = arith.addi %a, %b : tensor<4xi32>
  %d = arith.subi %a, %b : tensor<4xi32>
  %m = arith.muli %a, %b : tensor<4xi32>
  check.expect_eq_const(%s, dense<[9, -5, 5, -2147483648]> : tensor<4xi32>) : tensor<4xi32>
  check.expect_eq_const(%d, dense<[5, -9, 13, 2147483646]> : tensor<4xi32>) : tensor<4xi32>
  check.expect_eq_const(%m, dense<[14, -14, -36, 2147483647]> : tensor<4xi32>) : tensor<4xi32>
  return
}

func.func @divsi_remsi() {
  %a = util.unfoldable_constant dense<[7, -7, 9, -9]> : tensor<4xi32>
  %b = util.unfoldable_constant dense<[2, 2, -4, -4]> : tensor<4xi32>
  %q = arith.divsi %a, %b : tensor<4xi32>
  %r = arith.remsi %a, %b : tensor<4xi32>
  check.expect_eq_const(%q, dense<[3, -3, -2, 2]> : tensor<4xi32>) : tensor<4xi32>
  check.expect_eq_const(%r, dense<[1, -1, 1, -1]> : tensor<4xi32>) : tensor<4xi32>
  return
}

func.func @floordivsi_ceildivsi() {
  %a = util.unfoldable_constant dense<[7, -7, 9, -9]> : tensor<4xi32>
  %b = util.unfoldable_constant dense<[2, 2, -4, -4]> : tensor<4xi32>
  %f = arith.floordivsi %a, %b : tensor<4xi32>
  %c = arith.ceildivsi %a, %b : tensor<4xi32>
  check.expect_eq_const(%f, dense<[3, -4, -3, 2]> : tensor<4xi32>) : tensor<4xi32>
  check.expect_eq_const(%c, dense<[4, -3, -2, 3]> : tensor<4xi32>) : tensor<4xi32>
  return
}

func.func @divui_remui() {
  %a = util.unfoldable_constant dense<[7, -7, 9, 10]> : tensor<4xi32>
  %b = util.unfoldable_constant dense<[2, 2, 4, 3]> : tensor<4xi32>
  %q = arith.divui %a, %b : tensor<4xi32>
  %r = arith.remui %a, %b : tensor<4xi32>
  check.expect_eq_const(%q, dense<[3, 2147483644, 2, 3]> : tensor<4xi32>) : tensor<4xi32>
  check.expect_eq_const(%r, dense<[1, 1, 1, 1]> : tensor<4xi32>) : tensor<4xi32>
  return
}

func.func @min_max_signed_unsigned() {
  %a = util.unfoldable_constant dense<[7, -7, 9, -9]> : tensor<4xi32>
  %b = util.unfoldable_constant dense<[2, 2, -4, -4]> : tensor<4xi32>
  %mins = arith.minsi %a, %b : tensor<4xi32>
  %maxs = arith.maxsi %a, %b : tensor<4xi32>
  %minu = arith.minui %a, %b : tensor<4xi32>
  %maxu = arith.maxui %a, %b : tensor<4xi32>
  check.expect_eq_const(%mins, dense<[2, -7, -4, -9]> : tensor<4xi32>) : tensor<4xi32>
  check.expect_eq_const(%maxs, dense<[7, 2, 9, -4]> : tensor<4xi32>) : tensor<4xi32>
  check.expect_eq_const(%minu, dense<[2, 2, 9, -9]> : tensor<4xi32>) : tensor<4xi32>
  check.expect_eq_const(%maxu, dense<[7, -7, -4, -4]> : tensor<4xi32>) : tensor<4xi32>
  return
}
