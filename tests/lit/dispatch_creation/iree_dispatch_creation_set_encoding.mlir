// RUN: python -m rt opt --split-input-file --pass=iree-dispatch-creation-set-encoding %s | filecheck %s

// Tests that a dynamic f32 matmul gets LHS/RHS/RESULT encodings, an encoded fill of an empty and an unset_encoding with the result dims (seed 001).
// CHECK-LABEL: func.func @matmul_f32
// CHECK: %[[LHS:.+]] = iree_encoding.set_encoding %a : tensor<?x?xf32> -> tensor<?x?xf32, #iree_encoding.encoding<operand_index = 0 : index, op_type = matmul, element_types = [f32, f32, f32], user_indexing_maps = [{{.+}}], iteration_sizes = [?, ?, ?]>>{%{{.+}}, %{{.+}}}
// CHECK: %[[RHS:.+]] = iree_encoding.set_encoding %b{{.*}} -> tensor<?x?xf32, #iree_encoding.encoding<operand_index = 1 : index
// CHECK: %[[E:.+]] = tensor.empty(%m, %n) : tensor<?x?xf32, #iree_encoding.encoding<operand_index = 2 : index
// CHECK: %[[F:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%[[E]] : tensor<?x?xf32, #iree_encoding.encoding<operand_index = 2 : index
// CHECK: %[[MM:.+]] = linalg.matmul ins(%[[LHS]], %[[RHS]] : {{.+}}) outs(%[[F]] : {{.+}})
// CHECK: %[[R:.+]] = iree_encoding.unset_encoding %[[MM]] : {{.+}} -> tensor<?x?xf32>{%m, %n}
// CHECK: return %[[R]]
func.func @matmul_f32(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %m: index, %n: index) -> tensor<?x?xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%f : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// Tests that static i8 x i8 -> i32 sizes are recorded and an init that is not a fill is set_encoding'd.
// CHECK-LABEL: func.func @matmul_i8
// CHECK: iree_encoding.set_encoding %a : tensor<3x8xi8> -> tensor<3x8xi8, #iree_encoding.encoding<operand_index = 0 : index, op_type = matmul, element_types = [i8, i8, i32], {{.+}}, iteration_sizes = [3, 5, 8]>>
// CHECK: iree_encoding.set_encoding %b
// CHECK: %[[C:.+]] = iree_encoding.set_encoding %c : tensor<3x5xi32> -> tensor<3x5xi32, #iree_encoding.encoding<operand_index = 2 : index
// CHECK: linalg.matmul {{.+}} outs(%[[C]] :
// CHECK: iree_encoding.unset_encoding {{.+}} -> tensor<3x5xi32>
func.func @matmul_i8(%a: tensor<3x8xi8>, %b: tensor<8x5xi8>, %c: tensor<3x5xi32>) -> tensor<3x5xi32> {
  %r = linalg.matmul ins(%a, %b : tensor<3x8xi8>, tensor<8x5xi8>) outs(%c : tensor<3x5xi32>) -> tensor<3x5xi32>
  return %r : tensor<3x5xi32>
}

// -----

