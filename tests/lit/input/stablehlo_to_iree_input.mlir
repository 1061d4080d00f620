// RUN: python -m rt opt --split-input-file --pass=iree-stablehlo-to-iree-input %s | filecheck %s

// Tests that elementwise StableHLO ops become arith ops on the same tensors (convert-elementwise-to-linalg wraps them later) and a float compare takes the ordered predicate.
// CHECK-LABEL: func.func @elementwise
// CHECK: %[[S:.+]] = arith.addf %a, %b : tensor<4xf32>
// CHECK: %[[C:.+]] = arith.cmpf ogt, %[[S]], %b : tensor<4xf32>
// CHECK: func.return %[[C]] : tensor<4xi1>
func.func @elementwise(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xi1> {
  %0 = stablehlo.add %a, %b : tensor<4xf32>
  %1 = "stablehlo.compare"(%0, %b) {comparison_direction = #stablehlo<comparison_direction GT>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %1 : tensor<4xi1>
}

// -----

// Tests that a dot_general in the [M,K]x[K,N] layout becomes linalg.matmul accumulating into a zero-filled tensor (so data tiling applies).
// CHECK-LABEL: func.func @matmul
// CHECK: %[[Z:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[E:.+]] = tensor.empty() : tensor<2x4xf32>
// CHECK: %[[F:.+]] = linalg.fill ins(%[[Z]] : f32) outs(%[[E]] : tensor<2x4xf32>)
// CHECK: linalg.matmul ins(%a, %b : tensor<2x3xf32>, tensor<3x4xf32>) outs(%[[F]] : tensor<2x4xf32>)
func.func @matmul(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Tests that a dot_general contracting other dims becomes a contraction linalg.generic over (lhs free, rhs free, contracting) dims.
// CHECK-LABEL: func.func @transposed_contraction
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK: arith.mulf
// CHECK: arith.addf
func.func @transposed_contraction(%a: tensor<3x2xf32>, %b: tensor<4x3xf32>) -> tensor<2x4xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [0] x [1] : (tensor<3x2xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Tests that broadcast_in_dim becomes a linalg.generic reading the operand through the broadcast dims, and a size-1 dim through a constant 0.
// CHECK-LABEL: func.func @broadcast
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]
func.func @broadcast(%a: tensor<3xf32>, %b: tensor<2x1xf32>) -> (tensor<2x3xf32>, tensor<2x5x4xf32>) {
  %0 = stablehlo.broadcast_in_dim %a, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
  %1 = stablehlo.broadcast_in_dim %b, dims = [0, 2] : (tensor<2x1xf32>) -> tensor<2x5x4xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<2x5x4xf32>
}

// -----

// Tests that a reduce with `applies` becomes a reduction linalg.generic into a filled init, its body the scalar op on (accumulator, element).
// CHECK-LABEL: func.func @reduce
// CHECK: %[[I:.+]] = tensor.extract %{{.+}}[] : tensor<f32>
// CHECK: %[[F:.+]] = linalg.fill ins(%[[I]] : f32)
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%a : tensor<2x3xf32>) outs(%[[F]] : tensor<2xf32>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: f32, %[[ACC:.+]]: f32):
// CHECK-NEXT: %[[R:.+]] = arith.addf %[[ACC]], %[[X]] : f32
// CHECK-NEXT: linalg.yield %[[R]] : f32
func.func @reduce(%a: tensor<2x3xf32>) -> tensor<2xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Tests that JAX's shape assertions (custom_call @shape_assertion) are dropped, as IREE drops them.
// CHECK-LABEL: func.func @shape_assertion
// CHECK-NOT: custom_call
// CHECK: func.return %a
func.func @shape_assertion(%a: tensor<4xf32>, %p: tensor<i1>) -> tensor<4xf32> {
  stablehlo.custom_call @shape_assertion(%p) {error_message = "Input shapes do not match"} : (tensor<i1>) -> ()
  return %a : tensor<4xf32>
}

// -----

// Tests that rng_bit_generator becomes a generic computing the bits from the state's key and counter words (read through constant maps) and a generic writing the advanced state, with the ui64/ui32 types bitcast to signless ones around them.
// CHECK-LABEL: func.func @rng_bit_generator
// CHECK: %[[S:.+]] = flow.tensor.bitcast %s : tensor<2xui64> -> tensor<2xi64>
// CHECK: %[[B:.+]] = linalg.generic {indexing_maps = [affine_map<(d0) -> (0)>, affine_map<(d0) -> (1)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%[[S]], %[[S]] : tensor<2xi64>, tensor<2xi64>) outs(%{{.+}} : tensor<4xi32>)
// CHECK: linalg.index 0 : index
// CHECK: arith.xori
// CHECK: linalg.yield %{{.+}} : i32
// CHECK: %[[N:.+]] = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%[[S]] : tensor<2xi64>) outs(%{{.+}} : tensor<2xi64>)
// CHECK: %[[NS:.+]] = flow.tensor.bitcast %[[N]] : tensor<2xi64> -> tensor<2xui64>
// CHECK: %[[NB:.+]] = flow.tensor.bitcast %[[B]] : tensor<4xi32> -> tensor<4xui32>
// CHECK: func.return %[[NS]], %[[NB]]
func.func @rng_bit_generator(%s: tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>) {
  %0:2 = stablehlo.rng_bit_generator %s, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>)
  return %0#0, %0#1 : tensor<2xui64>, tensor<4xui32>
}
