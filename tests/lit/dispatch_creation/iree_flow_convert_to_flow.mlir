// RUN: python -m rt opt --split-input-file --pass=iree-flow-convert-to-flow %s | filecheck %s

// Tests that reshapes become flow.tensor.reshape and tensor.empty becomes flow.tensor.empty (seed 000 @test).
// CHECK-LABEL: util.func public @test
// CHECK: %[[R:.+]] = flow.tensor.reshape %arg0 : tensor<1x10xf32> -> tensor<10xf32>
// CHECK: %[[E:.+]] = flow.tensor.empty : tensor<10xf32>
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[R]], %cst : tensor<10xf32>, tensor<10xf32>) outs(%[[E]] : tensor<10xf32>)
// CHECK: flow.tensor.reshape %{{.+}} : tensor<10xf32> -> tensor<1x10xf32>
util.func public @test(%arg0: tensor<1x10xf32>) -> tensor<1x10xf32> {
  %cst = arith.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]> : tensor<10xf32>
  %0 = tensor.collapse_shape %arg0 [[0, 1]] : tensor<1x10xf32> into tensor<10xf32>
  %1 = tensor.empty() : tensor<10xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%0, %cst : tensor<10xf32>, tensor<10xf32>) outs(%1 : tensor<10xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<10xf32>
  %3 = tensor.expand_shape %2 [[0, 1]] output_shape [1, 10] : tensor<10xf32> into tensor<1x10xf32>
  util.return %3 : tensor<1x10xf32>
}

// -----

// Tests that dynamic collapses carry their dims and tensor.dim of an import folds to its dims.
// CHECK-LABEL: util.func public @dyn
// CHECK: %[[D0:.+]] = hal.buffer_view.dim<%bv : !hal.buffer_view>[0] : index
// CHECK: %[[T:.+]] = hal.tensor.import %bv : !hal.buffer_view -> tensor<?x4xf32>{%[[D0]]}
// CHECK: %[[C4:.+]] = arith.constant 4 : index
// CHECK: %[[N:.+]] = arith.muli %[[D0]], %[[C4]] : index
// CHECK: %[[R:.+]] = flow.tensor.reshape %[[T]] : tensor<?x4xf32>{%[[D0]]} -> tensor<?xf32>{%[[N]]}
// CHECK: util.return %[[R]], %[[D0]] : tensor<?xf32>, index
util.func public @dyn(%bv: !hal.buffer_view) -> (tensor<?xf32>, index) {
  %d = hal.buffer_view.dim<%bv : !hal.buffer_view>[0] : index
  %t = hal.tensor.import %bv : !hal.buffer_view -> tensor<?x4xf32>{%d}
  %c0 = arith.constant 0 : index
  %dim = tensor.dim %t, %c0 : tensor<?x4xf32>
  %r = tensor.collapse_shape %t [[0, 1]] : tensor<?x4xf32> into tensor<?xf32>
  util.return %r, %dim : tensor<?xf32>, index
}

// -----

// Tests that contiguous slices/updates become flow.tensor.slice/update and strided ones stay.
// CHECK-LABEL: util.func public @slices
// CHECK: %[[C2:.+]] = arith.constant 2 : index
// CHECK: %[[C0:.+]] = arith.constant 0 : index
// CHECK: %[[C1:.+]] = arith.constant 1 : index
// CHECK: %[[C8:.+]] = arith.constant 8 : index
// CHECK: %[[S:.+]] = flow.tensor.slice %t[%[[C2]], %[[C0]] for %[[C1]], %[[C8]]] : tensor<4x8xf32> -> tensor<1x8xf32>
// CHECK: %[[R:.+]] = flow.tensor.reshape %[[S]] : tensor<1x8xf32> -> tensor<8xf32>
// CHECK: tensor.extract_slice %t[0, 0] [4, 4] [1, 2] : tensor<4x8xf32> to tensor<4x4xf32>
// CHECK: flow.tensor.update %u, %t[%{{.+}}, %{{.+}}] : tensor<2x8xf32> -> %t as tensor<4x8xf32>
util.func public @slices(%t: tensor<4x8xf32>, %u: tensor<2x8xf32>) -> (tensor<8xf32>, tensor<4x4xf32>, tensor<4x8xf32>) {
  %0 = tensor.extract_slice %t[2, 0] [1, 8] [1, 1] : tensor<4x8xf32> to tensor<8xf32>
  %1 = tensor.extract_slice %t[0, 0] [4, 4] [1, 2] : tensor<4x8xf32> to tensor<4x4xf32>
  %2 = tensor.insert_slice %u into %t[1, 0] [2, 8] [1, 1] : tensor<2x8xf32> into tensor<4x8xf32>
  util.return %0, %1, %2 : tensor<8xf32>, tensor<4x4xf32>, tensor<4x8xf32>
}