// Tests that batch_matmul, matvec and vecmat operands get encodings with their own maps and loop-order iteration sizes, and f16 x f16 -> f32 is data-tiled.
// CHECK-LABEL: func.func @contractions
// CHECK: iree_encoding.set_encoding %x : tensor<2x4x8xf32> -> tensor<2x4x8xf32, #iree_encoding.encoding<operand_index = 0 : index, op_type = matmul, element_types = [f32, f32, f32], user_indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iteration_sizes = [2, 4, 4, 8]>>
// CHECK: linalg.batch_matmul
// CHECK: iree_encoding.unset_encoding {{.+}} -> tensor<2x4x4xf32>
// CHECK: iree_encoding.set_encoding %v : tensor<256xf32> -> tensor<256xf32, #iree_encoding.encoding<operand_index = 1 : index, op_type = matmul, element_types = [f32, f32, f32], user_indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>], iteration_sizes = [128, 256]>>
// CHECK: linalg.matvec
// CHECK: iree_encoding.set_encoding %v : tensor<256xf32> -> tensor<256xf32, #iree_encoding.encoding<operand_index = 0 : index, op_type = matmul, element_types = [f32, f32, f32], user_indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>]
// CHECK: linalg.vecmat
// CHECK: iree_encoding.set_encoding %h : tensor<4x8xf16> -> tensor<4x8xf16, #iree_encoding.encoding<operand_index = 0 : index, op_type = matmul, element_types = [f16, f16, f32]
// CHECK: linalg.matmul
// CHECK: iree_encoding.unset_encoding {{.+}} -> tensor<4x4xf32>
func.func @contractions(%x: tensor<2x4x8xf32>, %y: tensor<2x8x4xf32>, %z: tensor<2x4x4xf32>, %a: tensor<128x256xf32>, %v: tensor<256xf32>, %w: tensor<128xf32>, %b: tensor<256x128xf32>, %h: tensor<4x8xf16>, %g: tensor<8x4xf16>, %c: tensor<4x4xf32>) -> (tensor<2x4x4xf32>, tensor<128xf32>, tensor<128xf32>, tensor<4x4xf32>) {
  %0 = linalg.batch_matmul ins(%x, %y : tensor<2x4x8xf32>, tensor<2x8x4xf32>) outs(%z : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %1 = linalg.matvec ins(%a, %v : tensor<128x256xf32>, tensor<256xf32>) outs(%w : tensor<128xf32>) -> tensor<128xf32>
  %2 = linalg.vecmat ins(%v, %b : tensor<256xf32>, tensor<256x128xf32>) outs(%w : tensor<128xf32>) -> tensor<128xf32>
  %3 = linalg.matmul ins(%h, %g : tensor<4x8xf16>, tensor<8x4xf16>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0, %1, %2, %3 : tensor<2x4x4xf32>, tensor<128xf32>, tensor<128xf32>, tensor<4x4xf32>
}

// -----

// Tests that a matvec or vecmat whose static matrix has at most 16384 elements (a classifier head) stays plain, while a dynamic one is data-tiled.
// CHECK-LABEL: func.func @small_narrow
// CHECK-NOT: iree_encoding
// CHECK: linalg.vecmat ins(%v, %b : tensor<128xf32>, tensor<128x10xf32>)
// CHECK: linalg.matvec ins(%a, %v : tensor<10x128xf32>, tensor<128xf32>)
// CHECK: iree_encoding.set_encoding %d
// CHECK: linalg.matvec
func.func @small_narrow(%v: tensor<128xf32>, %b: tensor<128x10xf32>, %a: tensor<10x128xf32>, %w: tensor<10xf32>, %d: tensor<?x128xf32>, %e: tensor<?xf32>) -> (tensor<10xf32>, tensor<10xf32>, tensor<?xf32>) {
  %0 = linalg.vecmat ins(%v, %b : tensor<128xf32>, tensor<128x10xf32>) outs(%w : tensor<10xf32>) -> tensor<10xf32>
  %1 = linalg.matvec ins(%a, %v : tensor<10x128xf32>, tensor<128xf32>) outs(%w : tensor<10xf32>) -> tensor<10xf32>
  %2 = linalg.matvec ins(%d, %v : tensor<?x128xf32>, tensor<128xf32>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  return %0, %1, %2 : tensor<10xf32>, tensor<10xf32>, tensor<?xf32>
}

// -----

// Tests that bf16 x bf16 matmuls are data-tiled into f32 and into bf16 (the tile kernel keeps a
// bf16 accumulator), while f8 and packed i4 operands are left as they are.
// CHECK-LABEL: func.func @narrow_types
// CHECK: iree_encoding.set_encoding %a : tensor<4x8xbf16> -> tensor<4x8xbf16, #iree_encoding.encoding<operand_index = 0 : index, op_type = matmul, element_types = [bf16, bf16, f32]
// CHECK: iree_encoding.unset_encoding {{.+}} -> tensor<4x4xf32>
// CHECK: iree_encoding.set_encoding %a : tensor<4x8xbf16> -> tensor<4x8xbf16, #iree_encoding.encoding<operand_index = 0 : index, op_type = matmul, element_types = [bf16, bf16, bf16]
// CHECK: iree_encoding.unset_encoding {{.+}} -> tensor<4x4xbf16>
// CHECK-NOT: iree_encoding
// CHECK: linalg.matmul ins(%f, %g : tensor<4x8xf8E4M3FN>, tensor<8x4xf8E4M3FN>)
// CHECK: linalg.matmul ins(%i, %j : tensor<4x8xi4>, tensor<8x4xi4>)
func.func @narrow_types(%a: tensor<4x8xbf16>, %b: tensor<8x4xbf16>, %c: tensor<4x4xf32>, %d: tensor<4x4xbf16>, %f: tensor<4x8xf8E4M3FN>, %g: tensor<8x4xf8E4M3FN>, %i: tensor<4x8xi4>, %j: tensor<8x4xi4>, %k: tensor<4x4xi32>) -> (tensor<4x4xf32>, tensor<4x4xbf16>, tensor<4x4xf32>, tensor<4x4xi32>) {
  %0 = linalg.matmul ins(%a, %b : tensor<4x8xbf16>, tensor<8x4xbf16>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  %1 = linalg.matmul ins(%a, %b : tensor<4x8xbf16>, tensor<8x4xbf16>) outs(%d : tensor<4x4xbf16>) -> tensor<4x4xbf16>
  %2 = linalg.matmul ins(%f, %g : tensor<4x8xf8E4M3FN>, tensor<8x4xf8E4M3FN>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  %3 = linalg.matmul ins(%i, %j : tensor<4x8xi4>, tensor<8x4xi4>) outs(%k : tensor<4x4xi32>) -> tensor<4x4xi32>
  return %0, %1, %2, %3 : tensor<4x4xf32>, tensor<4x4xbf16>, tensor<4x4xf32>, tensor<4x4xi32>
}

// -----

// Tests that contractions the data-tiling targets have no tiles for (f64, mixed f32 x f16, linalg.dot) are left as they are.
// CHECK-LABEL: func.func @untouched
// CHECK-NOT: iree_encoding
// CHECK: linalg.matmul
// CHECK: linalg.matmul
// CHECK: linalg.dot
func.func @untouched(%a: tensor<4x8xf64>, %b: tensor<8x4xf64>, %c: tensor<4x4xf64>, %x: tensor<4x8xf32>, %y: tensor<8x4xf16>, %z: tensor<4x4xf32>, %u: tensor<8xf32>, %s: tensor<f32>) -> (tensor<4x4xf64>, tensor<4x4xf32>, tensor<f32>) {
  %r = linalg.matmul ins(%a, %b : tensor<4x8xf64>, tensor<8x4xf64>) outs(%c : tensor<4x4xf64>) -> tensor<4x4xf64>
  %t = linalg.matmul ins(%x, %y : tensor<4x8xf32>, tensor<8x4xf16>) outs(%z : tensor<4x4xf32>) -> tensor<4x4xf32>
  %d = linalg.dot ins(%u, %u : tensor<8xf32>, tensor<8xf32>) outs(%s : tensor<f32>) -> tensor<f32>
  return %r, %t, %d : tensor<4x4xf64>, tensor<4x4xf32>, tensor<f32>
}

// -----

// Tests that f32 conv_2d_nhwc_hwcf and conv_2d_nchw_fchw get a conv encoding on the filter alone (input and result stay plain, no unset_encoding) and that depthwise and f16 convolutions are left as they are.
// CHECK-LABEL: func.func @convs
// CHECK: %[[W:.+]] = iree_encoding.set_encoding %w : tensor<3x3x8x32xf32> -> tensor<3x3x8x32xf32, #iree_encoding.encoding<operand_index = 1 : index, op_type = conv, element_types = [f32, f32, f32], user_indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, ((d1 * 2) + d4), (d2 + (d5 * 2)), d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d3)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>], iteration_sizes = [1, 6, 5, 32, 3, 3, 8]>>
// CHECK: %[[C:.+]] = linalg.conv_2d_nhwc_hwcf {{.+}} ins(%x, %[[W]] : tensor<1x14x14x8xf32>, tensor<3x3x8x32xf32, #iree_encoding.encoding<{{.+}}>>) outs(%{{.+}} : tensor<1x6x5x32xf32>) -> tensor<1x6x5x32xf32>
// CHECK: %[[V:.+]] = iree_encoding.set_encoding %v : tensor<12x8x3x3xf32> -> tensor<12x8x3x3xf32, #iree_encoding.encoding<operand_index = 1 : index, op_type = conv,
// CHECK: linalg.conv_2d_nchw_fchw {{.+}} ins(%y, %[[V]] : {{.+}}) outs(%{{.+}} : tensor<1x12x8x8xf32>) -> tensor<1x12x8x8xf32>
// CHECK-NOT: iree_encoding
// CHECK: linalg.depthwise_conv_2d_nhwc_hwc
// CHECK: linalg.conv_2d_nhwc_hwcf
// CHECK: return %[[C]]
func.func @convs(%x: tensor<1x14x14x8xf32>, %w: tensor<3x3x8x32xf32>, %y: tensor<1x8x10x10xf32>, %v: tensor<12x8x3x3xf32>, %dw: tensor<3x3x8xf32>, %h: tensor<1x5x5x8xf16>, %hw: tensor<3x3x8x4xf16>) -> (tensor<1x6x5x32xf32>, tensor<1x12x8x8xf32>, tensor<1x12x12x8xf32>, tensor<1x3x3x4xf16>) {
  %z = arith.constant 0.0 : f32
  %zh = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1x6x5x32xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x6x5x32xf32>) -> tensor<1x6x5x32xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>} ins(%x, %w : tensor<1x14x14x8xf32>, tensor<3x3x8x32xf32>) outs(%f : tensor<1x6x5x32xf32>) -> tensor<1x6x5x32xf32>
  %e2 = tensor.empty() : tensor<1x12x8x8xf32>
  %f2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<1x12x8x8xf32>) -> tensor<1x12x8x8xf32>
  %s = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%y, %v : tensor<1x8x10x10xf32>, tensor<12x8x3x3xf32>) outs(%f2 : tensor<1x12x8x8xf32>) -> tensor<1x12x8x8xf32>
  %e3 = tensor.empty() : tensor<1x12x12x8xf32>
  %f3 = linalg.fill ins(%z : f32) outs(%e3 : tensor<1x12x12x8xf32>) -> tensor<1x12x12x8xf32>
  %d = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %dw : tensor<1x14x14x8xf32>, tensor<3x3x8xf32>) outs(%f3 : tensor<1x12x12x8xf32>) -> tensor<1x12x12x8xf32>
  %e4 = tensor.empty() : tensor<1x3x3x4xf16>
  %f4 = linalg.fill ins(%zh : f16) outs(%e4 : tensor<1x3x3x4xf16>) -> tensor<1x3x3x4xf16>
  %g = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%h, %hw : tensor<1x5x5x8xf16>, tensor<3x3x8x4xf16>) outs(%f4 : tensor<1x3x3x4xf16>) -> tensor<1x3x3x4xf16>
  return %r, %s, %d, %g : tensor<1x6x5x32xf32>, tensor<1x12x8x8xf32>, tensor<1x12x12x8xf32>, tensor<1x3x3x4xf16>
}

