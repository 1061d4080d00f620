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
