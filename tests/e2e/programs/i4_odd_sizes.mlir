// Packed i4 / i2 tensors whose element count is not a whole number of bytes: rt rounds the
// storage up (ceil(count * bits / 8), the last byte's padding bits untouched), as the runtime's
// iree_hal_element_packed_byte_count sizes such buffers. IREE 3.13's compiler rejects them
// ("does not have integral number of total bytes"); the oracle run lists this file as an rt
// extension. Expected values by hand.

// Odd sizes and a 2-D shape whose rows start in the middle of a byte: 3x5 i4 is 8 bytes.
func.func @odd_shapes_add_and_widen() {
  %a = util.unfoldable_constant dense<[[1, -8, 7, 0, 3], [-1, 2, 5, -6, 4], [6, 6, -3, 1, -8]]> : tensor<3x5xi4>
  %b = util.unfoldable_constant dense<[[1, -1, 1, 5, -3], [1, 7, 3, -3, 4], [2, -7, -5, 1, -8]]> : tensor<3x5xi4>
  %init = tensor.empty() : tensor<3x5xi4>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                         iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<3x5xi4>, tensor<3x5xi4>) outs(%init : tensor<3x5xi4>) {
  ^bb0(%x: i4, %y: i4, %o: i4):
    %s = arith.addi %x, %y : i4
    linalg.yield %s : i4
  } -> tensor<3x5xi4>
  check.expect_eq_const(%sum, dense<[[2, 7, -8, 5, 0], [0, -7, -8, 7, -8], [-8, -1, 8, 2, 0]]> : tensor<3x5xi4>) : tensor<3x5xi4>
  %e8 = tensor.empty() : tensor<3x5xi8>
  %wide = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                          iterator_types = ["parallel", "parallel"]}
      ins(%sum : tensor<3x5xi4>) outs(%e8 : tensor<3x5xi8>) {
  ^bb0(%x: i4, %o: i8):
    %w = arith.extsi %x : i4 to i8
    linalg.yield %w : i8
  } -> tensor<3x5xi8>
  check.expect_eq_const(%wide, dense<[[2, 7, -8, 5, 0], [0, -7, -8, 7, -8], [-8, -1, -8, 2, 0]]> : tensor<3x5xi8>) : tensor<3x5xi8>
  return
}

// A splat i4 constant fills whole bytes (0x55 for 5); a reduction of i4 into i32.
func.func @splat_and_reduce() {
  %five = arith.constant 5 : i4
  %empty = tensor.empty() : tensor<9xi4>
  %fill = linalg.fill ins(%five : i4) outs(%empty : tensor<9xi4>) -> tensor<9xi4>
  %bar = util.optimization_barrier %fill : tensor<9xi4>
  %zero = arith.constant 0 : i32
  %e32 = tensor.empty() : tensor<i32>
  %init = linalg.fill ins(%zero : i32) outs(%e32 : tensor<i32>) -> tensor<i32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
                         iterator_types = ["reduction"]}
      ins(%bar : tensor<9xi4>) outs(%init : tensor<i32>) {
  ^bb0(%x: i4, %acc: i32):
    %w = arith.extsi %x : i4 to i32
    %s = arith.addi %acc, %w : i32
    linalg.yield %s : i32
  } -> tensor<i32>
  check.expect_eq_const(%sum, dense<45> : tensor<i32>) : tensor<i32>
  return
}

// i2 four to a byte, from f32 through fptosi / trunci.
func.func @i2_from_float() {
  %x = util.unfoldable_constant dense<[0.0, 1.0, -1.0, -2.0, 1.0, 0.0, -2.0]> : tensor<7xf32>
  %init = tensor.empty() : tensor<7xi2>
  %t = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<7xf32>) outs(%init : tensor<7xi2>) {
  ^bb0(%v: f32, %o: i2):
    %i = arith.fptosi %v : f32 to i32
    %n = arith.trunci %i : i32 to i2
    linalg.yield %n : i2
  } -> tensor<7xi2>
  check.expect_eq_const(%t, dense<[0, 1, -1, -2, 1, 0, -2]> : tensor<7xi2>) : tensor<7xi2>
  return
}
