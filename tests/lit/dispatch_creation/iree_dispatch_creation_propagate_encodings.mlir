// RUN: python -m rt opt --split-input-file --pass=iree-dispatch-creation-set-encoding --pass=iree-dispatch-creation-propagate-encodings %s | filecheck %s

// Tests that a bias+relu epilogue between two matmuls runs on the first matmul's packed result and that the second matmul reads that result as its LHS (no unset/set pair between the layers).
// CHECK-LABEL: func.func @mlp_layers
// CHECK: %[[MM1:.+]] = linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<64x96xf32, #iree_encoding.encoding<operand_index = 0 : index
// CHECK: %[[E:.+]] = tensor.empty() : tensor<64x32xf32, #iree_encoding.encoding<operand_index = 2 : index
// CHECK: %[[ACT:.+]] = linalg.generic {{.+}} ins(%[[MM1]], %b1 : tensor<64x32xf32, #iree_encoding.encoding<operand_index = 2 : index, {{.+}}>>, tensor<32xf32>) outs(%[[E]] :
// CHECK: } -> tensor<64x32xf32, #iree_encoding.encoding<operand_index = 2 : index
// CHECK-NOT: iree_encoding.unset_encoding
// CHECK-NOT: iree_encoding.set_encoding %{{[0-9]+}}
// CHECK: %[[MM2:.+]] = linalg.matmul ins(%[[ACT]], %{{.+}} : tensor<64x32xf32, #iree_encoding.encoding<operand_index = 2 : index
// CHECK: %[[R:.+]] = iree_encoding.unset_encoding %[[MM2]]
// CHECK: return %[[R]]
func.func @mlp_layers(%x: tensor<64x96xf32>, %w1: tensor<96x32xf32>, %b1: tensor<32xf32>, %w2: tensor<32x48xf32>) -> tensor<64x48xf32> {
  %z = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<64x32xf32>
  %f1 = linalg.fill ins(%z : f32) outs(%e1 : tensor<64x32xf32>) -> tensor<64x32xf32>
  %m1 = linalg.matmul ins(%x, %w1 : tensor<64x96xf32>, tensor<96x32xf32>) outs(%f1 : tensor<64x32xf32>) -> tensor<64x32xf32>
  %a1 = linalg.generic {indexing_maps = [affine_map<(i,j)->(i,j)>, affine_map<(i,j)->(j)>, affine_map<(i,j)->(i,j)>], iterator_types = ["parallel","parallel"]} ins(%m1, %b1 : tensor<64x32xf32>, tensor<32xf32>) outs(%e1 : tensor<64x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    %r = arith.maximumf %s, %z : f32
    linalg.yield %r : f32
  } -> tensor<64x32xf32>
  %e2 = tensor.empty() : tensor<64x48xf32>
  %f2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<64x48xf32>) -> tensor<64x48xf32>
  %m2 = linalg.matmul ins(%a1, %w2 : tensor<64x32xf32>, tensor<32x48xf32>) outs(%f2 : tensor<64x48xf32>) -> tensor<64x48xf32>
  return %m2 : tensor<64x48xf32>
}

// -----

// Tests that a residual epilogue (a plain identity-mapped operand) sinks too when M and N are multiples of 16, leaving the unpack after it.
// CHECK-LABEL: func.func @residual
// CHECK: %[[MM:.+]] = linalg.matmul
// CHECK: %[[G:.+]] = linalg.generic {{.+}} ins(%[[MM]], %skip : tensor<32x16xf32, #iree_encoding.encoding<{{.+}}>>, tensor<32x16xf32>)
// CHECK: %[[R:.+]] = iree_encoding.unset_encoding %[[G]] : tensor<32x16xf32, #iree_encoding.encoding<{{.+}}>> -> tensor<32x16xf32>
// CHECK: return %[[R]]
func.func @residual(%x: tensor<32x8xf32>, %w: tensor<8x16xf32>, %skip: tensor<32x16xf32>) -> tensor<32x16xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x16xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<32x16xf32>) -> tensor<32x16xf32>
  %m = linalg.matmul ins(%x, %w : tensor<32x8xf32>, tensor<8x16xf32>) outs(%f : tensor<32x16xf32>) -> tensor<32x16xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i,j)->(i,j)>, affine_map<(i,j)->(i,j)>, affine_map<(i,j)->(i,j)>], iterator_types = ["parallel","parallel"]} ins(%m, %skip : tensor<32x16xf32>, tensor<32x16xf32>) outs(%e : tensor<32x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<32x16xf32>
  return %y : tensor<32x16xf32>
}

