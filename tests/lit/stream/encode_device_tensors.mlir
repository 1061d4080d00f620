// RUN: python -m rt opt --split-input-file --pass=iree-stream-encode-device-tensors %s | filecheck %s

// Tests that i5 bindings become i8 (the seeds' example, on an odd width): loads narrow with trunci, the stored
// value is widened with extui, and the linalg body keeps computing in i5.
// CHECK-LABEL: func.func @add_i5
// CHECK: %[[B0:.+]] = stream.binding.subspan %arg0[%{{.+}}] : !stream.binding -> !flow.dispatch.tensor<readonly:tensor<10xi8>>
// CHECK: %[[B2:.+]] = stream.binding.subspan %arg2[%{{.+}}] : !stream.binding -> !flow.dispatch.tensor<readwrite:tensor<10xi8>>
// CHECK: %[[L0:.+]] = flow.dispatch.tensor.load %[[B0]], offsets = [0], sizes = [10], strides = [1] : !flow.dispatch.tensor<readonly:tensor<10xi8>> -> tensor<10xi8>
// CHECK: %[[T0:.+]] = linalg.generic {{.+}} ins(%[[L0]] : tensor<10xi8>) outs(%{{.+}} : tensor<10xi5>)
// CHECK: arith.trunci %{{.+}} : i8 to i5
// CHECK: %[[L2:.+]] = flow.dispatch.tensor.load %[[B2]]{{.+}} -> tensor<10xi8>
// CHECK: %[[T2:.+]] = linalg.generic {{.+}} ins(%[[L2]] : tensor<10xi8>) outs(%{{.+}} : tensor<10xi5>)
// CHECK: %[[R:.+]] = linalg.generic {{.+}} ins(%[[T0]], %{{.+}} : tensor<10xi5>, tensor<10xi5>) outs(%[[T2]] : tensor<10xi5>)
// CHECK: arith.addi %{{.+}}, %{{.+}} : i5
// CHECK: %[[W:.+]] = linalg.generic {{.+}} ins(%[[R]] : tensor<10xi5>) outs(%{{.+}} : tensor<10xi8>)
// CHECK: arith.extui %{{.+}} : i5 to i8
// CHECK: flow.dispatch.tensor.store %[[W]], %[[B2]], offsets = [0], sizes = [10], strides = [1] : tensor<10xi8> -> !flow.dispatch.tensor<readwrite:tensor<10xi8>>
stream.executable private @ex {
  stream.executable.export public @add_i5 workgroups(%arg0: index) -> (index, index, index) {
    %x, %y, %z = flow.dispatch.workgroup_count_from_slice %arg0
    stream.return %x, %y, %z : index, index, index
  }
  builtin.module {
    func.func @add_i5(%arg0: !stream.binding, %arg1: !stream.binding, %arg2: !stream.binding) {
      %c0 = arith.constant 0 : index
      %0 = stream.binding.subspan %arg0[%c0] : !stream.binding -> !flow.dispatch.tensor<readonly:tensor<10xi5>>
      %1 = stream.binding.subspan %arg1[%c0] : !stream.binding -> !flow.dispatch.tensor<readonly:tensor<10xi5>>
      %2 = stream.binding.subspan %arg2[%c0] : !stream.binding -> !flow.dispatch.tensor<readwrite:tensor<10xi5>>
      %3 = flow.dispatch.tensor.load %0, offsets = [0], sizes = [10], strides = [1] : !flow.dispatch.tensor<readonly:tensor<10xi5>> -> tensor<10xi5>
      %4 = flow.dispatch.tensor.load %1, offsets = [0], sizes = [10], strides = [1] : !flow.dispatch.tensor<readonly:tensor<10xi5>> -> tensor<10xi5>
      %5 = flow.dispatch.tensor.load %2, offsets = [0], sizes = [10], strides = [1] : !flow.dispatch.tensor<readwrite:tensor<10xi5>> -> tensor<10xi5>
      %6 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%3, %4 : tensor<10xi5>, tensor<10xi5>) outs(%5 : tensor<10xi5>) {
      ^bb0(%in: i5, %in_0: i5, %out: i5):
        %7 = arith.addi %in, %in_0 : i5
        linalg.yield %7 : i5
      } -> tensor<10xi5>
      flow.dispatch.tensor.store %6, %2, offsets = [0], sizes = [10], strides = [1] : tensor<10xi5> -> !flow.dispatch.tensor<readwrite:tensor<10xi5>>
      return
    }
  }
}

// -----

