// i1 tensors with #iree_encoding.packed_storage: eight elements to a byte, element k at bit
// k % 8 of byte k / 8, visible through flow.tensor.bitcast. Expected values by hand.

#packed = #iree_encoding.packed_storage

// Bytes seen as bits: 5 sets elements 0 and 2, 64 sets element 14.
func.func @unpack_bytes() {
  %bytes = util.unfoldable_constant dense<[5, 64]> : tensor<2xi8>
  %bits = flow.tensor.bitcast %bytes : tensor<2xi8> -> tensor<16xi1, #packed>
  %e = tensor.empty() : tensor<16xi8>
  %wide = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%bits : tensor<16xi1, #packed>) outs(%e : tensor<16xi8>) {
  ^bb0(%b: i1, %o: i8):
    %w = arith.extui %b : i1 to i8
    linalg.yield %w : i8
  } -> tensor<16xi8>
  check.expect_eq_const(%wide, dense<[1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0]> : tensor<16xi8>) : tensor<16xi8>
  return
}

// A comparison written into a packed 2x8 mask, read back as bytes:
// row 0 > 0 at 1, 2, 4, 6, 7 -> 214 (-42 as i8); row 1 at 1, 2, 4, 5, 7 -> 182 (-74).
func.func @pack_comparison() {
  %x = util.unfoldable_constant dense<[[-1.0, 2.0, 3.0, -4.0, 5.0, 0.0, 7.0, 8.0],
                                       [-9.0, 10.0, 11.0, -12.0, 13.0, 14.0, -15.0, 16.0]]> : tensor<2x8xf32>
  %e = tensor.empty() : tensor<2x8xi1, #packed>
  %mask = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                          iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<2x8xf32>) outs(%e : tensor<2x8xi1, #packed>) {
  ^bb0(%v: f32, %o: i1):
    %zero = arith.constant 0.0 : f32
    %gt = arith.cmpf ogt, %v, %zero : f32
    linalg.yield %gt : i1
  } -> tensor<2x8xi1, #packed>
  %bytes = flow.tensor.bitcast %mask : tensor<2x8xi1, #packed> -> tensor<2xi8>
  check.expect_eq_const(%bytes, dense<[-42, -74]> : tensor<2xi8>) : tensor<2xi8>
  return
}

// Slices that start in the middle of a byte: bits 4..11 of [240, 15, 170] are all set (255);
// bits 12..19 are 0000 0101 from element 12 up (160).
func.func @slice_mid_byte() {
  %bytes = util.unfoldable_constant dense<[-16, 15, -86]> : tensor<3xi8>
  %bits = flow.tensor.bitcast %bytes : tensor<3xi8> -> tensor<24xi1, #packed>
  %a = tensor.extract_slice %bits[4] [8] [1] : tensor<24xi1, #packed> to tensor<8xi1, #packed>
  %b = tensor.extract_slice %bits[12] [8] [1] : tensor<24xi1, #packed> to tensor<8xi1, #packed>
  %a8 = flow.tensor.bitcast %a : tensor<8xi1, #packed> -> tensor<1xi8>
  %b8 = flow.tensor.bitcast %b : tensor<8xi1, #packed> -> tensor<1xi8>
  check.expect_eq_const(%a8, dense<-1> : tensor<1xi8>) : tensor<1xi8>
  check.expect_eq_const(%b8, dense<-96> : tensor<1xi8>) : tensor<1xi8>
  return
}

// An i16 seen as a packed 4x4 mask (little endian: 258 = bytes [2, 1] sets elements 1 and 8),
// inverted with xori and read back as i16 (~258 = -259).
func.func @i16_mask_inverted() {
  %word = util.unfoldable_constant dense<258> : tensor<1xi16>
  %bits = flow.tensor.bitcast %word : tensor<1xi16> -> tensor<4x4xi1, #packed>
  %true = arith.constant dense<true> : tensor<4x4xi1, #packed>
  %e = tensor.empty() : tensor<4x4xi1, #packed>
  %inv = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                         iterator_types = ["parallel", "parallel"]}
      ins(%bits, %true : tensor<4x4xi1, #packed>, tensor<4x4xi1, #packed>) outs(%e : tensor<4x4xi1, #packed>) {
  ^bb0(%x: i1, %t: i1, %o: i1):
    %n = arith.xori %x, %t : i1
    linalg.yield %n : i1
  } -> tensor<4x4xi1, #packed>
  %e8 = tensor.empty() : tensor<4x4xi8>
  %wide = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                          iterator_types = ["parallel", "parallel"]}
      ins(%bits : tensor<4x4xi1, #packed>) outs(%e8 : tensor<4x4xi8>) {
  ^bb0(%b: i1, %o: i8):
    %w = arith.extui %b : i1 to i8
    linalg.yield %w : i8
  } -> tensor<4x4xi8>
  check.expect_eq_const(%wide, dense<[[0, 1, 0, 0], [0, 0, 0, 0], [1, 0, 0, 0], [0, 0, 0, 0]]> : tensor<4x4xi8>) : tensor<4x4xi8>
  %back = flow.tensor.bitcast %inv : tensor<4x4xi1, #packed> -> tensor<1xi16>
  check.expect_eq_const(%back, dense<-259> : tensor<1xi16>) : tensor<1xi16>
  return
}

// A packed 2x2x8 mask round-trips unchanged through an optimization barrier.
func.func @round_trip_3d() {
  %bytes = util.unfoldable_constant dense<[1, -128, 85, 0]> : tensor<4xi8>
  %bits = flow.tensor.bitcast %bytes : tensor<4xi8> -> tensor<2x2x8xi1, #packed>
  %kept = util.optimization_barrier %bits : tensor<2x2x8xi1, #packed>
  %back = flow.tensor.bitcast %kept : tensor<2x2x8xi1, #packed> -> tensor<4xi8>
  check.expect_eq_const(%back, dense<[1, -128, 85, 0]> : tensor<4xi8>) : tensor<4xi8>
  return
}
