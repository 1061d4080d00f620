// RUN: python -m rt opt --split-input-file --pass=convert-elementwise-to-linalg %s | filecheck %s

// Tests that a static-shape tensor arith op becomes tensor.empty + linalg.generic.
// CHECK-LABEL: func.func @static
// CHECK: %[[E:.+]] = tensor.empty() : tensor<10xf32>
// CHECK: %[[G:.+]] = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a, %b : tensor<10xf32>, tensor<10xf32>) outs(%[[E]] : tensor<10xf32>)
// CHECK: arith.addf %{{.+}}, %{{.+}} : f32
// CHECK: linalg.yield
// CHECK: func.return %[[G]]
func.func @static(%a: tensor<10xf32>, %b: tensor<10xf32>) -> tensor<10xf32> {
  %0 = arith.addf %a, %b : tensor<10xf32>
  return %0 : tensor<10xf32>
}

// -----

// Tests that dynamic sizes come from tensor.dim of the first operand and math ops convert too.
// CHECK-LABEL: func.func @dynamic
// CHECK: %[[C0:.+]] = arith.constant 0 : index
// CHECK: %[[D:.+]] = tensor.dim %x, %[[C0]] : tensor<?x4xf32>
// CHECK: tensor.empty(%[[D]]) : tensor<?x4xf32>
// CHECK: iterator_types = ["parallel", "parallel"]
// CHECK: math.exp %{{.+}} : f32
func.func @dynamic(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = math.exp %x : tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// Tests that scalar ops are left alone.
// CHECK-LABEL: func.func @scalar
// CHECK-NOT: linalg.generic
// CHECK: arith.mulf %s, %s : f32
func.func @scalar(%s: f32) -> f32 {
  %0 = arith.mulf %s, %s : f32
  return %0 : f32
}

// -----

// Tests that a tensor comparison gives an i1 tensor and select takes it as its condition.
// CHECK-LABEL: func.func @cmp_select
// CHECK: %[[E:.+]] = tensor.empty() : tensor<4xi1>
// CHECK: %[[C:.+]] = linalg.generic {{.+}} ins(%a, %b : tensor<4xf32>, tensor<4xf32>) outs(%[[E]] : tensor<4xi1>)
// CHECK: ^bb0(%[[X:.+]]: f32, %[[Y:.+]]: f32, %{{.+}}: i1):
// CHECK: %[[P:.+]] = arith.cmpf olt, %[[X]], %[[Y]] : f32
// CHECK: linalg.yield %[[P]] : i1
// CHECK: } -> tensor<4xi1>
// CHECK: linalg.generic {{.+}} ins(%[[C]], %a, %b : tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) outs(%{{.+}} : tensor<4xf32>)
// CHECK: ^bb0(%[[K:.+]]: i1, %[[T:.+]]: f32, %[[F:.+]]: f32, %{{.+}}: f32):
// CHECK: arith.select %[[K]], %[[T]], %[[F]] : f32
func.func @cmp_select(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %c = arith.cmpf olt, %a, %b : tensor<4xf32>
  %r = arith.select %c, %a, %b : tensor<4xi1>, tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Tests that casts and remf on tensors convert, with the element types of their operands and result.
// CHECK-LABEL: func.func @casts
// CHECK: linalg.generic {{.+}} ins(%i : tensor<3xi32>) outs(%{{.+}} : tensor<3xf32>)
// CHECK: ^bb0(%[[I:.+]]: i32, %{{.+}}: f32):
// CHECK: arith.sitofp %[[I]] : i32 to f32
// CHECK: } -> tensor<3xf32>
// CHECK: linalg.generic
// CHECK: arith.remf %{{.+}}, %{{.+}} : f32
// CHECK: linalg.generic {{.+}} outs(%{{.+}} : tensor<3xi8>)
// CHECK: arith.trunci %{{.+}} : i32 to i8
func.func @casts(%i: tensor<3xi32>, %f: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xi8>) {
  %0 = arith.sitofp %i : tensor<3xi32> to tensor<3xf32>
  %1 = arith.remf %0, %f : tensor<3xf32>
  %2 = arith.trunci %i : tensor<3xi32> to tensor<3xi8>
  return %1, %2 : tensor<3xf32>, tensor<3xi8>
}

// -----

// Tests that a two-result elementwise op becomes a two-output linalg.generic.
// CHECK-LABEL: func.func @two_results
// CHECK: %[[E0:.+]] = tensor.empty() : tensor<4xi32>
// CHECK: %[[E1:.+]] = tensor.empty() : tensor<4xi1>
// CHECK: %[[S:.+]], %[[O:.+]] = linalg.generic {{.+}} outs(%[[E0]], %[[E1]] : tensor<4xi32>, tensor<4xi1>)
// CHECK: %[[A:.+]], %[[B:.+]] = arith.addui_extended %{{.+}}, %{{.+}} : i32, i1
// CHECK: linalg.yield %[[A]], %[[B]] : i32, i1
// CHECK: } -> (tensor<4xi32>, tensor<4xi1>)
// CHECK: func.return %[[S]], %[[O]]
func.func @two_results(%a: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi1>) {
  %s, %o = arith.addui_extended %a, %a : tensor<4xi32>, tensor<4xi1>
  return %s, %o : tensor<4xi32>, tensor<4xi1>
}