// -----

// Tests that nothing moves when N is not a multiple of 16 (a packed column would be padding) or when the consumer is not elementwise.
// CHECK-LABEL: func.func @untouched
// CHECK: %[[U:.+]] = iree_encoding.unset_encoding {{.+}} -> tensor<16x40xf32>
// CHECK: linalg.generic {{.+}} ins(%[[U]], %b : tensor<16x40xf32>, tensor<40xf32>)
// CHECK: %[[V:.+]] = iree_encoding.unset_encoding {{.+}} -> tensor<16x32xf32>
// CHECK: linalg.generic {{.+}} ins(%[[V]] : tensor<16x32xf32>) outs(%{{.+}} : tensor<16xf32>)
func.func @untouched(%x: tensor<16x8xf32>, %w: tensor<8x40xf32>, %b: tensor<40xf32>, %v: tensor<8x32xf32>) -> (tensor<16x40xf32>, tensor<16xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x40xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<16x40xf32>) -> tensor<16x40xf32>
  %m = linalg.matmul ins(%x, %w : tensor<16x8xf32>, tensor<8x40xf32>) outs(%f : tensor<16x40xf32>) -> tensor<16x40xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i,j)->(i,j)>, affine_map<(i,j)->(j)>, affine_map<(i,j)->(i,j)>], iterator_types = ["parallel","parallel"]} ins(%m, %b : tensor<16x40xf32>, tensor<40xf32>) outs(%e : tensor<16x40xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<16x40xf32>
  %e2 = tensor.empty() : tensor<16x32xf32>
  %f2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %m2 = linalg.matmul ins(%x, %v : tensor<16x8xf32>, tensor<8x32xf32>) outs(%f2 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %e3 = tensor.empty() : tensor<16xf32>
  %f3 = linalg.fill ins(%z : f32) outs(%e3 : tensor<16xf32>) -> tensor<16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(i,j)->(i,j)>, affine_map<(i,j)->(i)>], iterator_types = ["parallel","reduction"]} ins(%m2 : tensor<16x32xf32>) outs(%f3 : tensor<16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.addf %a, %o : f32
    linalg.yield %t : f32
  } -> tensor<16xf32>
  return %y, %s : tensor<16x40xf32>, tensor<16xf32>
}

// -----

// Tests that the LHS fold is refused when a narrow M (8) meets a narrower N (4) in the next matmul, whose resolver could then pick another M tile; the epilogue still sinks.
// CHECK-LABEL: func.func @narrow
// CHECK: %[[G:.+]] = linalg.generic {{.+}} ins(%{{.+}} : tensor<8x32xf32, #iree_encoding.encoding<operand_index = 2 : index
// CHECK: %[[U:.+]] = iree_encoding.unset_encoding %[[G]]
// CHECK: iree_encoding.set_encoding %[[U]] : tensor<8x32xf32> -> tensor<8x32xf32, #iree_encoding.encoding<operand_index = 0 : index
func.func @narrow(%x: tensor<8x16xf32>, %w1: tensor<16x32xf32>, %w2: tensor<32x4xf32>) -> tensor<8x4xf32> {
  %z = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<8x32xf32>
  %f1 = linalg.fill ins(%z : f32) outs(%e1 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %m1 = linalg.matmul ins(%x, %w1 : tensor<8x16xf32>, tensor<16x32xf32>) outs(%f1 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %a1 = linalg.generic {indexing_maps = [affine_map<(i,j)->(i,j)>, affine_map<(i,j)->(i,j)>], iterator_types = ["parallel","parallel"]} ins(%m1 : tensor<8x32xf32>) outs(%e1 : tensor<8x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %z : f32
    linalg.yield %r : f32
  } -> tensor<8x32xf32>
  %e2 = tensor.empty() : tensor<8x4xf32>
  %f2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<8x4xf32>) -> tensor<8x4xf32>
  %m2 = linalg.matmul ins(%a1, %w2 : tensor<8x32xf32>, tensor<32x4xf32>) outs(%f2 : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %m2 : tensor<8x4xf32>
}
