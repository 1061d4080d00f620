// f4E2M1FN (1 sign, 2 exponent, 1 mantissa bits; values 0, 0.5, 1, 1.5, 2, 3, 4, 6; no inf, no
// NaN): stored two to a byte like i4 (element 0 in the low nibble), computed in f32 and rounded
// after every op to nearest even, overflow saturating to +-6. Inputs and results cross as i8
// bytes through flow.tensor.bitcast; expected bytes computed with ml_dtypes.

// a = [0.5, 1.5, 3, -4, 6, -0.5, 2, 1], b = [1, 1.5, 2, -3, 1, 0.5, -6, 0.5]:
// a + b = [1.5, 3, 4 (5 ties to even), -6 (-7 saturates), 6, 0, -4, 1.5],
// a * b = [0.5, 2 (2.25), 6, 6 (12 saturates), 6, -0 (-0.25 ties to even), -6, 0.5].
func.func @add_and_mul() {
  %a8 = util.unfoldable_constant dense<[49, -27, -105, 36]> : tensor<4xi8>
  %b8 = util.unfoldable_constant dense<[50, -44, 18, 31]> : tensor<4xi8>
  %a = flow.tensor.bitcast %a8 : tensor<4xi8> -> tensor<8xf4E2M1FN>
  %b = flow.tensor.bitcast %b8 : tensor<4xi8> -> tensor<8xf4E2M1FN>
  %sum = arith.addf %a, %b : tensor<8xf4E2M1FN>
  %prod = arith.mulf %a, %b : tensor<8xf4E2M1FN>
  %s8 = flow.tensor.bitcast %sum : tensor<8xf4E2M1FN> -> tensor<4xi8>
  %p8 = flow.tensor.bitcast %prod : tensor<8xf4E2M1FN> -> tensor<4xi8>
  check.expect_eq_const(%s8, dense<[83, -10, 7, 62]> : tensor<4xi8>) : tensor<4xi8>
  check.expect_eq_const(%p8, dense<[65, 119, -121, 31]> : tensor<4xi8>) : tensor<4xi8>
  return
}

// truncf f32 -> f4E2M1FN: 0.1 underflows, 0.25 ties to 0, 0.3 and 0.6 -> 0.5,
// 1.25 ties to 1, 2.5 ties to 2, 5 ties to 4, 100 saturates to 6; extf back to f32. (Values in
// [0.75, 1), which round up to 1 in APFloat and rt, give 0 in IREE 3.13; tests/vm checks them.)
func.func @truncf_and_extf() {
  %x = util.unfoldable_constant dense<[0.1, 0.25, 0.3, 0.6, 1.25, 2.5, 5.0, 100.0]> : tensor<8xf32>
  %t = arith.truncf %x : tensor<8xf32> to tensor<8xf4E2M1FN>
  %t8 = flow.tensor.bitcast %t : tensor<8xf4E2M1FN> -> tensor<4xi8>
  check.expect_eq_const(%t8, dense<[0, 17, 66, 118]> : tensor<4xi8>) : tensor<4xi8>
  %e = arith.extf %t : tensor<8xf4E2M1FN> to tensor<8xf32>
  check.expect_eq_const(%e, dense<[0.0, 0.0, 0.5, 0.5, 1.0, 2.0, 4.0, 6.0]> : tensor<8xf32>) : tensor<8xf32>
  return
}

// MX scaling (arith.scaling_extf / scaling_truncf with an f8E8M0FNU scale, a power of two):
// [1.5, -3, 0.5, 6] * [4, 0.25, 2, 1] and back: x / scale rounded to f4 (12 / 4 = 3, 0.375 / 0.25
// = 1.5, 10 / 2 = 5 ties to 4, 7 / 1 saturates to 6).
func.func @mx_scaling() {
  %x8 = util.unfoldable_constant dense<[-45, 113]> : tensor<2xi8>
  %x = flow.tensor.bitcast %x8 : tensor<2xi8> -> tensor<4xf4E2M1FN>
  %sbits = util.unfoldable_constant dense<[-127, 125, -128, 127]> : tensor<4xi8>
  %s = arith.bitcast %sbits : tensor<4xi8> to tensor<4xf8E8M0FNU>
  %init = tensor.empty() : tensor<4xf32>
  %wide = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                          iterator_types = ["parallel"]}
      ins(%x, %s : tensor<4xf4E2M1FN>, tensor<4xf8E8M0FNU>) outs(%init : tensor<4xf32>) {
  ^bb0(%v: f4E2M1FN, %scale: f8E8M0FNU, %o: f32):
    %e = arith.scaling_extf %v, %scale : f4E2M1FN, f8E8M0FNU to f32
    linalg.yield %e : f32
  } -> tensor<4xf32>
  check.expect_eq_const(%wide, dense<[6.0, -0.75, 1.0, 6.0]> : tensor<4xf32>) : tensor<4xf32>
  %y = util.unfoldable_constant dense<[12.0, 0.375, 10.0, 7.0]> : tensor<4xf32>
  %e4 = tensor.empty() : tensor<4xf4E2M1FN>
  %narrow = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                            iterator_types = ["parallel"]}
      ins(%y, %s : tensor<4xf32>, tensor<4xf8E8M0FNU>) outs(%e4 : tensor<4xf4E2M1FN>) {
  ^bb0(%v: f32, %scale: f8E8M0FNU, %o: f4E2M1FN):
    %t = arith.scaling_truncf %v, %scale : f32, f8E8M0FNU to f4E2M1FN
    linalg.yield %t : f4E2M1FN
  } -> tensor<4xf4E2M1FN>
  %n8 = flow.tensor.bitcast %narrow : tensor<4xf4E2M1FN> -> tensor<2xi8>
  check.expect_eq_const(%n8, dense<[53, 118]> : tensor<2xi8>) : tensor<2xi8>
  return
}
