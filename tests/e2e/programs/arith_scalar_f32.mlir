// Scalar f32 arith and math on host values, compared through a private helper with a tolerance.
func.func private @expect_near(%got: f32, %want: f32) {
  %d = arith.subf %got, %want : f32
  %ad = math.absf %d : f32
  %aw = math.absf %want : f32
  %rel = arith.constant 1.0e-05 : f32
  %abs = arith.constant 1.0e-06 : f32
  %scaled = arith.mulf %aw, %rel : f32
  %tol = arith.addf %scaled, %abs : f32
  %ok = arith.cmpf ole, %ad, %tol : f32
  check.expect_true(%ok) : i1
  return
}

func.func @arith_ops() {
  %a = util.unfoldable_constant 2.5 : f32
  %b = util.unfoldable_constant -0.75 : f32
  %add = arith.addf %a, %b : f32
  %sub = arith.subf %a, %b : f32
  %mul = arith.mulf %a, %b : f32
  %div = arith.divf %a, %b : f32
  %rem = arith.remf %a, %b : f32
  %min = arith.minimumf %a, %b : f32
  %max = arith.maximumf %a, %b : f32
  %neg = arith.negf %a : f32
  %e_add = arith.constant 1.75 : f32
  %e_sub = arith.constant 3.25 : f32
  %e_mul = arith.constant -1.875 : f32
  %e_div = arith.constant -3.33333333 : f32
  %e_rem = arith.constant 0.25 : f32
  %e_neg = arith.constant -2.5 : f32
  call @expect_near(%add, %e_add) : (f32, f32) -> ()
  call @expect_near(%sub, %e_sub) : (f32, f32) -> ()
  call @expect_near(%mul, %e_mul) : (f32, f32) -> ()
  call @expect_near(%div, %e_div) : (f32, f32) -> ()
  call @expect_near(%rem, %e_rem) : (f32, f32) -> ()
  call @expect_near(%min, %b) : (f32, f32) -> ()
  call @expect_near(%max, %a) : (f32, f32) -> ()
  call @expect_near(%neg, %e_neg) : (f32, f32) -> ()
  return
}

func.func @math_ops() {
  %a = util.unfoldable_constant 2.5 : f32
  %b = util.unfoldable_constant -0.75 : f32
  %exp = math.exp %a : f32
  %log = math.log %a : f32
  %tanh = math.tanh %b : f32
  %sqrt = math.sqrt %a : f32
  %rsqrt = math.rsqrt %a : f32
  %abs = math.absf %b : f32
  %floor = math.floor %b : f32
  %ceil = math.ceil %a : f32
  %e_exp = arith.constant 12.182494 : f32
  %e_log = arith.constant 0.91629073 : f32
  %e_tanh = arith.constant -0.63514895 : f32
  %e_sqrt = arith.constant 1.5811388 : f32
  %e_rsqrt = arith.constant 0.63245553 : f32
  %e_abs = arith.constant 0.75 : f32
  %e_floor = arith.constant -1.0 : f32
  %e_ceil = arith.constant 3.0 : f32
  call @expect_near(%exp, %e_exp) : (f32, f32) -> ()
  call @expect_near(%log, %e_log) : (f32, f32) -> ()
  call @expect_near(%tanh, %e_tanh) : (f32, f32) -> ()
  call @expect_near(%sqrt, %e_sqrt) : (f32, f32) -> ()
  call @expect_near(%rsqrt, %e_rsqrt) : (f32, f32) -> ()
  call @expect_near(%abs, %e_abs) : (f32, f32) -> ()
  call @expect_near(%floor, %e_floor) : (f32, f32) -> ()
  call @expect_near(%ceil, %e_ceil) : (f32, f32) -> ()
  return
}

func.func @cmpf_select() {
  %a = util.unfoldable_constant 2.5 : f32
  %b = util.unfoldable_constant -0.75 : f32
  %gt = arith.cmpf ogt, %a, %b : f32
  %eq = arith.cmpf oeq, %a, %b : f32
  check.expect_true(%gt) : i1
  check.expect_false(%eq) : i1
  %s = arith.select %eq, %a, %b : f32
  call @expect_near(%s, %b) : (f32, f32) -> ()
  return
}
