// RUN: python -m rt opt --split-input-file --pass=iree-dispatch-creation-convert-dispatch-regions-to-workgroups %s | filecheck %s

// Tests that captured tensors become readonly dispatch tensors with their dims as index operands, constants are cloned and results stored.
// CHECK-LABEL: util.func public @dyn
// CHECK: %[[W:.+]] = flow.dispatch.workgroups[%d](%t, %d) : (tensor<?x4xf32>{%d}, index) -> tensor<?x4xf32>{%d} =
// CHECK-NEXT: (%[[IN:.+]]: !flow.dispatch.tensor<readonly:tensor<?x4xf32>>, %[[D:.+]]: index, %[[OUT:.+]]: !flow.dispatch.tensor<writeonly:tensor<?x4xf32>>) {
// CHECK-NEXT: %[[O:.+]] = flow.dispatch.workload.ordinal %[[D]], 0 : index
// CHECK-NEXT: %[[C:.+]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT: %[[L:.+]] = flow.dispatch.tensor.load %[[IN]], offsets = [0, 0], sizes = [%[[O]], 4], strides = [1, 1] : !flow.dispatch.tensor<readonly:tensor<?x4xf32>>{%[[O]]} -> tensor<?x4xf32>
// CHECK-NEXT: %[[E:.+]] = tensor.empty(%[[O]]) : tensor<?x4xf32>
// CHECK-NEXT: %[[G:.+]] = linalg.generic
// CHECK-SAME: ins(%[[L]] : tensor<?x4xf32>) outs(%[[E]] : tensor<?x4xf32>)
// CHECK: arith.mulf %{{.+}}, %[[C]] : f32
// CHECK: flow.dispatch.tensor.store %[[G]], %[[OUT]], offsets = [0, 0], sizes = [%[[O]], 4], strides = [1, 1] : tensor<?x4xf32> -> !flow.dispatch.tensor<writeonly:tensor<?x4xf32>>{%[[O]]}
// CHECK-NEXT: flow.return
// CHECK-NEXT: } count(%{{.+}}: index) -> (index, index, index) {
// CHECK: util.return %[[W]]
util.func public @dyn(%bv: !hal.buffer_view, %d: index) -> tensor<?x4xf32> {
  %t = hal.tensor.import %bv : !hal.buffer_view -> tensor<?x4xf32>{%d}
  %two = arith.constant 2.0 : f32
  %r = flow.dispatch.region[%d] -> (tensor<?x4xf32>{%d}) {
    %e = tensor.empty(%d) : tensor<?x4xf32>
    %g = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%t : tensor<?x4xf32>) outs(%e : tensor<?x4xf32>) {
    ^bb0(%x: f32, %o: f32):
      %y = arith.mulf %x, %two : f32
      linalg.yield %y : f32
    } -> tensor<?x4xf32>
    flow.return %g : tensor<?x4xf32>
  } count(%w: index) -> (index, index, index) {
    %x, %y, %z = flow.dispatch.workgroup_count_from_slice %w
    flow.return %x, %y, %z : index, index, index
  }
  util.return %r : tensor<?x4xf32>
}

// -----

// Tests that static regions capture only tensors, in first-use order, with one writeonly output per result.
// CHECK-LABEL: util.func public @two_results
// CHECK: flow.dispatch.workgroups[%c4](%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) =
// CHECK-NEXT: (%{{.+}}: !flow.dispatch.tensor<readonly:tensor<4xf32>>, %{{.+}}: !flow.dispatch.tensor<readonly:tensor<4xf32>>, %[[O0:.+]]: !flow.dispatch.tensor<writeonly:tensor<4xf32>>, %[[O1:.+]]: !flow.dispatch.tensor<writeonly:tensor<4xf32>>)
// CHECK: flow.dispatch.tensor.store %{{.+}}, %[[O0]], offsets = [0], sizes = [4], strides = [1]
// CHECK: flow.dispatch.tensor.store %{{.+}}, %[[O1]], offsets = [0], sizes = [4], strides = [1]
util.func public @two_results(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %c4 = arith.constant 4 : index
  %r:2 = flow.dispatch.region[%c4] -> (tensor<4xf32>, tensor<4xf32>) {
    %e = tensor.empty() : tensor<4xf32>
    %g:2 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%a, %b : tensor<4xf32>, tensor<4xf32>) outs(%e, %e : tensor<4xf32>, tensor<4xf32>) {
    ^bb0(%x: f32, %y: f32, %o: f32, %p: f32):
      %s = arith.addf %x, %y : f32
      %m = arith.mulf %x, %y : f32
      linalg.yield %s, %m : f32, f32
    } -> (tensor<4xf32>, tensor<4xf32>)
    flow.return %g#0, %g#1 : tensor<4xf32>, tensor<4xf32>
  } count(%w: index) -> (index, index, index) {
    %x, %y, %z = flow.dispatch.workgroup_count_from_slice %w
    flow.return %x, %y, %z : index, index, index
  }
  util.return %r#0, %r#1 : tensor<4xf32>, tensor<4xf32>
}
