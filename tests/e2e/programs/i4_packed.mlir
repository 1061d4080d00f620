// i4 / ui4 / i2 stored two (four) to a byte as IREE stores them: element 0 in the low bits.
// Every tensor here is a whole number of bytes, as IREE 3.13 requires (odd sizes, which rt
// rounds up, are in i4_odd_sizes.mlir). Expected values by hand: i4 arithmetic wraps modulo 16,
// signed views sign-extend.

// Wrapping i4 add on a 2x8 shape and its sign extension to i8.
func.func @add_and_widen() {
  %a = util.unfoldable_constant dense<[[1, -8, 7, 0, 3, -1, 2, 5], [-6, 4, 6, 6, -3, 1, -8, 2]]> : tensor<2x8xi4>
  %b = util.unfoldable_constant dense<[[1, -1, 1, 5, -3, 1, 7, 3], [-3, 4, 2, -7, -5, 1, -8, 3]]> : tensor<2x8xi4>
  %init = tensor.empty() : tensor<2x8xi4>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                         iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<2x8xi4>, tensor<2x8xi4>) outs(%init : tensor<2x8xi4>) {
  ^bb0(%x: i4, %y: i4, %o: i4):
    %s = arith.addi %x, %y : i4
    linalg.yield %s : i4
  } -> tensor<2x8xi4>
  check.expect_eq_const(%sum, dense<[[2, 7, -8, 5, 0, 0, -7, -8], [7, -8, -8, -1, 8, 2, 0, 5]]> : tensor<2x8xi4>) : tensor<2x8xi4>
  %e8 = tensor.empty() : tensor<2x8xi8>
  %wide = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                          iterator_types = ["parallel", "parallel"]}
      ins(%sum : tensor<2x8xi4>) outs(%e8 : tensor<2x8xi8>) {
  ^bb0(%x: i4, %o: i8):
    %w = arith.extsi %x : i4 to i8
    linalg.yield %w : i8
  } -> tensor<2x8xi8>
  check.expect_eq_const(%wide, dense<[[2, 7, -8, 5, 0, 0, -7, -8], [7, -8, -8, -1, -8, 2, 0, 5]]> : tensor<2x8xi8>) : tensor<2x8xi8>
  return
}

// extui reads the same bits as unsigned; row 1 starts mid-byte and the transposed read crosses
// nibbles of different bytes.
func.func @extui_and_transpose() {
  %a = util.unfoldable_constant dense<[[-1, 0, 1], [-8, 7, 2]]> : tensor<2x3xi4>
  %init = tensor.empty() : tensor<3x2xi32>
  %t = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<2x3xi4>) outs(%init : tensor<3x2xi32>) {
  ^bb0(%x: i4, %o: i32):
    %w = arith.extui %x : i4 to i32
    linalg.yield %w : i32
  } -> tensor<3x2xi32>
  check.expect_eq_const(%t, dense<[[15, 8], [0, 7], [1, 2]]> : tensor<3x2xi32>) : tensor<3x2xi32>
  return
}

// A splat i4 constant fills whole bytes (0x55 for 5); a reduction of i4 into i32.
func.func @splat_and_reduce() {
  %five = arith.constant 5 : i4
  %empty = tensor.empty() : tensor<10xi4>
  %fill = linalg.fill ins(%five : i4) outs(%empty : tensor<10xi4>) -> tensor<10xi4>
  %bar = util.optimization_barrier %fill : tensor<10xi4>
  %zero = arith.constant 0 : i32
  %e32 = tensor.empty() : tensor<i32>
  %init = linalg.fill ins(%zero : i32) outs(%e32 : tensor<i32>) -> tensor<i32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
                         iterator_types = ["reduction"]}
      ins(%bar : tensor<10xi4>) outs(%init : tensor<i32>) {
  ^bb0(%x: i4, %acc: i32):
    %w = arith.extsi %x : i4 to i32
    %s = arith.addi %acc, %w : i32
    linalg.yield %s : i32
  } -> tensor<i32>
  check.expect_eq_const(%sum, dense<50> : tensor<i32>) : tensor<i32>
  return
}

// i2 four to a byte, from f32 through fptosi / trunci.
func.func @i2_from_float() {
  %x = util.unfoldable_constant dense<[0.0, 1.0, -1.0, -2.0, 1.0, 0.0, -2.0, -1.0]> : tensor<8xf32>
  %init = tensor.empty() : tensor<8xi2>
  %t = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%init : tensor<8xi2>) {
  ^bb0(%v: f32, %o: i2):
    %i = arith.fptosi %v : f32 to i32
    %n = arith.trunci %i : i32 to i2
    linalg.yield %n : i2
  } -> tensor<8xi2>
  check.expect_eq_const(%t, dense<[0, 1, -1, -2, 1, 0, -2, -1]> : tensor<8xi2>) : tensor<8xi2>
  return
}
