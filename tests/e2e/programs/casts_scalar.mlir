// Scalar casts on host values: sitofp, fptosi, extsi, extui, trunci; results stored through linalg.fill.
// (-2.25 rounds and truncates alike: IREE 3.13 rounds a host-side fptosi to nearest, see README.)
func.func @int_float_casts() {
  %i = util.unfoldable_constant -7 : i32
  %f = util.unfoldable_constant -2.25 : f32
  %i2f = arith.sitofp %i : i32 to f32
  %f2i = arith.fptosi %f : f32 to i32
  %ef = tensor.empty() : tensor<f32>
  %ei = tensor.empty() : tensor<i32>
  %tf = linalg.fill ins(%i2f : f32) outs(%ef : tensor<f32>) -> tensor<f32>
  %ti = linalg.fill ins(%f2i : i32) outs(%ei : tensor<i32>) -> tensor<i32>
  check.expect_eq_const(%tf, dense<-7.0> : tensor<f32>) : tensor<f32>
  check.expect_eq_const(%ti, dense<-2> : tensor<i32>) : tensor<i32>
  return
}

func.func @int_width_casts() {
  %i8 = util.unfoldable_constant -100 : i8
  %i32 = util.unfoldable_constant 300 : i32
  %i64 = util.unfoldable_constant 8589934593 : i64
  %s = arith.extsi %i8 : i8 to i32
  %u = arith.extui %i8 : i8 to i32
  %t8 = arith.trunci %i32 : i32 to i8
  %t32 = arith.trunci %i64 : i64 to i32
  %w64 = arith.extsi %s : i32 to i64
  %e = tensor.empty() : tensor<4xi32>
  %e8 = tensor.empty() : tensor<i8>
  %e64 = tensor.empty() : tensor<i64>
  %ts = linalg.fill ins(%s : i32) outs(%e : tensor<4xi32>) -> tensor<4xi32>
  %tu = linalg.fill ins(%u : i32) outs(%e : tensor<4xi32>) -> tensor<4xi32>
  %tt = linalg.fill ins(%t32 : i32) outs(%e : tensor<4xi32>) -> tensor<4xi32>
  %t8t = linalg.fill ins(%t8 : i8) outs(%e8 : tensor<i8>) -> tensor<i8>
  %tw = linalg.fill ins(%w64 : i64) outs(%e64 : tensor<i64>) -> tensor<i64>
  check.expect_eq_const(%ts, dense<-100> : tensor<4xi32>) : tensor<4xi32>
  check.expect_eq_const(%tu, dense<156> : tensor<4xi32>) : tensor<4xi32>
  check.expect_eq_const(%tt, dense<1> : tensor<4xi32>) : tensor<4xi32>
  check.expect_eq_const(%t8t, dense<44> : tensor<i8>) : tensor<i8>
  check.expect_eq_const(%tw, dense<-100> : tensor<i64>) : tensor<i64>
  return
}