// -----

// Tests that an input two matmuls read with the same encoding is set_encoding'd once (each weight keeps its own).
// CHECK-LABEL: func.func @two_heads
// CHECK: %[[X:.+]] = iree_encoding.set_encoding %x : tensor<8x16xf32> -> tensor<8x16xf32, #iree_encoding.encoding<operand_index = 0 : index
// CHECK: %[[W1:.+]] = iree_encoding.set_encoding %w1
// CHECK: linalg.matmul ins(%[[X]], %[[W1]] :
// CHECK-NOT: iree_encoding.set_encoding %x
// CHECK: %[[W2:.+]] = iree_encoding.set_encoding %w2
// CHECK-NOT: iree_encoding.set_encoding %x
// CHECK: linalg.matmul ins(%[[X]], %[[W2]] :
func.func @two_heads(%x: tensor<8x16xf32>, %w1: tensor<16x24xf32>, %w2: tensor<16x24xf32>) -> (tensor<8x24xf32>, tensor<8x24xf32>) {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x24xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<8x24xf32>) -> tensor<8x24xf32>
  %a = linalg.matmul ins(%x, %w1 : tensor<8x16xf32>, tensor<16x24xf32>) outs(%f : tensor<8x24xf32>) -> tensor<8x24xf32>
  %b = linalg.matmul ins(%x, %w2 : tensor<8x16xf32>, tensor<16x24xf32>) outs(%f : tensor<8x24xf32>) -> tensor<8x24xf32>
  return %a, %b : tensor<8x24xf32>, tensor<8x24xf32>
}
