// RUN: python -m rt opt --split-input-file --pass=iree-stream-specialize-encodings %s | filecheck %s

// Tests that the seed's tensor_sizeof example resolves one encoding to a vmvx layout and an AVX-512 llvm-cpu layout
// (the seed's input and CHECK lines, with the encodings matched inline: rt's printer emits no attribute aliases).
// CHECK-LABEL: util.func public @tensor_sizeof
// CHECK:         %[[D0_RES:.+]] = stream.tensor.sizeof {{.+}} tensor<?x?xf32, #iree_encoding.encoding
// CHECK-SAME:    #iree_cpu.vmvx_encoding_layout
// CHECK-SAME:    encoding_info = {innerDimsPos = [{{.+}}], innerTileSizes = [{{.+}}], outerDimsPerm = [{{.+}}]}
// CHECK:         %[[D1_RES:.+]] = stream.tensor.sizeof {{.+}} tensor<?x?xf32, #iree_encoding.encoding
// CHECK-SAME:    #iree_cpu.cpu_encoding_layout<configuration = {encoding_info = {innerDimsPos = [0, 1], innerTileSizes = [16, 1], outerDimsPerm = [0, 1]}}>
// CHECK:         return %[[D0_RES]], %[[D1_RES]]
#map0 = affine_map<(m, n, k) -> (m, k)>
#map1 = affine_map<(m, n, k) -> (k, n)>
#map2 = affine_map<(m, n, k) -> (m, n)>
#executable_target_vmvx_bytecode_fb = #hal.executable.target<"vmvx", "vmvx-bytecode-fb", {iree.encoding.resolver= #iree_cpu.vmvx_encoding_layout<>}>
#executable_target_x86_64 = #hal.executable.target<"llvm-cpu", "xyz", {iree.encoding.resolver= #iree_cpu.cpu_encoding_layout<>, target_triple="x86_64-xyz-xyz", cpu_features="+avx512f"}>
#device_target_local_0_ = #hal.device.target<"local", {ordinal = 0 : index}, [#executable_target_vmvx_bytecode_fb]> : !hal.device
#device_target_local_1_ = #hal.device.target<"local", {ordinal = 1 : index}, [#executable_target_x86_64]> : !hal.device
#encoding = #iree_encoding.encoding<
  operand_index = 0 : index,
  op_type =  matmul,
  element_types = [f32, f32, f32],
  user_indexing_maps = [#map0, #map1, #map2]
>
module {
  util.global private @device_a = #device_target_local_0_
  util.global private @device_b = #device_target_local_1_

  util.func public @tensor_sizeof(%d0: index, %d1: index) -> (index, index) {
    %size0 = stream.tensor.sizeof on(#hal.device.affinity<@device_a>) tensor<?x?xf32, #encoding>{%d0, %d1} : index
    %size1 = stream.tensor.sizeof on(#hal.device.affinity<@device_b>) tensor<?x?xf32, #encoding>{%d0, %d1} : index
    util.return %size0, %size1 : index, index
  }
}

// -----

// Tests that RHS and RESULT encodings get IREE's RHS/RESULT layouts on AVX-512 (16x16x1) and that an executable dispatched from two devices is duplicated with the binding layouts of each (vmvx: 8x8x1).
// CHECK: stream.executable private @ex {
// CHECK: stream.binding.subspan {{.+}} !flow.dispatch.tensor<writeonly:tensor<?x?xf32, #iree_encoding.encoding<operand_index = 1 : index{{.+}}#iree_cpu.cpu_encoding_layout<configuration = {encoding_info = {innerDimsPos = [1, 0], innerTileSizes = [16, 1], outerDimsPerm = [1, 0]}}>
// CHECK: iree_encoding.set_encoding {{.+}} user_indexing_maps
// CHECK: stream.executable private @ex_1 {
// CHECK: stream.binding.subspan {{.+}}#iree_cpu.vmvx_encoding_layout<configuration = {encoding_info = {innerDimsPos = [1, 0], innerTileSizes = [8, 1], outerDimsPerm = [1, 0]}}>
// CHECK-LABEL: util.func public @two_devices
// CHECK: stream.tensor.sizeof on(#hal.device.affinity<@cpu>) tensor<?x?xf32, #iree_encoding.encoding<operand_index = 2 : index{{.+}}innerDimsPos = [0, 1], innerTileSizes = [16, 16], outerDimsPerm = [0, 1]
// CHECK: stream.tensor.dispatch on(#hal.device.affinity<@cpu>) @ex::@fn
// CHECK: stream.tensor.dispatch on(#hal.device.affinity<@vm>) @ex_1::@fn
#map0 = affine_map<(m, n, k) -> (m, k)>
#map1 = affine_map<(m, n, k) -> (k, n)>
#map2 = affine_map<(m, n, k) -> (m, n)>
#cpu = #hal.device.target<"local", [#hal.executable.target<"llvm-cpu", "llvm-cpu-object-x86_64", {target_triple = "x86_64-unknown-linux", cpu_features = "+avx,+avx2,+fma,+avx512f"}>]> : !hal.device
#vm = #hal.device.target<"local", [#hal.executable.target<"vmvx", "vmvx-bytecode">]> : !hal.device
#rhs = #iree_encoding.encoding<operand_index = 1 : index, op_type = matmul, element_types = [f32, f32, f32], user_indexing_maps = [#map0, #map1, #map2]>
#res = #iree_encoding.encoding<operand_index = 2 : index, op_type = matmul, element_types = [f32, f32, f32], user_indexing_maps = [#map0, #map1, #map2]>
module {
  util.global private @cpu = #cpu
  util.global private @vm = #vm
  stream.executable private @ex {
    stream.executable.export public @fn workgroups(%arg0: index, %arg1: index) -> (index, index, index) {
      %x, %y, %z = flow.dispatch.workgroup_count_from_slice %arg0, %arg1
      stream.return %x, %y, %z : index, index, index
    }
    builtin.module {
      func.func @fn(%arg0: !stream.binding, %arg1: index, %arg2: index, %arg3: !stream.binding) {
        %c0 = arith.constant 0 : index
        %0 = stream.binding.subspan %arg0[%c0] : !stream.binding -> !flow.dispatch.tensor<readonly:tensor<?x?xf32>>{%arg1, %arg2}
        %1 = stream.binding.subspan %arg3[%c0] : !stream.binding -> !flow.dispatch.tensor<writeonly:tensor<?x?xf32, #rhs>>{%arg1, %arg2}
        %2 = flow.dispatch.tensor.load %0, offsets = [0, 0], sizes = [%arg1, %arg2], strides = [1, 1] : !flow.dispatch.tensor<readonly:tensor<?x?xf32>>{%arg1, %arg2} -> tensor<?x?xf32>
        %3 = iree_encoding.set_encoding %2 : tensor<?x?xf32> -> tensor<?x?xf32, #rhs>
        flow.dispatch.tensor.store %3, %1, offsets = [0, 0], sizes = [%arg1, %arg2], strides = [1, 1] : tensor<?x?xf32, #rhs> -> !flow.dispatch.tensor<writeonly:tensor<?x?xf32, #rhs>>{%arg1, %arg2}
        return
      }
    }
  }
  util.func public @two_devices(%r: !stream.resource<*>, %s: index, %d0: index, %d1: index) -> index {
    %size = stream.tensor.sizeof on(#hal.device.affinity<@cpu>) tensor<?x?xf32, #res>{%d0, %d1} : index
    %a = stream.tensor.sizeof on(#hal.device.affinity<@cpu>) tensor<?x?xf32, #rhs>{%d0, %d1} : index
    %0 = stream.tensor.dispatch on(#hal.device.affinity<@cpu>) @ex::@fn[%d0, %d1](%r, %d0, %d1) : (tensor<?x?xf32>{%d0, %d1} in !stream.resource<*>{%s}, index, index) -> tensor<?x?xf32, #rhs>{%d0, %d1} in !stream.resource<*>{%a}
    %b = stream.tensor.sizeof on(#hal.device.affinity<@vm>) tensor<?x?xf32, #rhs>{%d0, %d1} : index
    %1 = stream.tensor.dispatch on(#hal.device.affinity<@vm>) @ex::@fn[%d0, %d1](%r, %d0, %d1) : (tensor<?x?xf32>{%d0, %d1} in !stream.resource<*>{%s}, index, index) -> tensor<?x?xf32, #rhs>{%d0, %d1} in !stream.resource<*>{%b}
    util.return %size : index
  }
}

// -----

// Tests that a conv filter encoding resolves to a packing of the output channels alone: the widest vector multiple dividing F = 48 on AVX-512 (16), 8 rows on vmvx, F outermost.
// CHECK-LABEL: util.func public @conv_filter
// CHECK:         stream.tensor.sizeof {{.+}} tensor<3x3x8x48xf32, #iree_encoding.encoding<operand_index = 1 : index, op_type = conv
// CHECK-SAME:    #iree_cpu.vmvx_encoding_layout<configuration = {encoding_info = {innerDimsPos = [3], innerTileSizes = [8], outerDimsPerm = [3, 0, 1, 2]}}>
// CHECK:         stream.tensor.sizeof {{.+}} tensor<3x3x8x48xf32, #iree_encoding.encoding<operand_index = 1 : index, op_type = conv
// CHECK-SAME:    #iree_cpu.cpu_encoding_layout<configuration = {encoding_info = {innerDimsPos = [3], innerTileSizes = [16], outerDimsPerm = [3, 0, 1, 2]}}>
#in = affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh + kh, ow + kw, c)>
#flt = affine_map<(n, oh, ow, f, kh, kw, c) -> (kh, kw, c, f)>
#out = affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh, ow, f)>
#executable_target_vmvx_bytecode_fb = #hal.executable.target<"vmvx", "vmvx-bytecode-fb", {iree.encoding.resolver= #iree_cpu.vmvx_encoding_layout<>}>
#executable_target_x86_64 = #hal.executable.target<"llvm-cpu", "xyz", {iree.encoding.resolver= #iree_cpu.cpu_encoding_layout<>, target_triple="x86_64-xyz-xyz", cpu_features="+avx512f"}>
#device_target_local_0_ = #hal.device.target<"local", {ordinal = 0 : index}, [#executable_target_vmvx_bytecode_fb]> : !hal.device
#device_target_local_1_ = #hal.device.target<"local", {ordinal = 1 : index}, [#executable_target_x86_64]> : !hal.device
#encoding = #iree_encoding.encoding<operand_index = 1 : index, op_type = conv, element_types = [f32, f32, f32],
  user_indexing_maps = [#in, #flt, #out], iteration_sizes = [1, 8, 8, 48, 3, 3, 8]>
module {
  util.global private @device_a = #device_target_local_0_
  util.global private @device_b = #device_target_local_1_

  util.func public @conv_filter() -> (index, index) {
    %size0 = stream.tensor.sizeof on(#hal.device.affinity<@device_a>) tensor<3x3x8x48xf32, #encoding> : index
    %size1 = stream.tensor.sizeof on(#hal.device.affinity<@device_b>) tensor<3x3x8x48xf32, #encoding> : index
    util.return %size0, %size1 : index, index
  }
}