// Tests that i1, i8 and f32 bindings are left as they are (rt's Kernel IR stores i1 in a byte)
// and that an i11 output binding becomes i16 with the stored value widened.
// CHECK-LABEL: func.func @keep
// CHECK: stream.binding.subspan %arg0[%{{.+}}] : !stream.binding -> !flow.dispatch.tensor<readonly:tensor<4xi1>>
// CHECK: stream.binding.subspan %arg1[%{{.+}}] : !stream.binding -> !flow.dispatch.tensor<readonly:tensor<4xi8>>
// CHECK: stream.binding.subspan %arg2[%{{.+}}] : !stream.binding -> !flow.dispatch.tensor<writeonly:tensor<4xf32>>
// CHECK: %[[O:.+]] = stream.binding.subspan %arg3[%{{.+}}] : !stream.binding -> !flow.dispatch.tensor<writeonly:tensor<4xi16>>
// CHECK: flow.dispatch.tensor.load %{{.+}} : !flow.dispatch.tensor<readonly:tensor<4xi1>> -> tensor<4xi1>
// CHECK-NOT: arith.trunci
// CHECK: %[[W:.+]] = linalg.generic {{.+}} ins(%{{.+}} : tensor<4xi11>) outs(%{{.+}} : tensor<4xi16>)
// CHECK: arith.extui %{{.+}} : i11 to i16
// CHECK: flow.dispatch.tensor.store %[[W]], %[[O]]{{.+}} : tensor<4xi16> -> !flow.dispatch.tensor<writeonly:tensor<4xi16>>
stream.executable private @ex2 {
  stream.executable.export public @keep workgroups(%arg0: index) -> (index, index, index) {
    %x, %y, %z = flow.dispatch.workgroup_count_from_slice %arg0
    stream.return %x, %y, %z : index, index, index
  }
  builtin.module {
    func.func @keep(%arg0: !stream.binding, %arg1: !stream.binding, %arg2: !stream.binding, %arg3: !stream.binding) {
      %c0 = arith.constant 0 : index
      %0 = stream.binding.subspan %arg0[%c0] : !stream.binding -> !flow.dispatch.tensor<readonly:tensor<4xi1>>
      %1 = stream.binding.subspan %arg1[%c0] : !stream.binding -> !flow.dispatch.tensor<readonly:tensor<4xi8>>
      %2 = stream.binding.subspan %arg2[%c0] : !stream.binding -> !flow.dispatch.tensor<writeonly:tensor<4xf32>>
      %3 = stream.binding.subspan %arg3[%c0] : !stream.binding -> !flow.dispatch.tensor<writeonly:tensor<4xi11>>
      %4 = flow.dispatch.tensor.load %0, offsets = [0], sizes = [4], strides = [1] : !flow.dispatch.tensor<readonly:tensor<4xi1>> -> tensor<4xi1>
      %5 = flow.dispatch.tensor.load %1, offsets = [0], sizes = [4], strides = [1] : !flow.dispatch.tensor<readonly:tensor<4xi8>> -> tensor<4xi8>
      %6 = tensor.empty() : tensor<4xi11>
      %7 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%4, %5 : tensor<4xi1>, tensor<4xi8>) outs(%6 : tensor<4xi11>) {
      ^bb0(%in: i1, %in_0: i8, %out: i11):
        %8 = arith.extsi %in_0 : i8 to i11
        %9 = arith.extui %in : i1 to i11
        %10 = arith.addi %8, %9 : i11
        linalg.yield %10 : i11
      } -> tensor<4xi11>
      flow.dispatch.tensor.store %7, %3, offsets = [0], sizes = [4], strides = [1] : tensor<4xi11> -> !flow.dispatch.tensor<writeonly:tensor<4xi11>>
      return
    }
  }
}

// -----

// Tests that i4 and i2 bindings stay packed, as IREE's legalizeStorageElementType keeps them:
// no retyping and no conversion generics.
// CHECK-LABEL: func.func @packed
// CHECK: stream.binding.subspan %arg0[%{{.+}}] : !stream.binding -> !flow.dispatch.tensor<readonly:tensor<8xi4>>
// CHECK: stream.binding.subspan %arg1[%{{.+}}] : !stream.binding -> !flow.dispatch.tensor<writeonly:tensor<8xi2>>
// CHECK-NOT: xi8>
stream.executable private @ex3 {
  stream.executable.export public @packed workgroups(%arg0: index) -> (index, index, index) {
    %x, %y, %z = flow.dispatch.workgroup_count_from_slice %arg0
    stream.return %x, %y, %z : index, index, index
  }
  builtin.module {
    func.func @packed(%arg0: !stream.binding, %arg1: !stream.binding) {
      %c0 = arith.constant 0 : index
      %0 = stream.binding.subspan %arg0[%c0] : !stream.binding -> !flow.dispatch.tensor<readonly:tensor<8xi4>>
      %1 = stream.binding.subspan %arg1[%c0] : !stream.binding -> !flow.dispatch.tensor<writeonly:tensor<8xi2>>
      %2 = flow.dispatch.tensor.load %0, offsets = [0], sizes = [8], strides = [1] : !flow.dispatch.tensor<readonly:tensor<8xi4>> -> tensor<8xi4>
      %e = tensor.empty() : tensor<8xi2>
      %3 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%2 : tensor<8xi4>) outs(%e : tensor<8xi2>) {
      ^bb0(%in: i4, %out: i2):
        %t = arith.trunci %in : i4 to i2
        linalg.yield %t : i2
      } -> tensor<8xi2>
      flow.dispatch.tensor.store %3, %1, offsets = [0], sizes = [8], strides = [1] : tensor<8xi2> -> !flow.dispatch.tensor<writeonly:tensor<8xi2>>
      return
    }
  }
}
