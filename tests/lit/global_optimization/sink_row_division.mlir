// RUN: python -m rt opt --split-input-file --pass=rt-global-opt-sink-row-division %s | filecheck %s

// Tests that a softmax's normalization e / s[b, m] read only by a batch_matmul's LHS moves onto the product: the batch_matmul reads e and its 2x4x3 result is divided by s, the division inlined into the heads' transpose that reads it.
// CHECK-LABEL: func.func @attention_tail
// CHECK: %[[O:.+]] = linalg.batch_matmul ins(%e, %v : tensor<2x4x8xf32>, tensor<2x8x3xf32>)
// CHECK: %[[T:.+]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[O]], %s : tensor<2x4x3xf32>, tensor<2x4xf32>)
// CHECK-NEXT: ^bb0(%[[A:.+]]: f32, %[[B:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[D:.+]] = arith.divf %[[A]], %[[B]] : f32
// CHECK-NEXT: linalg.yield %[[D]] : f32
// CHECK: return %[[T]]
func.func @attention_tail(%e: tensor<2x4x8xf32>, %s: tensor<2x4xf32>, %v: tensor<2x8x3xf32>) -> tensor<4x2x3xf32> {
  %z = arith.constant 0.0 : f32
  %ep = tensor.empty() : tensor<2x4x8xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(b, m, k) -> (b, m, k)>, affine_map<(b, m, k) -> (b, m)>, affine_map<(b, m, k) -> (b, m, k)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%e, %s : tensor<2x4x8xf32>, tensor<2x4xf32>) outs(%ep : tensor<2x4x8xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %r = arith.divf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<2x4x8xf32>
  %eo = tensor.empty() : tensor<2x4x3xf32>
  %f = linalg.fill ins(%z : f32) outs(%eo : tensor<2x4x3xf32>) -> tensor<2x4x3xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x4x8xf32>, tensor<2x8x3xf32>) outs(%f : tensor<2x4x3xf32>) -> tensor<2x4x3xf32>
  %et = tensor.empty() : tensor<4x2x3xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(m, b, n) -> (b, m, n)>, affine_map<(m, b, n) -> (m, b, n)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%o : tensor<2x4x3xf32>) outs(%et : tensor<4x2x3xf32>) {
  ^bb0(%a: f32, %out: f32):
    linalg.yield %a : f32
  } -> tensor<4x2x3xf32>
  return %t : tensor<4x2x3xf32>
}

// -----

// Tests that a matmul whose result is returned gets the division as a generic of its own over the 4x3 result.
// CHECK-LABEL: func.func @matmul_returned
// CHECK: %[[O:.+]] = linalg.matmul ins(%e, %v : tensor<4x8xf32>, tensor<8x3xf32>)
// CHECK-NEXT: %[[Y:.+]] = tensor.empty() : tensor<4x3xf32>
// CHECK-NEXT: %[[D:.+]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[O]], %s : tensor<4x3xf32>, tensor<4xf32>) outs(%[[Y]] : tensor<4x3xf32>)
// CHECK: arith.divf
// CHECK: return %[[D]]
func.func @matmul_returned(%e: tensor<4x8xf32>, %s: tensor<4xf32>, %v: tensor<8x3xf32>) -> tensor<4x3xf32> {
  %z = arith.constant 0.0 : f32
  %ep = tensor.empty() : tensor<4x8xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(m, k) -> (m, k)>, affine_map<(m, k) -> (m)>, affine_map<(m, k) -> (m, k)>], iterator_types = ["parallel", "parallel"]} ins(%e, %s : tensor<4x8xf32>, tensor<4xf32>) outs(%ep : tensor<4x8xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %r = arith.divf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %eo = tensor.empty() : tensor<4x3xf32>
  %f = linalg.fill ins(%z : f32) outs(%eo : tensor<4x3xf32>) -> tensor<4x3xf32>
  %o = linalg.matmul ins(%p, %v : tensor<4x8xf32>, tensor<8x3xf32>) outs(%f : tensor<4x3xf32>) -> tensor<4x3xf32>
  return %o : tensor<4x3xf32>
}

// -----

// Tests that the division stays before the matmul when the init accumulates (a fill of 1.0), when the divisor varies along K (a column scaling), and when the quotient has another user.
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-3: arith.divf
// CHECK: linalg.matmul ins(%[[P1:.+]], %v :
// CHECK: linalg.matmul ins(%[[P2:.+]], %v :
// CHECK: linalg.matmul ins(%[[P3:.+]], %v :
// CHECK-NOT: arith.divf
func.func @kept(%e: tensor<4x8xf32>, %s: tensor<4xf32>, %c: tensor<8xf32>, %v: tensor<8x3xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x8xf32>) {
  %one = arith.constant 1.0 : f32
  %z = arith.constant 0.0 : f32
  %ep = tensor.empty() : tensor<4x8xf32>
  %p1 = linalg.generic {indexing_maps = [affine_map<(m, k) -> (m, k)>, affine_map<(m, k) -> (m)>, affine_map<(m, k) -> (m, k)>], iterator_types = ["parallel", "parallel"]} ins(%e, %s : tensor<4x8xf32>, tensor<4xf32>) outs(%ep : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.divf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %p2 = linalg.generic {indexing_maps = [affine_map<(m, k) -> (m, k)>, affine_map<(m, k) -> (k)>, affine_map<(m, k) -> (m, k)>], iterator_types = ["parallel", "parallel"]} ins(%e, %c : tensor<4x8xf32>, tensor<8xf32>) outs(%ep : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.divf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %p3 = linalg.generic {indexing_maps = [affine_map<(m, k) -> (m, k)>, affine_map<(m, k) -> (m)>, affine_map<(m, k) -> (m, k)>], iterator_types = ["parallel", "parallel"]} ins(%e, %s : tensor<4x8xf32>, tensor<4xf32>) outs(%ep : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.divf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %eo = tensor.empty() : tensor<4x3xf32>
  %f1 = linalg.fill ins(%one : f32) outs(%eo : tensor<4x3xf32>) -> tensor<4x3xf32>
  %f0 = linalg.fill ins(%z : f32) outs(%eo : tensor<4x3xf32>) -> tensor<4x3xf32>
  %o1 = linalg.matmul ins(%p1, %v : tensor<4x8xf32>, tensor<8x3xf32>) outs(%f1 : tensor<4x3xf32>) -> tensor<4x3xf32>
  %o2 = linalg.matmul ins(%p2, %v : tensor<4x8xf32>, tensor<8x3xf32>) outs(%f0 : tensor<4x3xf32>) -> tensor<4x3xf32>
  %o3 = linalg.matmul ins(%p3, %v : tensor<4x8xf32>, tensor<8x3xf32>) outs(%f0 : tensor<4x3xf32>) -> tensor<4x3xf32>
  return %o1, %o2, %o3, %p3 : tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x8xf32>
}
