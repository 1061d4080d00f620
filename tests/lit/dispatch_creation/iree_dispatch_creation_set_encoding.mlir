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

// Tests that f16 matmuls and batch_matmuls are left as they are (no data-tiling kernels for them).
// CHECK-LABEL: func.func @untouched
// CHECK-NOT: iree_encoding
// CHECK: linalg.matmul
// CHECK: linalg.batch_matmul
func.func @untouched(%a: tensor<4x8xf16>, %b: tensor<8x4xf16>, %c: tensor<4x4xf16>, %x: tensor<2x4x8xf32>, %y: tensor<2x8x4xf32>, %z: tensor<2x4x4xf32>) -> (tensor<4x4xf16>, tensor<2x4x4xf32>) {
  %r = linalg.matmul ins(%a, %b : tensor<4x8xf16>, tensor<8x4xf16>) outs(%c : tensor<4x4xf16>) -> tensor<4x4xf16>
  %s = linalg.batch_matmul ins(%x, %y : tensor<2x4x8xf32>, tensor<2x8x4xf32>) outs(%z : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  return %r, %s : tensor<4x4xf16>, tensor<2x4x4xf32>
}
