// RUN: python -m rt opt --split-input-file --pass=rt-unpack-packed-storage %s | filecheck %s

// Tests that a bitcast of bytes to a packed i1 tensor becomes an unpacking generic (bit k of
// each byte) and a reshape to the result's shape, and that the encoding leaves every type.
// CHECK-LABEL: func.func @unpack
// CHECK: %[[E:.+]] = tensor.empty() : tensor<2x8xi1>
// CHECK: %[[BITS:.+]] = linalg.generic {{.*}} ins(%x : tensor<2xi8>) outs(%[[E]] : tensor<2x8xi1>)
// CHECK: linalg.index 1 : index
// CHECK: arith.shrui
// CHECK: arith.trunci {{.*}} : i8 to i1
// CHECK: %[[FLAT:.+]] = tensor.collapse_shape %[[BITS]] {{.*}} : tensor<2x8xi1> into tensor<16xi1>
// CHECK: tensor.expand_shape %[[FLAT]] {{.*}} output_shape [4, 4] : tensor<16xi1> into tensor<4x4xi1>
// CHECK-NOT: packed_storage
// CHECK-NOT: flow.tensor.bitcast
func.func @unpack(%x: tensor<2xi8>) -> tensor<4x4xi8> {
  %b = flow.tensor.bitcast %x : tensor<2xi8> -> tensor<4x4xi1, #iree_encoding.packed_storage>
  %e = tensor.empty() : tensor<4x4xi8>
  %w = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%b : tensor<4x4xi1, #iree_encoding.packed_storage>) outs(%e : tensor<4x4xi8>) {
  ^bb0(%in: i1, %out: i8):
    %z = arith.extui %in : i1 to i8
    linalg.yield %z : i8
  } -> tensor<4x4xi8>
  return %w : tensor<4x4xi8>
}

// -----

// Tests that a bitcast from a packed i1 tensor to a wider type packs eight elements per byte
// (an OR reduction of element << k) and bitcasts the bytes.
// CHECK-LABEL: func.func @pack
// CHECK: %[[GRID:.+]] = tensor.expand_shape %{{.+}} output_shape [2, 8] : tensor<16xi1> into tensor<2x8xi1>
// CHECK: %[[INIT:.+]] = linalg.fill ins(%{{.+}} : i8) outs(%{{.+}} : tensor<2xi8>)
// CHECK: %[[BYTES:.+]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}} ins(%[[GRID]] : tensor<2x8xi1>) outs(%[[INIT]] : tensor<2xi8>)
// CHECK: arith.extui {{.*}} : i1 to i8
// CHECK: arith.shli
// CHECK: arith.ori
// CHECK: %[[R:.+]] = flow.tensor.bitcast %[[BYTES]] : tensor<2xi8> -> tensor<1xi16>
// CHECK: return %[[R]] : tensor<1xi16>
func.func @pack(%m: tensor<2x8xf32>) -> tensor<1xi16> {
  %e = tensor.empty() : tensor<2x8xi1, #iree_encoding.packed_storage>
  %c = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%m : tensor<2x8xf32>) outs(%e : tensor<2x8xi1, #iree_encoding.packed_storage>) {
  ^bb0(%in: f32, %out: i1):
    %zero = arith.constant 0.0 : f32
    %gt = arith.cmpf ogt, %in, %zero : f32
    linalg.yield %gt : i1
  } -> tensor<2x8xi1, #iree_encoding.packed_storage>
  %r = flow.tensor.bitcast %c : tensor<2x8xi1, #iree_encoding.packed_storage> -> tensor<1xi16>
  return %r : tensor<1xi16>
}

// -----

// Tests that packed i4 tensors only lose the redundant encoding (their width packs them).
// CHECK-LABEL: func.func @i4
// CHECK: flow.tensor.bitcast %x : tensor<2xi8> -> tensor<4xi4>
// CHECK-NOT: packed_storage
func.func @i4(%x: tensor<2xi8>) -> tensor<2xi8> {
  %b = flow.tensor.bitcast %x : tensor<2xi8> -> tensor<4xi4, #iree_encoding.packed_storage>
  %c = flow.tensor.bitcast %b : tensor<4xi4, #iree_encoding.packed_storage> -> tensor<2xi8>
  return %c : tensor<2xi8>
}
