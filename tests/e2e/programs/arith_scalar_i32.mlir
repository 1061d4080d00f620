// Scalar i32 arith on host values: signed/unsigned div, rem, min, max, bitwise, wrap-around, select.
func.func private @expect_i32(%got: i32, %want: i32) {
  %ok = arith.cmpi eq, %got, %want : i32
  check.expect_true(%ok) : i1
  return
}

func.func @signed_ops() {
  %a = util.unfoldable_constant -7 : i32
  %b = util.unfoldable_constant 2 : i32
  %add = arith.addi %a, %b : i32
  %sub = arith.subi %a, %b : i32
  %mul = arith.muli %a, %b : i32
  %div = arith.divsi %a, %b : i32
  %rem = arith.remsi %a, %b : i32
  %min = arith.minsi %a, %b : i32
  %max = arith.maxsi %a, %b : i32
  %fdiv = arith.floordivsi %a, %b : i32
  %cdiv = arith.ceildivsi %a, %b : i32
  %c-5 = arith.constant -5 : i32
  %c-9 = arith.constant -9 : i32
  %c-14 = arith.constant -14 : i32
  %c-3 = arith.constant -3 : i32
  %c-1 = arith.constant -1 : i32
  %c-7 = arith.constant -7 : i32
  %c2 = arith.constant 2 : i32
  %c-4 = arith.constant -4 : i32
  call @expect_i32(%add, %c-5) : (i32, i32) -> ()
  call @expect_i32(%sub, %c-9) : (i32, i32) -> ()
  call @expect_i32(%mul, %c-14) : (i32, i32) -> ()
  call @expect_i32(%div, %c-3) : (i32, i32) -> ()
  call @expect_i32(%rem, %c-1) : (i32, i32) -> ()
  call @expect_i32(%min, %c-7) : (i32, i32) -> ()
  call @expect_i32(%max, %c2) : (i32, i32) -> ()
  call @expect_i32(%fdiv, %c-4) : (i32, i32) -> ()
  call @expect_i32(%cdiv, %c-3) : (i32, i32) -> ()
  return
}

func.func @unsigned_ops() {
  %a = util.unfoldable_constant -7 : i32
  %b = util.unfoldable_constant 2 : i32
  %div = arith.divui %a, %b : i32
  %rem = arith.remui %a, %b : i32
  %min = arith.minui %a, %b : i32
  %max = arith.maxui %a, %b : i32
  %q = arith.constant 2147483644 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c-7 = arith.constant -7 : i32
  call @expect_i32(%div, %q) : (i32, i32) -> ()
  call @expect_i32(%rem, %c1) : (i32, i32) -> ()
  call @expect_i32(%min, %c2) : (i32, i32) -> ()
  call @expect_i32(%max, %c-7) : (i32, i32) -> ()
  return
}

func.func @bitwise() {
  %a = util.unfoldable_constant -8 : i32
  %b = util.unfoldable_constant 3 : i32
  %and = arith.andi %a, %b : i32
  %or = arith.ori %a, %b : i32
  %xor = arith.xori %a, %b : i32
  %shl = arith.shli %a, %b : i32
  %shrs = arith.shrsi %a, %b : i32
  %shru = arith.shrui %a, %b : i32
  %c0 = arith.constant 0 : i32
  %c-5 = arith.constant -5 : i32
  %c-64 = arith.constant -64 : i32
  %c-1 = arith.constant -1 : i32
  %big = arith.constant 536870911 : i32
  call @expect_i32(%and, %c0) : (i32, i32) -> ()
  call @expect_i32(%or, %c-5) : (i32, i32) -> ()
  call @expect_i32(%xor, %c-5) : (i32, i32) -> ()
  call @expect_i32(%shl, %c-64) : (i32, i32) -> ()
  call @expect_i32(%shrs, %c-1) : (i32, i32) -> ()
  call @expect_i32(%shru, %big) : (i32, i32) -> ()
  return
}

func.func @wrap_around() {
  %max = util.unfoldable_constant 2147483647 : i32
  %min = util.unfoldable_constant -2147483648 : i32
  %one = arith.constant 1 : i32
  %neg1 = arith.constant -1 : i32
  %s = arith.addi %max, %one : i32
  %p = arith.muli %min, %neg1 : i32
  call @expect_i32(%s, %min) : (i32, i32) -> ()
  call @expect_i32(%p, %min) : (i32, i32) -> ()
  return
}

func.func @cmpi_select() {
  %a = util.unfoldable_constant -3 : i32
  %b = util.unfoldable_constant 4 : i32
  %slt = arith.cmpi slt, %a, %b : i32
  %ult = arith.cmpi ult, %a, %b : i32
  %sle = arith.cmpi sle, %a, %a : i32
  %ne = arith.cmpi ne, %a, %b : i32
  check.expect_true(%slt) : i1
  check.expect_false(%ult) : i1
  check.expect_true(%sle) : i1
  check.expect_true(%ne) : i1
  %lo = arith.select %slt, %a, %b : i32
  %hi = arith.select %ult, %a, %b : i32
  call @expect_i32(%lo, %a) : (i32, i32) -> ()
  call @expect_i32(%hi, %b) : (i32, i32) -> ()
  return
}
