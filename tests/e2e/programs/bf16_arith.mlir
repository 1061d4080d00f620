// bf16 end to end: storage as bf16, computed in f32 and rounded to nearest even when stored
// (a yield into a bf16 output, each step of a reduction included), at arith.truncf and at
// arith.bitcast, as IREE's llvm-cpu computes it. Expected values computed with ml_dtypes.

// (a + b) * b is rounded once, on store: [5] gives 0.06005859375 (rounding after the add too
// would give 0.060302734375); [6] overflows to +inf; [7] is a subnormal times itself.
func.func @add_then_mul_rounds_on_store() {
  %a = util.unfoldable_constant dense<[1.0, 256.0, 3.140625, -2.5, 100.0, 0.10009765625, 3.00405527047391e+38, -9.183549615799121e-41]> : tensor<8xbf16>
  %b = util.unfoldable_constant dense<[0.00390625, 1.0, 1.0, 0.5, 3.0, 0.2001953125, 3.00405527047391e+38, 9.183549615799121e-41]> : tensor<8xbf16>
  %init = tensor.empty() : tensor<8xbf16>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%a, %b : tensor<8xbf16>, tensor<8xbf16>) outs(%init : tensor<8xbf16>) {
  ^bb0(%x: bf16, %y: bf16, %o: bf16):
    %s = arith.addf %x, %y : bf16
    %m = arith.mulf %s, %y : bf16
    linalg.yield %m : bf16
  } -> tensor<8xbf16>
  %bits = arith.bitcast %r : tensor<8xbf16> to tensor<8xi16>
  check.expect_eq_const(%bits, dense<[15232, 17280, 16516, -16512, 17306, 15734, 32640, 0]> : tensor<8xi16>) : tensor<8xi16>
  return
}

// arith.truncf f32 -> bf16: ties to even, overflow to inf, NaN, -0, subnormals.
func.func @truncf_edge_cases() {
  %x = util.unfoldable_constant dense<[1.00390625, 1.01171875, 3.39617752923046e+38, 3.3895313892515355e+38, 0x7F800000, 0xFF800000, 0x7FC00000, -0.0, 9.999665841421895e-42, 9.199944807831722e-41, 65504.0, 0.1]> : tensor<12xf32>
  %t = arith.truncf %x : tensor<12xf32> to tensor<12xbf16>
  %bits = arith.bitcast %t : tensor<12xbf16> to tensor<12xi16>
  check.expect_eq_const(%bits, dense<[16256, 16258, 32640, 32639, 32640, -128, 32704, -32768, 0, 1, 18304, 15821]> : tensor<12xi16>) : tensor<12xi16>
  %e = arith.extf %t : tensor<12xbf16> to tensor<12xf32>
  %e4 = tensor.extract_slice %e[0] [4] [1] : tensor<12xf32> to tensor<4xf32>
  check.expect_eq_const(%e4, dense<[1.0, 1.015625, 0x7F800000, 3.3895313892515355e+38]> : tensor<4xf32>) : tensor<4xf32>
  return
}

// Division (x/0 = inf), math.exp and math.sqrt on bf16 tensors, rounded to bf16.
func.func @divide_and_math() {
  %d = util.unfoldable_constant dense<[1.0, 2.0, -7.0, 1.0]> : tensor<4xbf16>
  %e = util.unfoldable_constant dense<[3.0, 3.0, 0.0, 0.0]> : tensor<4xbf16>
  %q = arith.divf %d, %e : tensor<4xbf16>
  check.expect_eq_const(%q, dense<[0.333984375, 0.66796875, 0xFF80, 0x7F80]> : tensor<4xbf16>) : tensor<4xbf16>
  %z = util.unfoldable_constant dense<[0.5, -1.0, 2.0, 10.0]> : tensor<4xbf16>
  %ex = math.exp %z : tensor<4xbf16>
  check.expect_almost_eq_const(%ex, dense<[1.6484375, 0.3671875, 7.375, 22016.0]> : tensor<4xbf16>) : tensor<4xbf16>
  %ab = math.absf %z : tensor<4xbf16>
  %sq = math.sqrt %ab : tensor<4xbf16>
  check.expect_eq_const(%sq, dense<[0.70703125, 1.0, 1.4140625, 3.15625]> : tensor<4xbf16>) : tensor<4xbf16>
  return
}

// A bf16 reduction accumulates in bf16 (the output's type), rounding after every step: the
// column sums 256 + 1 + ... stay 256 and 0.1 + ... + 0.8 gives 3.59375; an f32 accumulator
// rounded once would give 264 and 3.609375. Reduced along dim 0 so the order is k ascending.
func.func @reduction_accumulates_in_bf16() {
  %m = util.unfoldable_constant dense<[[256.0, 1.0, 0.10009765625], [1.0, 2.0, 0.2001953125], [1.0, 3.0, 0.30078125], [1.0, 4.0, 0.400390625], [1.0, 5.0, 0.5], [1.0, 6.0, 0.6015625], [1.0, 7.0, 0.69921875], [1.0, 8.0, 0.80078125]]> : tensor<8x3xbf16>
  %zero = arith.constant 0.0 : bf16
  %empty = tensor.empty() : tensor<3xbf16>
  %init = linalg.fill ins(%zero : bf16) outs(%empty : tensor<3xbf16>) -> tensor<3xbf16>
  %sum = linalg.reduce ins(%m : tensor<8x3xbf16>) outs(%init : tensor<3xbf16>) dimensions = [0]
    (%in: bf16, %acc: bf16) {
      %s = arith.addf %in, %acc : bf16
      linalg.yield %s : bf16
    }
  check.expect_eq_const(%sum, dense<[256.0, 36.0, 3.59375]> : tensor<3xbf16>) : tensor<3xbf16>
  return
}

// cmpf / select / maximumf on bf16, and conversions to and from integers.
func.func @compare_select_and_int_conversions() {
  %a = util.unfoldable_constant dense<[1.0, -2.0, 0x7FC0, 3.0]> : tensor<4xbf16>
  %b = util.unfoldable_constant dense<[1.0, 5.0, 1.0, -3.0]> : tensor<4xbf16>
  %lt = arith.cmpf olt, %a, %b : tensor<4xbf16>
  %sel = arith.select %lt, %a, %b : tensor<4xi1>, tensor<4xbf16>
  check.expect_eq_const(%sel, dense<[1.0, -2.0, 1.0, -3.0]> : tensor<4xbf16>) : tensor<4xbf16>
  %mx = arith.maximumf %a, %b : tensor<4xbf16>
  %mxb = arith.bitcast %mx : tensor<4xbf16> to tensor<4xi16>
  check.expect_eq_const(%mxb, dense<[16256, 16544, 32704, 16448]> : tensor<4xi16>) : tensor<4xi16>
  %i = util.unfoldable_constant dense<[257, 259, -16777217, 1000]> : tensor<4xi32>
  %f = arith.sitofp %i : tensor<4xi32> to tensor<4xbf16>
  check.expect_eq_const(%f, dense<[256.0, 260.0, -16777216.0, 1000.0]> : tensor<4xbf16>) : tensor<4xbf16>
  %back = arith.fptosi %b : tensor<4xbf16> to tensor<4xi32>
  check.expect_eq_const(%back, dense<[1, 5, 1, -3]> : tensor<4xi32>) : tensor<4xi32>
  return
}
