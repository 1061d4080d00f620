// TOSA ops (MLIR's TOSA 1.0 form), converted by rt-tosa-to-stablehlo and then
// iree-stablehlo-to-iree-input. Expected values computed by hand.

func.func @broadcasting_arithmetic() {
  %a = util.unfoldable_constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %b = util.unfoldable_constant dense<[[10.0, 20.0, 30.0]]> : tensor<1x3xf32>
  %s = tosa.add %a, %b : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  check.expect_almost_eq_const(%s, dense<[[11.0, 22.0, 33.0], [14.0, 25.0, 36.0]]> : tensor<2x3xf32>) : tensor<2x3xf32>
  %r = tosa.reciprocal %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  check.expect_almost_eq_const(%r, dense<[[1.0, 0.5, 0.333333], [0.25, 0.2, 0.166667]]> : tensor<2x3xf32>) : tensor<2x3xf32>
  %c = tosa.clamp %a {min_val = 2.0 : f32, max_val = 5.0 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  check.expect_almost_eq_const(%c, dense<[[2.0, 2.0, 3.0], [4.0, 5.0, 5.0]]> : tensor<2x3xf32>) : tensor<2x3xf32>
  return
}

func.func @integer_mul_shift_and_rounding_shift() {
  %a = util.unfoldable_constant dense<[3, -3, 7, 100]> : tensor<4xi32>
  %b = util.unfoldable_constant dense<[3, 3, 1, 3]> : tensor<4xi32>
  %shift = "tosa.const"() <{values = dense<2> : tensor<1xi8>}> : () -> tensor<1xi8>
  %m = tosa.mul %a, %b, %shift : (tensor<4xi32>, tensor<4xi32>, tensor<1xi8>) -> tensor<4xi32>
  check.expect_eq_const(%m, dense<[2, -2, 2, 75]> : tensor<4xi32>) : tensor<4xi32>
  %one = util.unfoldable_constant dense<[1, 1, 1, 2]> : tensor<4xi32>
  %r = tosa.arithmetic_right_shift %a, %one {round = true} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  check.expect_eq_const(%r, dense<[2, -1, 4, 25]> : tensor<4xi32>) : tensor<4xi32>
  return
}

func.func @reduce_matmul_transpose_reshape() {
  %x = util.unfoldable_constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %sum = tosa.reduce_sum %x {axis = 1 : i32} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  check.expect_almost_eq_const(%sum, dense<[[6.0], [15.0]]> : tensor<2x1xf32>) : tensor<2x1xf32>
  %t = tosa.transpose %x {perms = array<i32: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %shape = tosa.const_shape {values = dense<[1, 3, 2]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %t3 = tosa.reshape %t, %shape : (tensor<3x2xf32>, !tosa.shape<3>) -> tensor<1x3x2xf32>
  %shape2 = tosa.const_shape {values = dense<[1, 2, 3]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %x3 = tosa.reshape %x, %shape2 : (tensor<2x3xf32>, !tosa.shape<3>) -> tensor<1x2x3xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %mm = tosa.matmul %x3, %t3, %zp, %zp : (tensor<1x2x3xf32>, tensor<1x3x2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x2xf32>
  check.expect_almost_eq_const(%mm, dense<[[[14.0, 32.0], [32.0, 77.0]]]> : tensor<1x2x2xf32>) : tensor<1x2x2xf32>
  return
}

func.func @control_flow() {
  %n = util.unfoldable_constant dense<1> : tensor<i32>
  %r = tosa.while_loop (%i = %n) : (tensor<i32>) -> tensor<i32> {
    %limit = "tosa.const"() <{values = dense<20> : tensor<i32>}> : () -> tensor<i32>
    %go = tosa.greater %limit, %i : (tensor<i32>, tensor<i32>) -> tensor<i1>
    tosa.yield %go : tensor<i1>
  } do {
  ^bb0(%i: tensor<i32>):
    %d = tosa.add %i, %i : (tensor<i32>, tensor<i32>) -> tensor<i32>
    tosa.yield %d : tensor<i32>
  }
  check.expect_eq_const(%r, dense<32> : tensor<i32>) : tensor<i32>
  %big = tosa.greater %r, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
  %v = tosa.cond_if %big : tensor<i1> -> tensor<i32> {
    tosa.yield %n : tensor<i32>
  } else {
    tosa.yield %r : tensor<i32>
  }
  check.expect_eq_const(%v, dense<1> : tensor<i32>) : tensor<i32>
  return
}

func.func @table_lookup() {
  %x = util.unfoldable_constant dense<[-128, 0, 127, 5]> : tensor<4xi8>
  %t = "tosa.const"() <{values = dense<[127, 126, 125, 124, 123, 122, 121, 120, 119, 118, 117, 116, 115, 114, 113, 112, 111, 110, 109, 108, 107, 106, 105, 104, 103, 102, 101, 100, 99, 98, 97, 96, 95, 94, 93, 92, 91, 90, 89, 88, 87, 86, 85, 84, 83, 82, 81, 80, 79, 78, 77, 76, 75, 74, 73, 72, 71, 70, 69, 68, 67, 66, 65, 64, 63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46, 45, 44, 43, 42, 41, 40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, -1, -2, -3, -4, -5, -6, -7, -8, -9, -10, -11, -12, -13, -14, -15, -16, -17, -18, -19, -20, -21, -22, -23, -24, -25, -26, -27, -28, -29, -30, -31, -32, -33, -34, -35, -36, -37, -38, -39, -40, -41, -42, -43, -44, -45, -46, -47, -48, -49, -50, -51, -52, -53, -54, -55, -56, -57, -58, -59, -60, -61, -62, -63, -64, -65, -66, -67, -68, -69, -70, -71, -72, -73, -74, -75, -76, -77, -78, -79, -80, -81, -82, -83, -84, -85, -86, -87, -88, -89, -90, -91, -92, -93, -94, -95, -96, -97, -98, -99, -100, -101, -102, -103, -104, -105, -106, -107, -108, -109, -110, -111, -112, -113, -114, -115, -116, -117, -118, -119, -120, -121, -122, -123, -124, -125, -126, -127, -128]> : tensor<256xi8>}> : () -> tensor<256xi8>
  %y = tosa.table %x, %t : (tensor<4xi8>, tensor<256xi8>) -> tensor<4xi8>
  check.expect_eq_const(%y, dense<[127, -1, -128, -6]> : tensor<4xi8>) : tensor<4xi8>
  return
}
