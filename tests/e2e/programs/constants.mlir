// Dense and splat constants: dense f32/i8/i1/i64 operands, a 512x512 splat kept as a splat,
// and hex float bit patterns (+inf, -inf) inside a dense list.
func.func @dense_operands() {
  %x = util.unfoldable_constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %c = arith.constant dense<[[0.5, -1.0, 2.0], [0.0, 0.25, -0.5]]> : tensor<2x3xf32>
  %r = arith.mulf %x, %c : tensor<2x3xf32>
  check.expect_eq_const(%r, dense<[[0.5, -2.0, 6.0], [0.0, 1.25, -3.0]]> : tensor<2x3xf32>) : tensor<2x3xf32>
  %q = util.unfoldable_constant dense<[1, 2, 3, 4]> : tensor<4xi8>
  %k = arith.constant dense<[-1, 126, 0, 127]> : tensor<4xi8>
  %s = arith.addi %q, %k : tensor<4xi8>
  check.expect_eq_const(%s, dense<[0, -128, 3, -125]> : tensor<4xi8>) : tensor<4xi8>
  %m = arith.constant dense<[true, false, true, false]> : tensor<4xi1>
  %sel = arith.select %m, %q, %k : tensor<4xi1>, tensor<4xi8>
  check.expect_eq_const(%sel, dense<[1, 126, 3, 127]> : tensor<4xi8>) : tensor<4xi8>
  %l = util.unfoldable_constant dense<[1, 2]> : tensor<2xi64>
  %big = arith.constant dense<[1099511627776, -1099511627776]> : tensor<2xi64>
  %lb = arith.muli %l, %big : tensor<2xi64>
  check.expect_eq_const(%lb, dense<[1099511627776, -2199023255552]> : tensor<2xi64>) : tensor<2xi64>
  return
}

func.func @large_splat_sum() {
  %half = arith.constant dense<0.5> : tensor<512x512xf32>
  %x = util.unfoldable_constant dense<1.5> : tensor<512x512xf32>
  %y = arith.mulf %x, %half : tensor<512x512xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<512xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<512xf32>) -> tensor<512xf32>
  %rows = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                          iterator_types = ["parallel", "reduction"]}
      ins(%y : tensor<512x512xf32>) outs(%f : tensor<512xf32>) {
  ^bb0(%v: f32, %a: f32):
    %s = arith.addf %v, %a : f32
    linalg.yield %s : f32
  } -> tensor<512xf32>
  check.expect_eq_const(%rows, dense<384.0> : tensor<512xf32>) : tensor<512xf32>
  return
}

func.func @hex_float_bounds() {
  %x = util.unfoldable_constant dense<[-5.0, 0.5, 3.0]> : tensor<3xf32>
  %lo = arith.constant dense<[0xFF800000, 0.0, -1.0]> : tensor<3xf32>
  %hi = arith.constant dense<[0x7F800000, 1.0, 1.0]> : tensor<3xf32>
  %a = arith.maximumf %x, %lo : tensor<3xf32>
  %b = arith.minimumf %a, %hi : tensor<3xf32>
  check.expect_eq_const(%b, dense<[-5.0, 0.5, 1.0]> : tensor<3xf32>) : tensor<3xf32>
  %inf = arith.addf %hi, %hi : tensor<3xf32>
  check.expect_eq_const(%inf, dense<[0x7F800000, 2.0, 2.0]> : tensor<3xf32>) : tensor<3xf32>
  return
}
