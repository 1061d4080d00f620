// RUN: python -m rt opt --pass=linalg-normalize-named-ops %s | filecheck %s

// Tests that elementwise named ops become linalg.generic while matmul and fill stay named.
// CHECK-LABEL: func.func @mixed
// CHECK: linalg.fill
// CHECK: linalg.matmul
// CHECK-NOT: linalg.add
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK: arith.addf
func.func @mixed(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>, %c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %m = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>) outs(%f : tensor<4x4xf32>) -> tensor<4x4xf32>
  %s = linalg.add ins(%m, %c : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %s : tensor<4x4xf32>
}
