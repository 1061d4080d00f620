// math on f32 tensors: exp, log, tanh, sqrt, rsqrt, absf, floor, ceil.
func.func @exp_log() {
  %x = util.unfoldable_constant dense<[0.5, 1.0, 2.0, 4.0]> : tensor<4xf32>
  %e = math.exp %x : tensor<4xf32>
  %l = math.log %x : tensor<4xf32>
  check.expect_almost_eq_const(%e, dense<[1.6487212, 2.7182817, 7.3890562, 54.598150]> : tensor<4xf32>, atol 1.0e-04, rtol 1.0e-05) : tensor<4xf32>
  check.expect_almost_eq_const(%l, dense<[-0.69314718, 0.0, 0.69314718, 1.3862944]> : tensor<4xf32>) : tensor<4xf32>
  return
}

func.func @tanh() {
  %x = util.unfoldable_constant dense<[-4.0, -0.5, 0.0, 0.5, 1.0, 2.0, 4.0, 10.0]> : tensor<8xf32>
  %t = math.tanh %x : tensor<8xf32>
  check.expect_almost_eq_const(%t, dense<[-0.99932930, -0.46211716, 0.0, 0.46211716, 0.76159416, 0.96402758, 0.99932930, 1.0]> : tensor<8xf32>) : tensor<8xf32>
  return
}

func.func @sqrt_rsqrt() {
  %x = util.unfoldable_constant dense<[0.5, 1.0, 2.0, 4.0]> : tensor<4xf32>
  %s = math.sqrt %x : tensor<4xf32>
  %r = math.rsqrt %x : tensor<4xf32>
  check.expect_almost_eq_const(%s, dense<[0.70710678, 1.0, 1.4142136, 2.0]> : tensor<4xf32>) : tensor<4xf32>
  check.expect_almost_eq_const(%r, dense<[1.4142136, 1.0, 0.70710678, 0.5]> : tensor<4xf32>) : tensor<4xf32>
  return
}

func.func @abs_floor_ceil() {
  %x = util.unfoldable_constant dense<[-2.5, -0.5, 0.5, 2.5]> : tensor<4xf32>
  %a = math.absf %x : tensor<4xf32>
  %f = math.floor %x : tensor<4xf32>
  %c = math.ceil %x : tensor<4xf32>
  check.expect_eq_const(%a, dense<[2.5, 0.5, 0.5, 2.5]> : tensor<4xf32>) : tensor<4xf32>
  check.expect_eq_const(%f, dense<[-3.0, -1.0, 0.0, 2.0]> : tensor<4xf32>) : tensor<4xf32>
  check.expect_almost_eq_const(%c, dense<[-2.0, 0.0, 1.0, 3.0]> : tensor<4xf32>) : tensor<4xf32>
  return
}
