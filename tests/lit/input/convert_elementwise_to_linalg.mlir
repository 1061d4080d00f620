// RUN: python -m rt opt --pass=convert-elementwise-to-linalg %s | filecheck %s

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

// Tests that scalar ops are left alone.
// CHECK-LABEL: func.func @scalar
// CHECK-NOT: linalg.generic
// CHECK: arith.mulf %s, %s : f32
func.func @scalar(%s: f32) -> f32 {
  %0 = arith.mulf %s, %s : f32
  return %0 : f32
}
