// RUN: python -m rt opt --split-input-file --pass=rt-convert-hal-tensor-encodings %s | filecheck %s

// Tests that an import of f64 data as an f32 tensor becomes a plain f64 import and a truncf of it.
// CHECK-LABEL: util.func public @narrow
// CHECK: %[[W:.+]] = hal.tensor.import %arg0 "x" : !hal.buffer_view -> tensor<3xf64>
// CHECK: %[[T:.+]] = arith.truncf %[[W]] : tensor<3xf64> to tensor<3xf32>
// CHECK: util.return %[[T]] : tensor<3xf32>
util.func public @narrow(%arg0: !hal.buffer_view) -> tensor<3xf32> {
  %0 = hal.tensor.import %arg0 "x" : !hal.buffer_view -> tensor<3xf64> as tensor<3xf32>
  util.return %0 : tensor<3xf32>
}

// -----

// Tests that an export of an f32 tensor as f64 data becomes an extf and a plain f64 export.
// CHECK-LABEL: util.func public @widen
// CHECK: %[[W:.+]] = arith.extf %arg0 : tensor<2x?xf32> to tensor<2x?xf64>
// CHECK: %[[B:.+]] = hal.tensor.export %[[W]] "y" : tensor<2x?xf64>{%d} -> !hal.buffer_view
// CHECK: util.return %[[B]] : !hal.buffer_view
util.func public @widen(%arg0: tensor<2x?xf32>, %d: index) -> !hal.buffer_view {
  %0 = hal.tensor.export %arg0 "y" : tensor<2x?xf64> as tensor<2x?xf32>{%d} -> !hal.buffer_view
  util.return %0 : !hal.buffer_view
}

// -----

// Tests that an alias of the tensor's own element type is dropped.
// CHECK-LABEL: util.func public @same
// CHECK: hal.tensor.import %arg0 : !hal.buffer_view -> tensor<4xi32>
util.func public @same(%arg0: !hal.buffer_view) -> tensor<4xi32> {
  %0 = hal.tensor.import %arg0 : !hal.buffer_view -> tensor<4xi32> as tensor<4xi32>
  util.return %0 : tensor<4xi32>
}
