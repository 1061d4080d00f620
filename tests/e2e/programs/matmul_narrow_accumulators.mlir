// The accumulator is the output's type on every path, data tiling included: linalg.matmul's
// body is mulf + addf in the output's type, so an f16 or bf16 result rounds the product and
// the running sum at every step (IREE's large_linalg_matmul f16 case expects the same). With
// an f32 result, bf16 inputs are widened exactly. Expected values: numpy/ml_dtypes with the
// same per-step rounding (an f32 accumulator would give 5.12109375 and 15.375).

func.func @f16_accumulates_in_f16() {
  %lhs = util.unfoldable_constant dense<1.0> : tensor<32x512xf16>
  %rhs = util.unfoldable_constant dense<0.01> : tensor<512x48xf16>
  %zero = arith.constant 0.0 : f16
  %empty = tensor.empty() : tensor<32x48xf16>
  %init = linalg.fill ins(%zero : f16) outs(%empty : tensor<32x48xf16>) -> tensor<32x48xf16>
  %c = linalg.matmul ins(%lhs, %rhs : tensor<32x512xf16>, tensor<512x48xf16>) outs(%init : tensor<32x48xf16>) -> tensor<32x48xf16>
  check.expect_eq_const(%c, dense<5.21484375> : tensor<32x48xf16>) : tensor<32x48xf16>
  return
}

func.func @bf16_accumulates_in_bf16() {
  %lhs = util.unfoldable_constant dense<0.01> : tensor<32x512xbf16>
  %rhs = util.unfoldable_constant dense<3.0> : tensor<512x48xbf16>
  %zero = arith.constant 0.0 : bf16
  %empty = tensor.empty() : tensor<32x48xbf16>
  %init = linalg.fill ins(%zero : bf16) outs(%empty : tensor<32x48xbf16>) -> tensor<32x48xbf16>
  %c = linalg.matmul ins(%lhs, %rhs : tensor<32x512xbf16>, tensor<512x48xbf16>) outs(%init : tensor<32x48xbf16>) -> tensor<32x48xbf16>
  check.expect_eq_const(%c, dense<8.0> : tensor<32x48xbf16>) : tensor<32x48xbf16>
  return
}

func.func @bf16_into_f32() {
  %lhs = util.unfoldable_constant dense<0.01> : tensor<32x512xbf16>
  %rhs = util.unfoldable_constant dense<3.0> : tensor<512x48xbf16>
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<32x48xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<32x48xf32>) -> tensor<32x48xf32>
  %c = linalg.matmul ins(%lhs, %rhs : tensor<32x512xbf16>, tensor<512x48xbf16>) outs(%init : tensor<32x48xf32>) -> tensor<32x48xf32>
  check.expect_almost_eq_const(%c, dense<15.375> : tensor<32x48xf32>) : tensor<32x48xf32>
  return
}
