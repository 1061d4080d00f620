// RUN: python -m rt opt --split-input-file --pass=iree-dispatch-creation-form-dispatch-regions %s | filecheck %s

// Tests that fill + matmul + bias/relu consumer form one region sized by the matmul's parallel loops.
// CHECK-LABEL: util.func public @matmul_bias_relu
// CHECK-DAG: %[[C4:.+]] = arith.constant 4 : index
// CHECK-DAG: %[[C8:.+]] = arith.constant 8 : index
// CHECK: %[[R:.+]] = flow.dispatch.region[%[[C4]], %[[C8]]] -> (tensor<4x8xf32>) {
// CHECK-NEXT: %[[E:.+]] = tensor.empty() : tensor<4x8xf32>
// CHECK-NEXT: %[[F:.+]] = linalg.fill ins(%cst : f32) outs(%[[E]] : tensor<4x8xf32>)
// CHECK-NEXT: %[[M:.+]] = linalg.matmul ins(%a, %b : tensor<4x16xf32>, tensor<16x8xf32>) outs(%[[F]] : tensor<4x8xf32>)
// CHECK-NEXT: %[[G:.+]] = linalg.generic
// CHECK-SAME: ins(%[[M]], %bias : tensor<4x8xf32>, tensor<8xf32>) outs(%[[E]] : tensor<4x8xf32>)
// CHECK: flow.return %[[G]] : tensor<4x8xf32>
// CHECK-NEXT: } count(%{{.+}}: index, %{{.+}}: index) -> (index, index, index) {
// CHECK-NEXT: flow.dispatch.workgroup_count_from_slice
// CHECK-NOT: flow.dispatch.region
// CHECK: util.return %[[R]]
util.func public @matmul_bias_relu(%a: tensor<4x16xf32>, %b: tensor<16x8xf32>, %bias: tensor<8xf32>) -> tensor<4x8xf32> {
  %cst = arith.constant 0.0 : f32
  %e = flow.tensor.empty : tensor<4x8xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %m = linalg.matmul ins(%a, %b : tensor<4x16xf32>, tensor<16x8xf32>) outs(%f : tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%m, %bias : tensor<4x8xf32>, tensor<8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %z = arith.maximumf %s, %cst : f32
    linalg.yield %z : f32
  } -> tensor<4x8xf32>
  util.return %r : tensor<4x8xf32>
}

// -----

// Tests that a single-use elementwise chain fuses into its last op, and a result used twice is not fused.
// CHECK-LABEL: util.func public @chain
// CHECK: %[[R0:.+]] = flow.dispatch.region[%{{.+}}] -> (tensor<?xf32>{%d}) {
// CHECK: math.exp
// CHECK: math.log
// CHECK: flow.return
// CHECK: %[[R1:.+]] = flow.dispatch.region[%{{.+}}] -> (tensor<?xf32>{%d}) {
// CHECK: arith.mulf
// CHECK: flow.return
// CHECK: %[[R2:.+]] = flow.dispatch.region[%{{.+}}] -> (tensor<?xf32>{%d}) {
// CHECK: arith.addf
// CHECK: flow.return
// CHECK: util.return %[[R1]], %[[R2]]
util.func public @chain(%t: tensor<?xf32>, %d: index) -> (tensor<?xf32>, tensor<?xf32>) {
  %e = flow.tensor.empty : tensor<?xf32>{%d}
  %0 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%t : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = math.exp %x : f32
    linalg.yield %y : f32
  } -> tensor<?xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%0 : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = math.log %x : f32
    linalg.yield %y : f32
  } -> tensor<?xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%1 : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.mulf %x, %x : f32
    linalg.yield %y : f32
  } -> tensor<?xf32>
  %3 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%1 : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.addf %x, %x : f32
    linalg.yield %y : f32
  } -> tensor<?xf32>
  util.return %2, %3 : tensor<?xf32>, tensor<?xf32>
}

// -----

// Tests that a reduction is its own root (workload 1 without parallel loops) and a fill used on the host becomes flow.tensor.splat.
// CHECK-LABEL: util.func public @reduce
// CHECK: %[[C1:.+]] = arith.constant 1 : index
// CHECK: %[[SPLAT:.+]] = flow.tensor.splat %cst : tensor<f32>
// CHECK: %[[R:.+]] = flow.dispatch.region[%[[C1]]] -> (tensor<f32>) {
// CHECK: linalg.fill
// CHECK: iterator_types = ["reduction"]
// CHECK: util.return %[[R]], %[[SPLAT]]
util.func public @reduce(%t: tensor<10xf32>) -> (tensor<f32>, tensor<f32>) {
  %cst = arith.constant 0.0 : f32
  %e = flow.tensor.empty : tensor<f32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %s = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>], iterator_types = ["reduction"]} ins(%t : tensor<10xf32>) outs(%f : tensor<f32>) {
  ^bb0(%x: f32, %acc: f32):
    %y = arith.addf %x, %acc : f32
    linalg.yield %y : f32
  } -> tensor<f32>
  util.return %s, %f : tensor<f32>, tensor<f32>
}
