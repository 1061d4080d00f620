// RUN: python -m rt opt --split-input-file --pass=iree-stream-specialize-encodings --pass=iree-stream-encode-host-tensors %s | filecheck %s

// Tests that sizeof of resolved encodings pads each tiled dim to its tile: ceildiv(d0, 8) * 8 * 4 * d1 for a vmvx LHS (8x1 tiles), ceildiv(d0, 16) * 16 * 4 * d1 for an AVX-512 one (16x1).
// CHECK-LABEL: util.func public @tensor_sizeof
// CHECK: %[[C8:.+]] = arith.constant 8 : index
// CHECK: %[[A0:.+]] = arith.ceildivsi %d0, %[[C8]] : index
// CHECK: %[[A1:.+]] = arith.muli %[[A0]], %{{.+}} : index
// CHECK: %[[A2:.+]] = arith.muli %{{.+}}, %[[A1]] : index
// CHECK: %size0 = arith.muli %[[A2]], %d1 : index
// CHECK: %[[C16:.+]] = arith.constant 16 : index
// CHECK: %[[B0:.+]] = arith.ceildivsi %d0, %[[C16]] : index
// CHECK: %[[B1:.+]] = arith.muli %[[B0]], %{{.+}} : index
// CHECK: %[[C4:.+]] = arith.constant 4 : index
// CHECK: %[[B2:.+]] = arith.muli %[[C4]], %[[B1]] : index
// CHECK: %size1 = arith.muli %[[B2]], %d1 : index
// CHECK: util.return %size0, %size1
#map0 = affine_map<(m, n, k) -> (m, k)>
#map1 = affine_map<(m, n, k) -> (k, n)>
#map2 = affine_map<(m, n, k) -> (m, n)>
#device_a = #hal.device.target<"local", [#hal.executable.target<"vmvx", "vmvx-bytecode-fb", {iree.encoding.resolver = #iree_cpu.vmvx_encoding_layout<>}>]> : !hal.device
#device_b = #hal.device.target<"local", [#hal.executable.target<"llvm-cpu", "xyz", {iree.encoding.resolver = #iree_cpu.cpu_encoding_layout<>, target_triple = "x86_64-xyz-xyz", cpu_features = "+avx512f"}>]> : !hal.device
#encoding = #iree_encoding.encoding<operand_index = 0 : index, op_type = matmul, element_types = [f32, f32, f32], user_indexing_maps = [#map0, #map1, #map2]>
module {
  util.global private @device_a = #device_a
  util.global private @device_b = #device_b
  util.func public @tensor_sizeof(%d0: index, %d1: index) -> (index, index) {
    %size0 = stream.tensor.sizeof on(#hal.device.affinity<@device_a>) tensor<?x?xf32, #encoding>{%d0, %d1} : index
    %size1 = stream.tensor.sizeof on(#hal.device.affinity<@device_b>) tensor<?x?xf32, #encoding>{%d0, %d1} : index
    util.return %size0, %size1 : index, index
  }
}

// -----

// Tests that static encoded sizes fold to constants: a 37x53 RESULT with 16x16 tiles takes 48 * 64 * 4 bytes.
// CHECK-LABEL: util.func public @static_size
// CHECK: %[[C:.+]] = arith.constant 12288 : index
// CHECK: util.return %[[C]]
#map0 = affine_map<(m, n, k) -> (m, k)>
#map1 = affine_map<(m, n, k) -> (k, n)>
#map2 = affine_map<(m, n, k) -> (m, n)>
#dev = #hal.device.target<"local", [#hal.executable.target<"llvm-cpu", "xyz", {target_triple = "x86_64-xyz-xyz", cpu_features = "+avx512f"}>]> : !hal.device
#res = #iree_encoding.encoding<operand_index = 2 : index, op_type = matmul, element_types = [f32, f32, f32], user_indexing_maps = [#map0, #map1, #map2]>
module {
  util.global private @dev = #dev
  util.func public @static_size() -> index {
    %s = stream.tensor.sizeof on(#hal.device.affinity<@dev>) tensor<37x53xf32, #res> : index
    util.return %s : index
  }
}
