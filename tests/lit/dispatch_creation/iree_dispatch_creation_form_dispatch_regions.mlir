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

// -----

// Tests that the elementwise consumer of an unset_encoding (bias + relu after a data-tiled matmul) fuses into the unset_encoding's region, as IREE fuses it with the unpack.
// CHECK-LABEL: util.func public @unset_bias_relu
// CHECK: flow.dispatch.region
// CHECK: linalg.matmul
// CHECK: flow.return
// CHECK: %[[R:.+]] = flow.dispatch.region[%{{.+}}, %{{.+}}] -> (tensor<4x8xf32>) {
// CHECK-NEXT: %[[E:.+]] = tensor.empty() : tensor<4x8xf32>
// CHECK-NEXT: %[[U:.+]] = iree_encoding.unset_encoding
// CHECK-NEXT: %[[G:.+]] = linalg.generic
// CHECK-SAME: ins(%[[U]], %bias : tensor<4x8xf32>, tensor<8xf32>) outs(%[[E]] : tensor<4x8xf32>)
// CHECK: flow.return %[[G]] : tensor<4x8xf32>
// CHECK-NOT: flow.dispatch.region
// CHECK: util.return %[[R]]
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
#lhs = #iree_encoding.encoding<operand_index = 0 : index, op_type = matmul, element_types = [f32, f32, f32], user_indexing_maps = [#map, #map1, #map2]>
#rhs = #iree_encoding.encoding<operand_index = 1 : index, op_type = matmul, element_types = [f32, f32, f32], user_indexing_maps = [#map, #map1, #map2]>
#res = #iree_encoding.encoding<operand_index = 2 : index, op_type = matmul, element_types = [f32, f32, f32], user_indexing_maps = [#map, #map1, #map2]>
util.func public @unset_bias_relu(%a: tensor<4x16xf32, #lhs>, %b: tensor<16x8xf32, #rhs>, %bias: tensor<8xf32>) -> tensor<4x8xf32> {
  %cst = arith.constant 0.0 : f32
  %e = flow.tensor.empty : tensor<4x8xf32, #res>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<4x8xf32, #res>) -> tensor<4x8xf32, #res>
  %m = linalg.matmul ins(%a, %b : tensor<4x16xf32, #lhs>, tensor<16x8xf32, #rhs>) outs(%f : tensor<4x8xf32, #res>) -> tensor<4x8xf32, #res>
  %u = iree_encoding.unset_encoding %m : tensor<4x8xf32, #res> -> tensor<4x8xf32>
  %e2 = flow.tensor.empty : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%u, %bias : tensor<4x8xf32>, tensor<8xf32>) outs(%e2 : tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %z = arith.maximumf %s, %cst : f32
    linalg.yield %z : f32
  } -> tensor<4x8xf32>
  util.return %r : tensor<4x8xf32>
}

// -----

// Tests that an elementwise producer of a set_encoding keeps its own region (the pack walks packed tiles; fusing would need the producer's whole result in workgroup scratch).
// CHECK-LABEL: util.func public @producer_of_set_encoding
// CHECK: %[[G:.+]] = flow.dispatch.region
// CHECK-NEXT: tensor.empty
// CHECK-NEXT: linalg.generic
// CHECK: flow.return
// CHECK: flow.dispatch.region
// CHECK-NEXT: %[[S:.+]] = iree_encoding.set_encoding %[[G]]
// CHECK-NEXT: flow.return %[[S]]
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
#lhs = #iree_encoding.encoding<operand_index = 0 : index, op_type = matmul, element_types = [f32, f32, f32], user_indexing_maps = [#map, #map1, #map2]>
util.func public @producer_of_set_encoding(%a: tensor<4x16xf32>) -> tensor<4x16xf32, #lhs> {
  %e = flow.tensor.empty : tensor<4x16xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %y = math.exp %v : f32
    linalg.yield %y : f32
  } -> tensor<4x16xf32>
  %s = iree_encoding.set_encoding %x : tensor<4x16xf32> -> tensor<4x16xf32, #lhs>
  util.return %s : tensor<4x16xf32, #lhs>
}

// -----

