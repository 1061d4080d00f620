// RUN: python -m rt opt --split-input-file --pass=iree-stablehlo-legalize-shape-computations %s | filecheck %s

// Tests that a shape assembled from get_dimension_size and a constant becomes index values (tensor.dim and a constant) sizing the broadcast's tensor.empty, with no read of the shape tensor.
// CHECK-LABEL: func.func @broadcast
// CHECK: tensor.from_elements
// CHECK-NOT: tensor.extract
// CHECK: %[[D:.+]] = tensor.dim %x, %{{.+}} : tensor<?xf32>
// CHECK-NOT: tensor.extract
// CHECK: %[[E:.+]] = tensor.empty(%[[D]]) : tensor<?x4xf32>
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME: ins(%v : tensor<f32>) outs(%[[E]] : tensor<?x4xf32>)
func.func @broadcast(%x: tensor<?xf32>, %v: tensor<f32>) -> tensor<?x4xf32> {
  %n = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?xf32>) -> tensor<i32>
  %n1 = stablehlo.reshape %n : (tensor<i32>) -> tensor<1xi32>
  %c4 = stablehlo.constant dense<4> : tensor<1xi32>
  %shape = stablehlo.concatenate %n1, %c4, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %0 = stablehlo.dynamic_broadcast_in_dim %v, %shape, dims = [] : (tensor<f32>, tensor<2xi32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// Tests that JAX's shape assertion becomes a host cf.assert on its predicate with JAX's message, placeholders shown as '?'.
// CHECK-LABEL: func.func @assertion
// CHECK: %[[OK:.+]] = tensor.extract %ok[] : tensor<i1>
// CHECK: cf.assert %[[OK]], "jax.export shape assertion: b = ? must be >= 1"
func.func @assertion(%x: tensor<?xf32>) -> tensor<i32> {
  %n = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?xf32>) -> tensor<i32>
  %c = stablehlo.constant dense<1> : tensor<i32>
  %ok = stablehlo.compare GE, %n, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
  stablehlo.custom_call @shape_assertion(%ok, %n) {error_message = "b = {0} must be >= 1"} : (tensor<i1>, tensor<i32>) -> ()
  return %n : tensor<i32>
}

// -----

// Tests that a dynamic_reshape takes the source's dynamic size from tensor.dim and the result's from the shape arithmetic (b * 4).
// CHECK-LABEL: func.func @reshape
// CHECK: tensor.from_elements
// CHECK: %[[D:.+]] = tensor.dim %x, %{{.+}} : tensor<?x4xf32>
// CHECK: %[[N:.+]] = arith.muli %[[D]], %{{.+}} : index
// CHECK: flow.tensor.reshape %x : tensor<?x4xf32>{%{{.+}}} -> tensor<?xf32>{%[[N]]}
func.func @reshape(%x: tensor<?x4xf32>) -> tensor<?xf32> {
  %n = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>
  %c4 = stablehlo.constant dense<4> : tensor<i32>
  %m = stablehlo.multiply %n, %c4 : tensor<i32>
  %m1 = stablehlo.reshape %m : (tensor<i32>) -> tensor<1xi32>
  %0 = stablehlo.dynamic_reshape %x, %m1 : (tensor<?x4xf32>, tensor<1xi32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
