// RUN: python -m rt opt --split-input-file --pass=iree-dispatch-creation-form-dispatch-regions %s | filecheck %s

// Tests that on an llvm-cpu device the LHS and RHS set_encodings of arguments and the unset_encoding of the result join the matmul's region (the LHS packed panel by panel in the kernel, the RHS read and the result written in place).
// CHECK-LABEL: util.func public @in_place
// CHECK-NEXT: arith.constant
// CHECK-NEXT: arith.constant
// CHECK-NEXT: arith.constant
// CHECK-NEXT: %[[R:.+]] = flow.dispatch.region[%{{.+}}, %{{.+}}] -> (tensor<4x8xf32>) {
// CHECK: %[[L:.+]] = iree_encoding.set_encoding %a
// CHECK-NEXT: %[[S:.+]] = iree_encoding.set_encoding %b
// CHECK-NEXT: %[[M:.+]] = linalg.matmul ins(%[[L]], %[[S]] :
// CHECK-NEXT: %[[U:.+]] = iree_encoding.unset_encoding %[[M]]
// CHECK-NEXT: flow.return %[[U]] : tensor<4x8xf32>
// CHECK-NOT: flow.dispatch.region
// CHECK: util.return %[[R]]
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
#lhs = #iree_encoding.encoding<operand_index = 0 : index, op_type = matmul, element_types = [f32, f32, f32], user_indexing_maps = [#map, #map1, #map2]>
#rhs = #iree_encoding.encoding<operand_index = 1 : index, op_type = matmul, element_types = [f32, f32, f32], user_indexing_maps = [#map, #map1, #map2]>
#res = #iree_encoding.encoding<operand_index = 2 : index, op_type = matmul, element_types = [f32, f32, f32], user_indexing_maps = [#map, #map1, #map2]>
util.global private @__device_0 = #hal.device.target<"local", [#hal.executable.target<"llvm-cpu", "llvm-cpu-object-x86_64", {}>]> : !hal.device
util.func public @in_place(%a: tensor<4x16xf32>, %b: tensor<16x8xf32>) -> tensor<4x8xf32> {
  %cst = arith.constant 0.0 : f32
  %sa = iree_encoding.set_encoding %a : tensor<4x16xf32> -> tensor<4x16xf32, #lhs>
  %sb = iree_encoding.set_encoding %b : tensor<16x8xf32> -> tensor<16x8xf32, #rhs>
  %e = flow.tensor.empty : tensor<4x8xf32, #res>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<4x8xf32, #res>) -> tensor<4x8xf32, #res>
  %m = linalg.matmul ins(%sa, %sb : tensor<4x16xf32, #lhs>, tensor<16x8xf32, #rhs>) outs(%f : tensor<4x8xf32, #res>) -> tensor<4x8xf32, #res>
  %u = iree_encoding.unset_encoding %m : tensor<4x8xf32, #res> -> tensor<4x8xf32>
  util.return %u : tensor<4x8xf32>
}

// -----

// Tests that on a vmvx device the set_encoding and unset_encoding keep their own regions (its kernels pack in scratch).
// CHECK-LABEL: util.func public @vmvx_keeps_packs
// CHECK-COUNT-4: flow.dispatch.region
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
#lhs = #iree_encoding.encoding<operand_index = 0 : index, op_type = matmul, element_types = [f32, f32, f32], user_indexing_maps = [#map, #map1, #map2]>
#rhs = #iree_encoding.encoding<operand_index = 1 : index, op_type = matmul, element_types = [f32, f32, f32], user_indexing_maps = [#map, #map1, #map2]>
#res = #iree_encoding.encoding<operand_index = 2 : index, op_type = matmul, element_types = [f32, f32, f32], user_indexing_maps = [#map, #map1, #map2]>
util.global private @__device_0 = #hal.device.target<"local", [#hal.executable.target<"vmvx", "vmvx-bytecode-fb", {}>]> : !hal.device
util.func public @vmvx_keeps_packs(%a: tensor<4x16xf32>, %b: tensor<16x8xf32>) -> tensor<4x8xf32> {
  %cst = arith.constant 0.0 : f32
  %sa = iree_encoding.set_encoding %a : tensor<4x16xf32> -> tensor<4x16xf32, #lhs>
  %sb = iree_encoding.set_encoding %b : tensor<16x8xf32> -> tensor<16x8xf32, #rhs>
  %e = flow.tensor.empty : tensor<4x8xf32, #res>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<4x8xf32, #res>) -> tensor<4x8xf32, #res>
  %m = linalg.matmul ins(%sa, %sb : tensor<4x16xf32, #lhs>, tensor<16x8xf32, #rhs>) outs(%f : tensor<4x8xf32, #res>) -> tensor<4x8xf32, #res>
  %u = iree_encoding.unset_encoding %m : tensor<4x8xf32, #res> -> tensor<4x8xf32>
  util.return %u : tensor<4x8xf32>
}

// -----

// Tests that an RHS keeps its pack region when it is a constant, when its rows are a multiple of 4 KiB apart (N = 1024) and when two matmuls read it; an unset whose result feeds a bias add fuses with the add instead (rule 2).
// CHECK-LABEL: util.func public @kept_packs
// CHECK: flow.dispatch.region
// CHECK-NEXT: iree_encoding.set_encoding %cw
// CHECK: flow.dispatch.region
// CHECK-NEXT: iree_encoding.set_encoding %wide
// CHECK: flow.dispatch.region
// CHECK-NEXT: iree_encoding.set_encoding %b
// CHECK: flow.dispatch.region
// CHECK-NOT: iree_encoding.set_encoding
// CHECK: linalg.matmul
// CHECK-NEXT: flow.return
// CHECK: flow.dispatch.region
// CHECK-NOT: iree_encoding.set_encoding
// CHECK: linalg.matmul
// CHECK-NEXT: flow.return
// CHECK: flow.dispatch.region
// CHECK-NOT: iree_encoding.set_encoding
// CHECK: linalg.matmul
// CHECK-NEXT: flow.return
// CHECK: flow.dispatch.region
// CHECK-NOT: iree_encoding.set_encoding
// CHECK: linalg.matmul
// CHECK-NEXT: flow.return
// CHECK: flow.dispatch.region
// CHECK: iree_encoding.unset_encoding
// CHECK: linalg.generic
// CHECK: flow.return
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
#lhs = #iree_encoding.encoding<operand_index = 0 : index, op_type = matmul, element_types = [f32, f32, f32], user_indexing_maps = [#map, #map1, #map2]>
#rhs = #iree_encoding.encoding<operand_index = 1 : index, op_type = matmul, element_types = [f32, f32, f32], user_indexing_maps = [#map, #map1, #map2]>
#res = #iree_encoding.encoding<operand_index = 2 : index, op_type = matmul, element_types = [f32, f32, f32], user_indexing_maps = [#map, #map1, #map2]>
util.global private @__device_0 = #hal.device.target<"local", [#hal.executable.target<"llvm-cpu", "llvm-cpu-object-x86_64", {}>]> : !hal.device
util.func public @kept_packs(%a: tensor<4x16xf32, #lhs>, %b: tensor<16x8xf32>, %wide: tensor<16x1024xf32>, %bias: tensor<8xf32>) -> (tensor<4x8xf32, #res>, tensor<4x1024xf32, #res>, tensor<4x8xf32, #res>, tensor<4x8xf32>) {
  %cst = arith.constant 0.0 : f32
  %cw = arith.constant dense<1.0> : tensor<16x8xf32>
  %sc = iree_encoding.set_encoding %cw : tensor<16x8xf32> -> tensor<16x8xf32, #rhs>
  %sw = iree_encoding.set_encoding %wide : tensor<16x1024xf32> -> tensor<16x1024xf32, #rhs>
  %sb = iree_encoding.set_encoding %b : tensor<16x8xf32> -> tensor<16x8xf32, #rhs>
  %e = flow.tensor.empty : tensor<4x8xf32, #res>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<4x8xf32, #res>) -> tensor<4x8xf32, #res>
  %m0 = linalg.matmul ins(%a, %sc : tensor<4x16xf32, #lhs>, tensor<16x8xf32, #rhs>) outs(%f : tensor<4x8xf32, #res>) -> tensor<4x8xf32, #res>
  %ew = flow.tensor.empty : tensor<4x1024xf32, #res>
  %fw = linalg.fill ins(%cst : f32) outs(%ew : tensor<4x1024xf32, #res>) -> tensor<4x1024xf32, #res>
  %m1 = linalg.matmul ins(%a, %sw : tensor<4x16xf32, #lhs>, tensor<16x1024xf32, #rhs>) outs(%fw : tensor<4x1024xf32, #res>) -> tensor<4x1024xf32, #res>
  %m2 = linalg.matmul ins(%a, %sb : tensor<4x16xf32, #lhs>, tensor<16x8xf32, #rhs>) outs(%f : tensor<4x8xf32, #res>) -> tensor<4x8xf32, #res>
  %m3 = linalg.matmul ins(%a, %sb : tensor<4x16xf32, #lhs>, tensor<16x8xf32, #rhs>) outs(%f : tensor<4x8xf32, #res>) -> tensor<4x8xf32, #res>
  %u = iree_encoding.unset_encoding %m3 : tensor<4x8xf32, #res> -> tensor<4x8xf32>
  %e2 = flow.tensor.empty : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%u, %bias : tensor<4x8xf32>, tensor<8xf32>) outs(%e2 : tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  util.return %m0, %m1, %m2, %r : tensor<4x8xf32, #res>, tensor<4x1024xf32, #res>, tensor<4x8xf32, #res>, tensor<4x8xf32>
}

// -----

// Tests that on an llvm-cpu device a batch_matmul's LHS and RHS set_encodings of arguments and its result's unset_encoding join the batch_matmul's region (the LHS packed panel by panel in the kernel: N = 8 fits one workgroup's columns).
// CHECK-LABEL: util.func public @batch_in_place
// CHECK: %[[R:.+]] = flow.dispatch.region[%{{.+}}, %{{.+}}, %{{.+}}] -> (tensor<3x4x8xf32>) {
// CHECK: %[[L:.+]] = iree_encoding.set_encoding %a
// CHECK-NEXT: %[[S:.+]] = iree_encoding.set_encoding %b
// CHECK: %[[M:.+]] = linalg.batch_matmul ins(%[[L]], %[[S]] :
// CHECK-NEXT: %[[U:.+]] = iree_encoding.unset_encoding %[[M]]
// CHECK-NEXT: flow.return %[[U]] : tensor<3x4x8xf32>
// CHECK-NOT: flow.dispatch.region
// CHECK: util.return %[[R]]
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#lhs = #iree_encoding.encoding<operand_index = 0 : index, op_type = matmul, element_types = [f32, f32, f32], user_indexing_maps = [#map, #map1, #map2]>
#rhs = #iree_encoding.encoding<operand_index = 1 : index, op_type = matmul, element_types = [f32, f32, f32], user_indexing_maps = [#map, #map1, #map2]>
#res = #iree_encoding.encoding<operand_index = 2 : index, op_type = matmul, element_types = [f32, f32, f32], user_indexing_maps = [#map, #map1, #map2]>
util.global private @__device_0 = #hal.device.target<"local", [#hal.executable.target<"llvm-cpu", "llvm-cpu-object-x86_64", {}>]> : !hal.device
util.func public @batch_in_place(%a: tensor<3x4x17xf32>, %b: tensor<3x17x8xf32>) -> tensor<3x4x8xf32> {
  %cst = arith.constant 0.0 : f32
  %sa = iree_encoding.set_encoding %a : tensor<3x4x17xf32> -> tensor<3x4x17xf32, #lhs>
  %sb = iree_encoding.set_encoding %b : tensor<3x17x8xf32> -> tensor<3x17x8xf32, #rhs>
  %e = flow.tensor.empty : tensor<3x4x8xf32, #res>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<3x4x8xf32, #res>) -> tensor<3x4x8xf32, #res>
  %m = linalg.batch_matmul ins(%sa, %sb : tensor<3x4x17xf32, #lhs>, tensor<3x17x8xf32, #rhs>) outs(%f : tensor<3x4x8xf32, #res>) -> tensor<3x4x8xf32, #res>
  %u = iree_encoding.unset_encoding %m : tensor<3x4x8xf32, #res> -> tensor<3x4x8xf32>
  util.return %u : tensor<3x4x8xf32>
}

// -----

// Tests that the unset_encoding of a batch_matmul's scores read by both a row max and an elementwise exp (attention's softmax) joins the batch_matmul's region (written in place): only an elementwise op that is its one consumer keeps it apart.
// CHECK-LABEL: util.func public @batch_scores_in_place
// CHECK: %[[R:.+]] = flow.dispatch.region[%{{.+}}, %{{.+}}, %{{.+}}] -> (tensor<3x4x8xf32>) {
// CHECK: %[[M:.+]] = linalg.batch_matmul
// CHECK-NEXT: %[[U:.+]] = iree_encoding.unset_encoding %[[M]]
// CHECK-NEXT: flow.return %[[U]] : tensor<3x4x8xf32>
// CHECK: flow.dispatch.region
// CHECK: ins(%[[R]] : tensor<3x4x8xf32>)
// CHECK: flow.dispatch.region
// CHECK: ins(%[[R]], %{{.+}} : tensor<3x4x8xf32>, tensor<3x4xf32>)
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#lhs = #iree_encoding.encoding<operand_index = 0 : index, op_type = matmul, element_types = [f32, f32, f32], user_indexing_maps = [#map, #map1, #map2]>
#rhs = #iree_encoding.encoding<operand_index = 1 : index, op_type = matmul, element_types = [f32, f32, f32], user_indexing_maps = [#map, #map1, #map2]>
#res = #iree_encoding.encoding<operand_index = 2 : index, op_type = matmul, element_types = [f32, f32, f32], user_indexing_maps = [#map, #map1, #map2]>
util.global private @__device_0 = #hal.device.target<"local", [#hal.executable.target<"llvm-cpu", "llvm-cpu-object-x86_64", {}>]> : !hal.device
util.func public @batch_scores_in_place(%a: tensor<3x4x16xf32>, %b: tensor<3x16x8xf32>) -> tensor<3x4x8xf32> {
  %cst = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %sa = iree_encoding.set_encoding %a : tensor<3x4x16xf32> -> tensor<3x4x16xf32, #lhs>
  %sb = iree_encoding.set_encoding %b : tensor<3x16x8xf32> -> tensor<3x16x8xf32, #rhs>
  %e = flow.tensor.empty : tensor<3x4x8xf32, #res>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<3x4x8xf32, #res>) -> tensor<3x4x8xf32, #res>
  %m = linalg.batch_matmul ins(%sa, %sb : tensor<3x4x16xf32, #lhs>, tensor<3x16x8xf32, #rhs>) outs(%f : tensor<3x4x8xf32, #res>) -> tensor<3x4x8xf32, #res>
  %u = iree_encoding.unset_encoding %m : tensor<3x4x8xf32, #res> -> tensor<3x4x8xf32>
  %e1 = tensor.empty() : tensor<3x4xf32>
  %f1 = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<3x4xf32>) -> tensor<3x4xf32>
  %mx = linalg.generic {indexing_maps = [affine_map<(b, m, n) -> (b, m, n)>, affine_map<(b, m, n) -> (b, m)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%u : tensor<3x4x8xf32>) outs(%f1 : tensor<3x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.maximumf %o, %x : f32
    linalg.yield %r : f32
  } -> tensor<3x4xf32>
  %e2 = tensor.empty() : tensor<3x4x8xf32>
  %ex = linalg.generic {indexing_maps = [affine_map<(b, m, n) -> (b, m, n)>, affine_map<(b, m, n) -> (b, m)>, affine_map<(b, m, n) -> (b, m, n)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%u, %mx : tensor<3x4x8xf32>, tensor<3x4xf32>) outs(%e2 : tensor<3x4x8xf32>) {
  ^bb0(%x: f32, %c: f32, %o: f32):
    %d = arith.subf %x, %c : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<3x4x8xf32>
  util.return %ex : tensor<3x4x8xf32>
}

// -----

// Tests that a batch_matmul's RHS keeps its pack region when its rows are a multiple of 4 KiB apart (N = 1024), and its LHS too (N wider than one workgroup's columns: each would pack the panels again), while its unset still joins the batch_matmul's region.
// CHECK-LABEL: util.func public @batch_kept_packs
// CHECK: flow.dispatch.region
// CHECK-NEXT: iree_encoding.set_encoding %a
// CHECK: flow.dispatch.region
// CHECK-NEXT: iree_encoding.set_encoding %b
// CHECK: flow.dispatch.region
// CHECK: linalg.batch_matmul
// CHECK-NEXT: iree_encoding.unset_encoding
// CHECK-NEXT: flow.return
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#lhs = #iree_encoding.encoding<operand_index = 0 : index, op_type = matmul, element_types = [f32, f32, f32], user_indexing_maps = [#map, #map1, #map2]>
#rhs = #iree_encoding.encoding<operand_index = 1 : index, op_type = matmul, element_types = [f32, f32, f32], user_indexing_maps = [#map, #map1, #map2]>
#res = #iree_encoding.encoding<operand_index = 2 : index, op_type = matmul, element_types = [f32, f32, f32], user_indexing_maps = [#map, #map1, #map2]>
util.global private @__device_0 = #hal.device.target<"local", [#hal.executable.target<"llvm-cpu", "llvm-cpu-object-x86_64", {}>]> : !hal.device
util.func public @batch_kept_packs(%a: tensor<2x4x16xf32>, %b: tensor<2x16x1024xf32>) -> tensor<2x4x1024xf32> {
  %cst = arith.constant 0.0 : f32
  %sa = iree_encoding.set_encoding %a : tensor<2x4x16xf32> -> tensor<2x4x16xf32, #lhs>
  %sb = iree_encoding.set_encoding %b : tensor<2x16x1024xf32> -> tensor<2x16x1024xf32, #rhs>
  %e = flow.tensor.empty : tensor<2x4x1024xf32, #res>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<2x4x1024xf32, #res>) -> tensor<2x4x1024xf32, #res>
  %m = linalg.batch_matmul ins(%sa, %sb : tensor<2x4x16xf32, #lhs>, tensor<2x16x1024xf32, #rhs>) outs(%f : tensor<2x4x1024xf32, #res>) -> tensor<2x4x1024xf32, #res>
  %u = iree_encoding.unset_encoding %m : tensor<2x4x1024xf32, #res> -> tensor<2x4x1024xf32>
  util.return %u : tensor<2x4x1024xf32>
}

// -----

// Tests that on a vmvx device a batch_matmul's set_encoding and unset_encoding keep their own regions.
// CHECK-LABEL: util.func public @batch_vmvx_keeps_packs
// CHECK-COUNT-4: flow.dispatch.region
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#lhs = #iree_encoding.encoding<operand_index = 0 : index, op_type = matmul, element_types = [f32, f32, f32], user_indexing_maps = [#map, #map1, #map2]>
#rhs = #iree_encoding.encoding<operand_index = 1 : index, op_type = matmul, element_types = [f32, f32, f32], user_indexing_maps = [#map, #map1, #map2]>
#res = #iree_encoding.encoding<operand_index = 2 : index, op_type = matmul, element_types = [f32, f32, f32], user_indexing_maps = [#map, #map1, #map2]>
util.global private @__device_0 = #hal.device.target<"local", [#hal.executable.target<"vmvx", "vmvx-bytecode-fb", {}>]> : !hal.device
util.func public @batch_vmvx_keeps_packs(%a: tensor<3x4x17xf32>, %b: tensor<3x17x8xf32>) -> tensor<3x4x8xf32> {
  %cst = arith.constant 0.0 : f32
  %sa = iree_encoding.set_encoding %a : tensor<3x4x17xf32> -> tensor<3x4x17xf32, #lhs>
  %sb = iree_encoding.set_encoding %b : tensor<3x17x8xf32> -> tensor<3x17x8xf32, #rhs>
  %e = flow.tensor.empty : tensor<3x4x8xf32, #res>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<3x4x8xf32, #res>) -> tensor<3x4x8xf32, #res>
  %m = linalg.batch_matmul ins(%sa, %sb : tensor<3x4x17xf32, #lhs>, tensor<3x17x8xf32, #rhs>) outs(%f : tensor<3x4x8xf32, #res>) -> tensor<3x4x8xf32, #res>
  %u = iree_encoding.unset_encoding %m : tensor<3x4x8xf32, #res> -> tensor<3x4x8xf32>
  util.return %u : tensor<3x4x8xf32>
}
