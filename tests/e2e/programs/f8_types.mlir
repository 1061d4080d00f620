// The f8 types IREE tests use, end to end: storage as one byte, compute in f32, rounded to the
// type after every op; arith.truncf rounds to nearest even with each type's overflow and NaN
// rules (APFloat). Expected bit patterns computed with ml_dtypes.

// One f32 vector through arith.truncf into each type; the bits checked exactly. Columns:
// 0, -0, 1, 0.3, -0.3, 17 (tie -> 16 in E4M3), 19, 240, 250, 448, 465, 57344, 61440, 1e-3,
// 2e-6 (underflow), +inf, 1e6. (NaN results are left out: their sign and payload bits differ
// between APFloat, which rt follows -- a negative overflow gives 0xFF in f8E4M3FN, a NaN input
// 0x7E in f8E5M2 -- and IREE 3.13's llvm-cpu (0x7F, 0x7F); tests/vm checks rt's bits.)
func.func @truncf_f32_to_each_f8() {
  %x = util.unfoldable_constant dense<[0.0, -0.0, 1.0, 0.3, -0.3, 17.0, 19.0, 240.0, 250.0, 448.0, 465.0, 57344.0, 61440.0, 0.001, 2.0e-6, 0x7F800000, 1.0e6]> : tensor<17xf32>
  %a = arith.truncf %x : tensor<17xf32> to tensor<17xf8E4M3FN>
  %ab = arith.bitcast %a : tensor<17xf8E4M3FN> to tensor<17xi8>
  check.expect_eq_const(%ab, dense<[0, -128, 56, 42, -86, 88, 90, 119, 120, 126, 127, 127, 127, 1, 0, 127, 127]> : tensor<17xi8>) : tensor<17xi8>
  %b = arith.truncf %x : tensor<17xf32> to tensor<17xf8E5M2>
  %bb = arith.bitcast %b : tensor<17xf8E5M2> to tensor<17xi8>
  check.expect_eq_const(%bb, dense<[0, -128, 60, 53, -75, 76, 77, 92, 92, 95, 95, 123, 124, 20, 0, 124, 124]> : tensor<17xi8>) : tensor<17xi8>
  %c = arith.truncf %x : tensor<17xf32> to tensor<17xf8E4M3FNUZ>
  %cb = arith.bitcast %c : tensor<17xf8E4M3FNUZ> to tensor<17xi8>
  check.expect_eq_const(%cb, dense<[0, 0, 64, 50, -78, 96, 98, 127, -128, -128, -128, -128, -128, 1, 0, -128, -128]> : tensor<17xi8>) : tensor<17xi8>
  %d = arith.truncf %x : tensor<17xf32> to tensor<17xf8E5M2FNUZ>
  %db = arith.bitcast %d : tensor<17xf8E5M2FNUZ> to tensor<17xi8>
  check.expect_eq_const(%db, dense<[0, 0, 64, 57, -71, 80, 81, 96, 96, 99, 99, 127, -128, 24, 0, -128, -128]> : tensor<17xi8>) : tensor<17xi8>
  return
}

// (a * b) + c on f8E4M3FN rounds the product to f8 before the add, as MLIR's arith on f8 and
// IREE's convert-unsupported-float-arith compute it: [0] 0.203125 * 0.3125 + 0.203125 gives
// 0.25 (one rounding at the end would give 0.28125); 96 * 5 = 480 overflows to NaN (0x7F).
func.func @e4m3fn_rounds_each_op() {
  %a = util.unfoldable_constant dense<[0.203125, 0.203125, 3.0, 96.0, -5.0, 0.015625]> : tensor<6xf8E4M3FN>
  %b = util.unfoldable_constant dense<[0.3125, 0.75, 3.0, 5.0, 5.0, 0.015625]> : tensor<6xf8E4M3FN>
  %c = util.unfoldable_constant dense<[0.203125, 0.203125, -0.25, 0.0, 1.0, 0.0]> : tensor<6xf8E4M3FN>
  %init = tensor.empty() : tensor<6xf8E4M3FN>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%a, %b, %c : tensor<6xf8E4M3FN>, tensor<6xf8E4M3FN>, tensor<6xf8E4M3FN>) outs(%init : tensor<6xf8E4M3FN>) {
  ^bb0(%x: f8E4M3FN, %y: f8E4M3FN, %z: f8E4M3FN, %o: f8E4M3FN):
    %p = arith.mulf %x, %y : f8E4M3FN
    %s = arith.addf %p, %z : f8E4M3FN
    linalg.yield %s : f8E4M3FN
  } -> tensor<6xf8E4M3FN>
  %bits = arith.bitcast %r : tensor<6xf8E4M3FN> to tensor<6xi8>
  check.expect_eq_const(%bits, dense<[40, 44, 81, 127, -36, 0]> : tensor<6xi8>) : tensor<6xi8>
  return
}

// f8E8M0FNU: 2^(bits - 127), 0xFF is NaN; truncf to the nearest power of two. (Bits 0, 2^-127,
// and ties such as 1.5 are left out: APFloat and rt give 2^-127 and round ties up, IREE 3.13's
// llvm-cpu gives 0 and truncates; tests/vm and the codegen tests check rt's against ml_dtypes.)
func.func @e8m0fnu_scales() {
  %bits = util.unfoldable_constant dense<[1, 100, 127, -128, -2]> : tensor<5xi8>
  %s = arith.bitcast %bits : tensor<5xi8> to tensor<5xf8E8M0FNU>
  %e = arith.extf %s : tensor<5xf8E8M0FNU> to tensor<5xf32>
  check.expect_eq_const(%e, dense<[1.1754943508222875e-38, 7.450580596923828e-09, 1.0, 2.0, 1.7014118346046923e+38]> : tensor<5xf32>) : tensor<5xf32>
  %x = util.unfoldable_constant dense<[1.25, 5.0, 0.3, 1.0e38]> : tensor<4xf32>
  %t = arith.truncf %x : tensor<4xf32> to tensor<4xf8E8M0FNU>
  %tb = arith.bitcast %t : tensor<4xf8E8M0FNU> to tensor<4xi8>
  check.expect_eq_const(%tb, dense<[127, -127, 125, -3]> : tensor<4xi8>) : tensor<4xi8>
  return
}

// A matmul of f8E4M3FN operands accumulating in f32 (inputs widened exactly).
func.func @matmul_e4m3fn_to_f32() {
  %a = util.unfoldable_constant dense<[[1.0, 2.0, 0.5], [-1.5, 3.0, 0.25]]> : tensor<2x3xf8E4M3FN>
  %b = util.unfoldable_constant dense<[[0.5, 1.0], [2.0, -1.0], [4.0, 8.0]]> : tensor<3x2xf8E4M3FN>
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<2x2xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<2x2xf32>) -> tensor<2x2xf32>
  %c = linalg.matmul ins(%a, %b : tensor<2x3xf8E4M3FN>, tensor<3x2xf8E4M3FN>) outs(%init : tensor<2x2xf32>) -> tensor<2x2xf32>
  check.expect_eq_const(%c, dense<[[6.5, 3.0], [6.25, -2.5]]> : tensor<2x2xf32>) : tensor<2x2xf32>
  return
}