// Tests that a conv's dispatch takes its init's broadcast and its epilogue's broadcast bias, and that a splat of a 0-d bound shared by two convs' epilogues (and the 0-d generic yielding the bound) is cloned into both: two dispatches.
// CHECK-LABEL: util.func public @conv_epilogue_producers
// CHECK: flow.dispatch.region
// CHECK: linalg.generic {{.+}} iterator_types = []
// CHECK: linalg.generic {{.+}} ins(%{{.+}} : tensor<f32>)
// CHECK: linalg.broadcast
// CHECK: linalg.conv_2d_nhwc_hwcf
// CHECK: linalg.generic {{.+}} ins(%b : tensor<16xf32>)
// CHECK: linalg.generic
// CHECK: flow.return
// CHECK: flow.dispatch.region
// CHECK: linalg.generic {{.+}} iterator_types = []
// CHECK: linalg.generic {{.+}} ins(%{{.+}} : tensor<f32>)
// CHECK: linalg.conv_2d_nhwc_hwcf
// CHECK: flow.return
// CHECK-NOT: flow.dispatch.region
// CHECK: util.return
util.func public @conv_epilogue_producers(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x4x16xf32>, %w2: tensor<3x3x16x16xf32>, %b: tensor<16xf32>) -> tensor<1x4x4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = flow.tensor.empty : tensor<1x6x6x16xf32>
  %i = linalg.broadcast ins(%b : tensor<16xf32>) outs(%e : tensor<1x6x6x16xf32>) dimensions = [0, 1, 2]
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x8x8x4xf32>, tensor<3x3x4x16xf32>) outs(%i : tensor<1x6x6x16xf32>) -> tensor<1x6x6x16xf32>
  %e0 = flow.tensor.empty : tensor<f32>
  %s0 = linalg.generic {indexing_maps = [affine_map<() -> ()>], iterator_types = []} outs(%e0 : tensor<f32>) {
  ^bb0(%o: f32):
    linalg.yield %zero : f32
  } -> tensor<f32>
  %bb = linalg.generic {indexing_maps = [affine_map<(a, h, w, c) -> (c)>, affine_map<(a, h, w, c) -> (a, h, w, c)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b : tensor<16xf32>) outs(%e : tensor<1x6x6x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  } -> tensor<1x6x6x16xf32>
  %z = linalg.generic {indexing_maps = [affine_map<(a, h, w, c) -> ()>, affine_map<(a, h, w, c) -> (a, h, w, c)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s0 : tensor<f32>) outs(%e : tensor<1x6x6x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  } -> tensor<1x6x6x16xf32>
  %a = linalg.generic {indexing_maps = [affine_map<(a, h, w, c) -> (a, h, w, c)>, affine_map<(a, h, w, c) -> (a, h, w, c)>, affine_map<(a, h, w, c) -> (a, h, w, c)>, affine_map<(a, h, w, c) -> (a, h, w, c)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c, %bb, %z : tensor<1x6x6x16xf32>, tensor<1x6x6x16xf32>, tensor<1x6x6x16xf32>) outs(%e : tensor<1x6x6x16xf32>) {
  ^bb0(%p: f32, %q: f32, %r: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    %m = arith.maximumf %s, %r : f32
    linalg.yield %m : f32
  } -> tensor<1x6x6x16xf32>
  %e2 = flow.tensor.empty : tensor<1x4x4x16xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32>
  %c2 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%a, %w2 : tensor<1x6x6x16xf32>, tensor<3x3x16x16xf32>) outs(%f2 : tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32>
  %z2 = linalg.generic {indexing_maps = [affine_map<(a, h, w, c) -> ()>, affine_map<(a, h, w, c) -> (a, h, w, c)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s0 : tensor<f32>) outs(%e2 : tensor<1x4x4x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  } -> tensor<1x4x4x16xf32>
  %a2 = linalg.generic {indexing_maps = [affine_map<(a, h, w, c) -> (a, h, w, c)>, affine_map<(a, h, w, c) -> (a, h, w, c)>, affine_map<(a, h, w, c) -> (a, h, w, c)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c2, %z2 : tensor<1x4x4x16xf32>, tensor<1x4x4x16xf32>) outs(%e2 : tensor<1x4x4x16xf32>) {
  ^bb0(%p: f32, %r: f32, %o: f32):
    %m = arith.maximumf %p, %r : f32
    linalg.yield %m : f32
  } -> tensor<1x4x4x16xf32>
  util.return %a2 : tensor<1x4x4x16xf32>
}
