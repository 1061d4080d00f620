// Scalar i64 and index arithmetic on host values, and index_cast between index, i32 and i64.
func.func private @expect_i64(%got: i64, %want: i64) {
  %ok = arith.cmpi eq, %got, %want : i64
  check.expect_true(%ok) : i1
  return
}

func.func @i64_ops() {
  %a = util.unfoldable_constant 6000000000 : i64
  %b = util.unfoldable_constant -7 : i64
  %add = arith.addi %a, %b : i64
  %mul = arith.muli %a, %b : i64
  %div = arith.divsi %a, %b : i64
  %rem = arith.remsi %a, %b : i64
  %max = arith.maxsi %a, %b : i64
  %e_add = arith.constant 5999999993 : i64
  %e_mul = arith.constant -42000000000 : i64
  %e_div = arith.constant -857142857 : i64
  %e_rem = arith.constant 1 : i64
  call @expect_i64(%add, %e_add) : (i64, i64) -> ()
  call @expect_i64(%mul, %e_mul) : (i64, i64) -> ()
  call @expect_i64(%div, %e_div) : (i64, i64) -> ()
  call @expect_i64(%rem, %e_rem) : (i64, i64) -> ()
  call @expect_i64(%max, %a) : (i64, i64) -> ()
  return
}

func.func @i64_shifts() {
  %one = util.unfoldable_constant 1 : i64
  %neg = util.unfoldable_constant -1 : i64
  %c40 = arith.constant 40 : i64
  %c60 = arith.constant 60 : i64
  %shl = arith.shli %one, %c40 : i64
  %shru = arith.shrui %neg, %c60 : i64
  %shrs = arith.shrsi %neg, %c60 : i64
  %e_shl = arith.constant 1099511627776 : i64
  %e_shru = arith.constant 15 : i64
  call @expect_i64(%shl, %e_shl) : (i64, i64) -> ()
  call @expect_i64(%shru, %e_shru) : (i64, i64) -> ()
  call @expect_i64(%shrs, %neg) : (i64, i64) -> ()
  return
}

func.func @index_ops() {
  %a = util.unfoldable_constant 23 : index
  %b = util.unfoldable_constant 5 : index
  %add = arith.addi %a, %b : index
  %mul = arith.muli %a, %b : index
  %div = arith.divui %a, %b : index
  %rem = arith.remui %a, %b : index
  %cdiv = arith.ceildivui %a, %b : index
  %c28 = arith.constant 28 : index
  %c115 = arith.constant 115 : index
  %c4 = arith.constant 4 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %ok0 = arith.cmpi eq, %add, %c28 : index
  %ok1 = arith.cmpi eq, %mul, %c115 : index
  %ok2 = arith.cmpi eq, %div, %c4 : index
  %ok3 = arith.cmpi eq, %rem, %c3 : index
  %ok4 = arith.cmpi eq, %cdiv, %c5 : index
  check.expect_true(%ok0) : i1
  check.expect_true(%ok1) : i1
  check.expect_true(%ok2) : i1
  check.expect_true(%ok3) : i1
  check.expect_true(%ok4) : i1
  return
}

func.func @index_cast() {
  %i = util.unfoldable_constant 1234 : index
  %n = util.unfoldable_constant -5 : i32
  %as_i32 = arith.index_cast %i : index to i32
  %as_i64 = arith.index_cast %i : index to i64
  %back = arith.index_cast %n : i32 to index
  %back64 = arith.index_cast %back : index to i64
  %e32 = arith.constant 1234 : i32
  %e64 = arith.constant 1234 : i64
  %en = arith.constant -5 : i64
  %ok = arith.cmpi eq, %as_i32, %e32 : i32
  check.expect_true(%ok) : i1
  call @expect_i64(%as_i64, %e64) : (i64, i64) -> ()
  call @expect_i64(%back64, %en) : (i64, i64) -> ()
  return
}