// -----

// Tests that splat constants become flow.tensor.splat, extract becomes flow.tensor.load, and concat along dim 0 becomes updates.
// CHECK-LABEL: util.func public @misc
// CHECK: %[[F:.+]] = arith.constant 2.500000e+00 : f32
// CHECK: %[[SP:.+]] = flow.tensor.splat %[[F]] : tensor<1024x1024xf32>
// CHECK: flow.tensor.load %a[%{{.+}}] : tensor<3xf32>
// CHECK: %[[E:.+]] = flow.tensor.empty : tensor<5xf32>
// CHECK: %[[U0:.+]] = flow.tensor.update %a, %[[E]][%{{.+}}] : tensor<3xf32> -> %[[E]] as tensor<5xf32>
// CHECK: flow.tensor.update %b, %[[U0]][%{{.+}}] : tensor<2xf32> -> %[[U0]] as tensor<5xf32>
util.func public @misc(%a: tensor<3xf32>, %b: tensor<2xf32>, %i: index) -> (tensor<1024x1024xf32>, f32, tensor<5xf32>) {
  %s = arith.constant dense<2.5> : tensor<1024x1024xf32>
  %e = tensor.extract %a[%i] : tensor<3xf32>
  %c = tensor.concat dim(0) %a, %b : (tensor<3xf32>, tensor<2xf32>) -> tensor<5xf32>
  util.return %s, %e, %c : tensor<1024x1024xf32>, f32, tensor<5xf32>
}

// -----

// Tests that a flow.tensor.slice/update written in the input stays when its window is contiguous, and becomes tensor.extract_slice/insert_slice (a dispatch later) when it is not.
// CHECK-LABEL: util.func public @flow_windows
// CHECK: %[[ROWS:.+]] = flow.tensor.slice %arg0[%c1, %c0 for %c2, %c4] : tensor<3x4xi32> -> tensor<2x4xi32>
// CHECK: %[[WIN:.+]] = tensor.extract_slice %arg0[%arg2, 1] [2, 2] [1, 1] : tensor<3x4xi32> to tensor<2x2xi32>
// CHECK: %[[UPD:.+]] = flow.tensor.update %arg1, %arg0[%c1, %c0] : tensor<1x4xi32> -> %arg0 as tensor<3x4xi32>
// CHECK: %[[INS:.+]] = tensor.insert_slice %[[WIN]] into %[[UPD]][1, %arg2] [2, 2] [1, 1] : tensor<2x2xi32> into tensor<3x4xi32>
// CHECK: util.return %[[ROWS]], %[[INS]]
util.func public @flow_windows(%arg0: tensor<3x4xi32>, %arg1: tensor<1x4xi32>, %arg2: index) -> (tensor<2x4xi32>, tensor<3x4xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %rows = flow.tensor.slice %arg0[%c1, %c0 for %c2, %c4] : tensor<3x4xi32> -> tensor<2x4xi32>
  %win = flow.tensor.slice %arg0[%arg2, %c1 for %c2, %c2] : tensor<3x4xi32> -> tensor<2x2xi32>
  %upd = flow.tensor.update %arg1, %arg0[%c1, %c0] : tensor<1x4xi32> -> %arg0 as tensor<3x4xi32>
  %ins = flow.tensor.update %win, %upd[%c1, %arg2] : tensor<2x2xi32> -> %upd as tensor<3x4xi32>
  util.return %rows, %ins : tensor<2x4xi32>, tensor<3x4xi32>
}
