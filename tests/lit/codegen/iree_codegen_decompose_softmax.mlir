// RUN: python -m rt opt --split-input-file --pass=iree-codegen-decompose-softmax %s | filecheck %s

// Tests that a softmax along the innermost dim becomes max-reduce (maxnumf from -inf), exp(x - max) into the init, sum-reduce (from 0) and the division into the init.
// CHECK-LABEL: func.func @inner
// CHECK: %[[NINF:.+]] = arith.constant 0xff800000 : f32
// CHECK: %[[E1:.+]] = tensor.empty() : tensor<4xf32>
// CHECK: %[[M0:.+]] = linalg.fill ins(%[[NINF]] : f32) outs(%[[E1]] : tensor<4xf32>) -> tensor<4xf32>
// CHECK: %[[M:.+]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x8xf32>) outs(%[[M0]] : tensor<4xf32>)
// CHECK: arith.maxnumf
// CHECK: %[[N:.+]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %[[M]] : tensor<4x8xf32>, tensor<4xf32>) outs(%e : tensor<4x8xf32>)
// CHECK: arith.subf
// CHECK: math.exp
// CHECK: %[[S0:.+]] = linalg.fill
// CHECK: %[[S:.+]] = linalg.generic {{.+}} ins(%[[N]] : tensor<4x8xf32>) outs(%[[S0]] : tensor<4xf32>)
// CHECK: arith.addf
// CHECK: %[[R:.+]] = linalg.generic {{.+}} ins(%[[N]], %[[S]] : tensor<4x8xf32>, tensor<4xf32>) outs(%e : tensor<4x8xf32>)
// CHECK: arith.divf
// CHECK: func.return %[[R]] : tensor<4x8xf32>
// CHECK-NOT: linalg.softmax
func.func @inner(%x: tensor<4x8xf32>, %e: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = linalg.softmax dimension(1) ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Tests that a softmax along a leading dynamic dim reduces over d0 and sizes its reduced tensors from the input's other dynamic dims.
// CHECK-LABEL: func.func @outer_dynamic
// CHECK: %[[C1:.+]] = arith.constant 1 : index
// CHECK: %[[D1:.+]] = tensor.dim %x, %[[C1]] : tensor<?x?xf32>
// CHECK: tensor.empty(%[[D1]]) : tensor<?xf32>
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]}
// CHECK-NOT: linalg.softmax
func.func @outer_dynamic(%x: tensor<?x?xf32>, %e: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = linalg.softmax dimension(0) ins(%x : tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
