// bf16 scalars on the host (tensor.extract, scalar arith, from_elements, splats, dispatch
// operands): held in f32 registers, each result rounded to nearest even, as IREE's bf16
// legalization computes inside dispatches. Expected values by hand; bits checked through i16.

// Elements read on the host, added there and written back: 1 + 2^-8 is a tie between 1 and
// 1 + 2^-7 and rounds to the even 1.0; 1 + 3 * 2^-8 rounds up to 1 + 2^-6 (1.015625).
func.func @extract_add_round() {
  %t = util.unfoldable_constant dense<[1.0, 0.00390625, 0.01171875]> : tensor<3xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %one = tensor.extract %t[%c0] : tensor<3xbf16>
  %a = tensor.extract %t[%c1] : tensor<3xbf16>
  %b = tensor.extract %t[%c2] : tensor<3xbf16>
  %x = arith.addf %one, %a : bf16
  %y = arith.addf %one, %b : bf16
  %r = tensor.from_elements %x, %y : tensor<2xbf16>
  check.expect_eq_const(%r, dense<[1.0, 1.015625]> : tensor<2xbf16>) : tensor<2xbf16>
  return
}

// Conversions on the host: truncf f32 -> bf16 (ties to even, NaN kept), bitcast to i16 (bits),
// sitofp of 2^24 + 1 and 257 (257 ties to 256), extf back to f32.
func.func @host_conversions() {
  %f = util.unfoldable_constant dense<[1.00390625, -3.0e38, 0x7FC00000, 5.5]> : tensor<4xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %f0 = tensor.extract %f[%c0] : tensor<4xf32>
  %f1 = tensor.extract %f[%c1] : tensor<4xf32>
  %f2 = tensor.extract %f[%c2] : tensor<4xf32>
  %f3 = tensor.extract %f[%c3] : tensor<4xf32>
  %b0 = arith.truncf %f0 : f32 to bf16
  %b1 = arith.truncf %f1 : f32 to bf16
  %b2 = arith.truncf %f2 : f32 to bf16
  %b3 = arith.truncf %f3 : f32 to bf16
  %i0 = arith.bitcast %b0 : bf16 to i16
  %i1 = arith.bitcast %b1 : bf16 to i16
  %i2 = arith.bitcast %b2 : bf16 to i16
  %i3 = arith.bitcast %b3 : bf16 to i16
  %bits = tensor.from_elements %i0, %i1, %i2, %i3 : tensor<4xi16>
  // 1.0 = 0x3F80; -3e38 rounds to 0xFF62 (-3.0050e38); quiet NaN 0x7FC0; 5.5 = 0x40B0
  check.expect_eq_const(%bits, dense<[16256, -158, 32704, 16560]> : tensor<4xi16>) : tensor<4xi16>
  %n = util.unfoldable_constant dense<[16777217, 257]> : tensor<2xi32>
  %n0 = tensor.extract %n[%c0] : tensor<2xi32>
  %n1 = tensor.extract %n[%c1] : tensor<2xi32>
  %s0 = arith.sitofp %n0 : i32 to bf16
  %s1 = arith.sitofp %n1 : i32 to bf16
  %w0 = arith.extf %s0 : bf16 to f32
  %w1 = arith.extf %s1 : bf16 to f32
  %w = tensor.from_elements %w0, %w1 : tensor<2xf32>
  check.expect_eq_const(%w, dense<[16777216.0, 256.0]> : tensor<2xf32>) : tensor<2xf32>
  return
}

// A bf16 computed on the host fills a tensor (a splat of its bits) and scales a tensor inside
// a dispatch (a push constant): 1.5 * 3 = 4.5, then [1, 2, 3, 4] * 4.5.
func.func @splat_and_operand() {
  %t = util.unfoldable_constant dense<[1.5, 3.0]> : tensor<2xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tensor.extract %t[%c0] : tensor<2xbf16>
  %b = tensor.extract %t[%c1] : tensor<2xbf16>
  %s = arith.mulf %a, %b : bf16
  %filled = tensor.splat %s : tensor<3xbf16>
  check.expect_eq_const(%filled, dense<4.5> : tensor<3xbf16>) : tensor<3xbf16>
  %x = util.unfoldable_constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xbf16>
  %e = tensor.empty() : tensor<4xbf16>
  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<4xbf16>) outs(%e : tensor<4xbf16>) {
  ^bb0(%v: bf16, %o: bf16):
    %m = arith.mulf %v, %s : bf16
    linalg.yield %m : bf16
  } -> tensor<4xbf16>
  check.expect_eq_const(%y, dense<[4.5, 9.0, 13.5, 18.0]> : tensor<4xbf16>) : tensor<4xbf16>
  return
}
