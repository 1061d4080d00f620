// Casts on tensors: sitofp, fptosi, uitofp, extsi, extui, trunci, extf, truncf.
func.func @sitofp_fptosi() {
  %i = util.unfoldable_constant dense<[-3, 0, 7, 16777217]> : tensor<4xi32>
  %f = arith.sitofp %i : tensor<4xi32> to tensor<4xf32>
  check.expect_eq_const(%f, dense<[-3.0, 0.0, 7.0, 16777216.0]> : tensor<4xf32>) : tensor<4xf32>
  %g = util.unfoldable_constant dense<[-2.7, -0.5, 0.5, 2.7]> : tensor<4xf32>
  %j = arith.fptosi %g : tensor<4xf32> to tensor<4xi32>
  check.expect_eq_const(%j, dense<[-2, 0, 0, 2]> : tensor<4xi32>) : tensor<4xi32>
  return
}

func.func @uitofp_i8() {
  %i = util.unfoldable_constant dense<[-1, -128, 0, 127]> : tensor<4xi8>
  %f = arith.uitofp %i : tensor<4xi8> to tensor<4xf32>
  check.expect_eq_const(%f, dense<[255.0, 128.0, 0.0, 127.0]> : tensor<4xf32>) : tensor<4xf32>
  return
}

func.func @extsi_extui_i8() {
  %i = util.unfoldable_constant dense<[-128, -1, 0, 127]> : tensor<4xi8>
  %s = arith.extsi %i : tensor<4xi8> to tensor<4xi32>
  %u = arith.extui %i : tensor<4xi8> to tensor<4xi32>
  check.expect_eq_const(%s, dense<[-128, -1, 0, 127]> : tensor<4xi32>) : tensor<4xi32>
  check.expect_eq_const(%u, dense<[128, 255, 0, 127]> : tensor<4xi32>) : tensor<4xi32>
  return
}

func.func @trunci_i32_to_i8() {
  %i = util.unfoldable_constant dense<[300, -129, 255, 128]> : tensor<4xi32>
  %t = arith.trunci %i : tensor<4xi32> to tensor<4xi8>
  check.expect_eq_const(%t, dense<[44, 127, -1, -128]> : tensor<4xi8>) : tensor<4xi8>
  return
}

func.func @extsi_trunci_i64() {
  %i = util.unfoldable_constant dense<[-5, 2147483647]> : tensor<2xi32>
  %e = arith.extsi %i : tensor<2xi32> to tensor<2xi64>
  check.expect_eq_const(%e, dense<[-5, 2147483647]> : tensor<2xi64>) : tensor<2xi64>
  %w = util.unfoldable_constant dense<[4294967297, -4294967296, 2147483648]> : tensor<3xi64>
  %t = arith.trunci %w : tensor<3xi64> to tensor<3xi32>
  check.expect_eq_const(%t, dense<[1, 0, -2147483648]> : tensor<3xi32>) : tensor<3xi32>
  return
}

func.func @extf_truncf_f16() {
  %h = util.unfoldable_constant dense<[1.0, 0.1, 65504.0, -2.5]> : tensor<4xf16>
  %f = arith.extf %h : tensor<4xf16> to tensor<4xf32>
  check.expect_eq_const(%f, dense<[1.0, 0.0999755859375, 65504.0, -2.5]> : tensor<4xf32>) : tensor<4xf32>
  %g = util.unfoldable_constant dense<[0.1, 1.0e-3, 3.14159274, -7.0]> : tensor<4xf32>
  %t = arith.truncf %g : tensor<4xf32> to tensor<4xf16>
  check.expect_eq_const(%t, dense<[0.1, 1.0e-3, 3.140625, -7.0]> : tensor<4xf16>) : tensor<4xf16>
  return
}
