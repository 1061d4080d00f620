// RUN: python -m rt opt --split-input-file --pass=iree-dispatch-creation-elementwise-op-fusion %s | filecheck %s

// Tests that a chain of elementwise generics (negate, then scale by a broadcast row) becomes one generic reading the chain's inputs, the producer's body first.
// CHECK-LABEL: func.func @chain
// CHECK: %[[R:.+]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %b : tensor<4x8xf32>, tensor<8xf32>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: f32, %[[B:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[N:.+]] = arith.negf %[[X]] : f32
// CHECK-NEXT: %[[M:.+]] = arith.mulf %[[N]], %[[B]] : f32
// CHECK-NEXT: linalg.yield %[[M]] : f32
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
func.func @chain(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %n = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.negf %a : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%n, %b : tensor<4x8xf32>, tensor<8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %r = arith.mulf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %m : tensor<4x8xf32>
}

// -----

// Tests that a value reaching one consumer along two paths (t and t * t, as erfc's polynomial reads t) is computed once in the fused body, and that a producer read by a row sum and by the normalization (a softmax's exp) stays a tensor: a reduction takes only a producer it alone reads.
// CHECK-LABEL: func.func @diamond_and_reduction
// CHECK: %[[D:.+]] = linalg.generic {{.+}} ins(%x : tensor<4x8xf32>)
// CHECK-NEXT: ^bb0(%[[A:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[E:.+]] = math.exp %[[A]] : f32
// CHECK-NEXT: %[[SQ:.+]] = arith.mulf %[[E]], %[[E]] : f32
// CHECK-NEXT: arith.addf %[[SQ]], %[[E]] : f32
// CHECK-NEXT: linalg.yield
// CHECK: %[[U:.+]] = linalg.generic {{.+}} ins(%y : tensor<4x8xf32>)
// CHECK: math.exp
// CHECK: %[[S:.+]] = linalg.generic {{.+}} iterator_types = ["parallel", "reduction"]} ins(%[[U]] : tensor<4x8xf32>)
// CHECK: linalg.generic {{.+}} ins(%[[U]], %[[S]] : tensor<4x8xf32>, tensor<4xf32>)
// CHECK: return %[[D]]
func.func @diamond_and_reduction(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %e1 = tensor.empty() : tensor<4xf32>
  %f1 = linalg.fill ins(%z : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %sq = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%t, %t : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %r = arith.mulf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %d = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%sq, %t : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %r = arith.addf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %u = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%y : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%u : tensor<4x8xf32>) outs(%f1 : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%u, %s : tensor<4x8xf32>, tensor<4xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %r = arith.divf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %d, %p : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Tests that a producer also read by a matmul stays (fusing it into its other users would compute it twice), and that an exp a consumer broadcasts along a row is not inlined (it would run once per element of the row), while a cheap add it broadcasts is.
// CHECK-LABEL: func.func @kept
// CHECK: %[[R:.+]] = linalg.generic {{.+}} ins(%x : tensor<4x8xf32>)
// CHECK: math.absf
// CHECK: linalg.matmul ins(%[[R]], %w
// CHECK: %[[X:.+]] = linalg.generic {{.+}} ins(%v : tensor<4xf32>)
// CHECK: math.exp
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>]{{.+}} ins(%[[R]], %[[X]], %v :
// CHECK-NEXT: ^bb0(%{{.+}}: f32, %{{.+}}: f32, %[[V:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: arith.addf %[[V]], %one : f32
func.func @kept(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>, %v: tensor<4xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %z = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %e1 = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %q = math.absf %a : f32
    linalg.yield %q : f32
  } -> tensor<4x8xf32>
  %m = linalg.matmul ins(%r, %w : tensor<4x8xf32>, tensor<8x8xf32>) outs(%f : tensor<4x8xf32>) -> tensor<4x8xf32>
  %xp = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%v : tensor<4xf32>) outs(%e1 : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %q = math.exp %a : f32
    linalg.yield %q : f32
  } -> tensor<4xf32>
  %p1 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%v : tensor<4xf32>) outs(%e1 : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %q = arith.addf %a, %one : f32
    linalg.yield %q : f32
  } -> tensor<4xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%r, %xp, %p1 : tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %o: f32):
    %q = arith.mulf %a, %b : f32
    %s = arith.mulf %q, %c : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %m, %y : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Tests that a splat constant tensor input (an erfc coefficient JAX broadcasts to the whole tensor) becomes a scalar constant the body reads, so the fused body reads only %x.
// CHECK-LABEL: func.func @splat_coefficient
// CHECK: %[[C:.+]] = arith.constant 1.250000e+00 : f32
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>)
// CHECK-NEXT: ^bb0(%[[A:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[N:.+]] = arith.negf %[[A]] : f32
// CHECK-NEXT: arith.mulf %[[C]], %[[N]] : f32
func.func @splat_coefficient(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c = arith.constant dense<1.25> : tensor<4x8xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %n = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.negf %a : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%c, %n : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.mulf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %m : tensor<4x8xf32>
}

// -----

// Tests that a cheap one-input producer (attention's scores / 8) read by a row max and by the exp is inlined into both, the reduction included, while a two-input add read by a row sum and a normalization stays a tensor (inlined, each reduction would read both of its inputs).
// CHECK-LABEL: func.func @cheap_into_reductions
// CHECK: %[[M:.+]] = linalg.generic {{.+}} iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x8xf32>)
// CHECK-NEXT: ^bb0(%[[A:.+]]: f32, %[[O:.+]]: f32):
// CHECK-NEXT: %[[D:.+]] = arith.divf %[[A]], %{{.+}} : f32
// CHECK-NEXT: arith.maximumf %[[O]], %[[D]] : f32
// CHECK: %[[E:.+]] = linalg.generic {{.+}} iterator_types = ["parallel", "parallel"]} ins(%x, %[[M]] : tensor<4x8xf32>, tensor<4xf32>)
// CHECK: arith.divf
// CHECK: math.exp
// CHECK: %[[R:.+]] = linalg.generic {{.+}} iterator_types = ["parallel", "parallel"]} ins(%x, %y : tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK: arith.addf
// CHECK: %[[S:.+]] = linalg.generic {{.+}} iterator_types = ["parallel", "reduction"]} ins(%[[R]] : tensor<4x8xf32>)
// CHECK: linalg.generic {{.+}} ins(%[[R]], %[[S]] : tensor<4x8xf32>, tensor<4xf32>)
func.func @cheap_into_reductions(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %eight = arith.constant 8.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %e1 = tensor.empty() : tensor<4xf32>
  %fm = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  %fs = linalg.fill ins(%z : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.divf %a, %eight : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%s : tensor<4x8xf32>) outs(%fm : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %o, %a : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%s, %m : tensor<4x8xf32>, tensor<4xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %d = arith.subf %a, %c : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x, %y : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%t : tensor<4x8xf32>) outs(%fs : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %o, %a : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %n = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%t, %sum : tensor<4x8xf32>, tensor<4xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %r = arith.subf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %p, %n : tensor<4x8xf32>, tensor<4x8xf32>
}
