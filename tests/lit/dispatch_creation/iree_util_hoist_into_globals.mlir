// RUN: python -m rt opt --split-input-file --pass=iree-util-hoist-into-globals %s | filecheck %s

// Tests that the set_encoding of a constant RHS moves into an initializer storing an immutable global, and the function loads it.
// CHECK-LABEL: util.func public @constant_rhs
// CHECK-NOT: arith.constant dense
// CHECK: %[[L:.+]] = iree_encoding.set_encoding %a
// CHECK: %[[W:.+]] = util.global.load immutable @__hoisted_tensor_4x2xf32 : tensor<4x2xf32, #iree_encoding.encoding<operand_index = 1 : index
// CHECK: linalg.matmul ins(%[[L]], %[[W]] :
// CHECK: util.global private @__hoisted_tensor_4x2xf32 : tensor<4x2xf32, #iree_encoding.encoding<operand_index = 1 : index
// CHECK: util.initializer {
// CHECK-NEXT: %[[C:.+]] = arith.constant dense<{{.+}}> : tensor<4x2xf32>
// CHECK-NEXT: %[[P:.+]] = iree_encoding.set_encoding %[[C]] : tensor<4x2xf32> -> tensor<4x2xf32, #iree_encoding.encoding<operand_index = 1 : index
// CHECK-NEXT: util.global.store %[[P]], @__hoisted_tensor_4x2xf32
// CHECK-NEXT: util.return
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
#lhs = #iree_encoding.encoding<operand_index = 0 : index, op_type = matmul, element_types = [f32, f32, f32], user_indexing_maps = [#map, #map1, #map2], iteration_sizes = [3, 2, 4]>
#rhs = #iree_encoding.encoding<operand_index = 1 : index, op_type = matmul, element_types = [f32, f32, f32], user_indexing_maps = [#map, #map1, #map2], iteration_sizes = [3, 2, 4]>
#res = #iree_encoding.encoding<operand_index = 2 : index, op_type = matmul, element_types = [f32, f32, f32], user_indexing_maps = [#map, #map1, #map2], iteration_sizes = [3, 2, 4]>
util.func public @constant_rhs(%a: tensor<3x4xf32>) -> tensor<3x2xf32> {
  %w = arith.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]> : tensor<4x2xf32>
  %cst = arith.constant 0.0 : f32
  %l = iree_encoding.set_encoding %a : tensor<3x4xf32> -> tensor<3x4xf32, #lhs>
  %r = iree_encoding.set_encoding %w : tensor<4x2xf32> -> tensor<4x2xf32, #rhs>
  %e = tensor.empty() : tensor<3x2xf32, #res>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<3x2xf32, #res>) -> tensor<3x2xf32, #res>
  %m = linalg.matmul ins(%l, %r : tensor<3x4xf32, #lhs>, tensor<4x2xf32, #rhs>) outs(%f : tensor<3x2xf32, #res>) -> tensor<3x2xf32, #res>
  %u = iree_encoding.unset_encoding %m : tensor<3x2xf32, #res> -> tensor<3x2xf32>
  util.return %u : tensor<3x2xf32>
}

// -----

// Tests that a const-expr tree (a transpose of an immutable global's initial value) is cloned whole into the initializer, keeping the function's stream.affinity.
// CHECK-LABEL: util.func public @global_tree
// CHECK-NOT: linalg.transpose
// CHECK-NOT: util.global.load @w
// CHECK: util.global.load immutable @__hoisted_tensor_4x2xf32 :
// CHECK: util.initializer attributes {stream.affinity = #hal.device.affinity<@dev>} {
// CHECK-NEXT: %[[G:.+]] = util.global.load @w : tensor<2x4xf32>
// CHECK-NEXT: %[[E:.+]] = tensor.empty() : tensor<4x2xf32>
// CHECK-NEXT: %[[T:.+]] = linalg.transpose ins(%[[G]]{{ ?}}:{{ ?}}tensor<2x4xf32>) outs(%[[E]]{{ ?}}:{{ ?}}tensor<4x2xf32>) permutation = [1, 0]
// CHECK-NEXT: %[[P:.+]] = iree_encoding.set_encoding %[[T]]
// CHECK-NEXT: util.global.store %[[P]], @__hoisted_tensor_4x2xf32
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
#rhs = #iree_encoding.encoding<operand_index = 1 : index, op_type = matmul, element_types = [f32, f32, f32], user_indexing_maps = [#map, #map1, #map2]>
util.global private @w = dense<1.0> : tensor<2x4xf32>
util.func public @global_tree() -> tensor<4x2xf32, #rhs> attributes {stream.affinity = #hal.device.affinity<@dev>} {
  %g = util.global.load @w : tensor<2x4xf32>
  %e = tensor.empty() : tensor<4x2xf32>
  %t = linalg.transpose ins(%g : tensor<2x4xf32>) outs(%e : tensor<4x2xf32>) permutation = [1, 0]
  %r = iree_encoding.set_encoding %t : tensor<4x2xf32> -> tensor<4x2xf32, #rhs>
  util.return %r : tensor<4x2xf32, #rhs>
}

// -----

// Tests that set_encoding of function arguments, mutable globals and util.unfoldable_constant values stays in the function.
// CHECK-LABEL: util.func public @not_constant
// CHECK-COUNT-3: iree_encoding.set_encoding
// CHECK-NOT: util.initializer
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
#rhs = #iree_encoding.encoding<operand_index = 1 : index, op_type = matmul, element_types = [f32, f32, f32], user_indexing_maps = [#map, #map1, #map2]>
util.global private mutable @v = dense<1.0> : tensor<4x2xf32>
util.func public @not_constant(%a: tensor<4x2xf32>) -> (tensor<4x2xf32, #rhs>, tensor<4x2xf32, #rhs>, tensor<4x2xf32, #rhs>) {
  %g = util.global.load @v : tensor<4x2xf32>
  %u = util.unfoldable_constant dense<2.0> : tensor<4x2xf32>
  %0 = iree_encoding.set_encoding %a : tensor<4x2xf32> -> tensor<4x2xf32, #rhs>
  %1 = iree_encoding.set_encoding %g : tensor<4x2xf32> -> tensor<4x2xf32, #rhs>
  %2 = iree_encoding.set_encoding %u : tensor<4x2xf32> -> tensor<4x2xf32, #rhs>
  util.return %0, %1, %2 : tensor<4x2xf32, #rhs>, tensor<4x2xf32, #rhs>, tensor<4x2xf32, #rhs>
}
