// RUN: python -m rt opt --split-input-file --pass=iree-flow-outline-dispatch-regions %s | filecheck %s

// Tests that a workgroups op becomes a flow.executable with an IREE-named export and a flow.dispatch.
// CHECK-LABEL: flow.executable private @foo_dispatch_0 {
// CHECK-NEXT: flow.executable.export public @foo_dispatch_0_matmul_DxDxD_f32 workgroups(%{{.+}}: index, %{{.+}}: index) -> (index, index, index) {
// CHECK-NEXT: flow.dispatch.workgroup_count_from_slice
// CHECK: builtin.module {
// CHECK-NEXT: func.func @foo_dispatch_0_matmul_DxDxD_f32(%{{.+}}: !flow.dispatch.tensor<readonly:tensor<?x?xf32>>, %{{.+}}: !flow.dispatch.tensor<readonly:tensor<?x?xf32>>, %{{.+}}: index, %{{.+}}: index, %{{.+}}: index, %{{.+}}: !flow.dispatch.tensor<writeonly:tensor<?x?xf32>>) {
// CHECK: linalg.matmul
// CHECK: func.return
// CHECK-LABEL: util.func public @foo
// CHECK: %[[R:.+]] = flow.dispatch @foo_dispatch_0::@foo_dispatch_0_matmul_DxDxD_f32[%m, %n](%a, %b, %m, %n, %k) : (tensor<?x?xf32>{%m, %k}, tensor<?x?xf32>{%k, %n}, index, index, index) -> tensor<?x?xf32>{%m, %n}
// CHECK: util.return %[[R]]
util.func public @foo(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %m: index, %n: index, %k: index) -> tensor<?x?xf32> {
  %r = flow.dispatch.workgroups[%m, %n](%a, %b, %m, %n, %k) : (tensor<?x?xf32>{%m, %k}, tensor<?x?xf32>{%k, %n}, index, index, index) -> tensor<?x?xf32>{%m, %n} =
      (%arg0: !flow.dispatch.tensor<readonly:tensor<?x?xf32>>, %arg1: !flow.dispatch.tensor<readonly:tensor<?x?xf32>>, %arg2: index, %arg3: index, %arg4: index, %arg5: !flow.dispatch.tensor<writeonly:tensor<?x?xf32>>) {
    %cst = arith.constant 0.0 : f32
    %0 = flow.dispatch.tensor.load %arg0, offsets = [0, 0], sizes = [%arg2, %arg4], strides = [1, 1] : !flow.dispatch.tensor<readonly:tensor<?x?xf32>>{%arg2, %arg4} -> tensor<?x?xf32>
    %1 = flow.dispatch.tensor.load %arg1, offsets = [0, 0], sizes = [%arg4, %arg3], strides = [1, 1] : !flow.dispatch.tensor<readonly:tensor<?x?xf32>>{%arg4, %arg3} -> tensor<?x?xf32>
    %2 = tensor.empty(%arg2, %arg3) : tensor<?x?xf32>
    %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<?x?xf32>) -> tensor<?x?xf32>
    %4 = linalg.matmul ins(%0, %1 : tensor<?x?xf32>, tensor<?x?xf32>) outs(%3 : tensor<?x?xf32>) -> tensor<?x?xf32>
    flow.dispatch.tensor.store %4, %arg5, offsets = [0, 0], sizes = [%arg2, %arg3], strides = [1, 1] : tensor<?x?xf32> -> !flow.dispatch.tensor<writeonly:tensor<?x?xf32>>{%arg2, %arg3}
    flow.return
  } count(%w0: index, %w1: index) -> (index, index, index) {
    %x, %y, %z = flow.dispatch.workgroup_count_from_slice %w0, %w1
    flow.return %x, %y, %z : index, index, index
  }
  util.return %r : tensor<?x?xf32>
}

// -----

// Tests that dispatches are numbered per function and elementwise roots are named elementwise_<shape>_<type>.
// CHECK: flow.executable private @g_dispatch_0 {
// CHECK: flow.executable.export public @g_dispatch_0_elementwise_4_f32
// CHECK: flow.executable private @g_dispatch_1 {
// CHECK: flow.executable.export public @g_dispatch_1_elementwise_4_f32
// CHECK-LABEL: util.func public @g
// CHECK: %[[A:.+]] = flow.dispatch @g_dispatch_0::@g_dispatch_0_elementwise_4_f32[%c4](%t) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK: flow.dispatch @g_dispatch_1::@g_dispatch_1_elementwise_4_f32[%c4](%[[A]]) : (tensor<4xf32>) -> tensor<4xf32>
util.func public @g(%t: tensor<4xf32>) -> tensor<4xf32> {
  %c4 = arith.constant 4 : index
  %a = flow.dispatch.workgroups[%c4](%t) : (tensor<4xf32>) -> tensor<4xf32> =
      (%in: !flow.dispatch.tensor<readonly:tensor<4xf32>>, %out: !flow.dispatch.tensor<writeonly:tensor<4xf32>>) {
    %0 = flow.dispatch.tensor.load %in, offsets = [0], sizes = [4], strides = [1] : !flow.dispatch.tensor<readonly:tensor<4xf32>> -> tensor<4xf32>
    %1 = tensor.empty() : tensor<4xf32>
    %2 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%0 : tensor<4xf32>) outs(%1 : tensor<4xf32>) {
    ^bb0(%x: f32, %o: f32):
      %y = math.exp %x : f32
      linalg.yield %y : f32
    } -> tensor<4xf32>
    flow.dispatch.tensor.store %2, %out, offsets = [0], sizes = [4], strides = [1] : tensor<4xf32> -> !flow.dispatch.tensor<writeonly:tensor<4xf32>>
    flow.return
  } count(%w: index) -> (index, index, index) {
    %x, %y, %z = flow.dispatch.workgroup_count_from_slice %w
    flow.return %x, %y, %z : index, index, index
  }
  %b = flow.dispatch.workgroups[%c4](%a) : (tensor<4xf32>) -> tensor<4xf32> =
      (%in: !flow.dispatch.tensor<readonly:tensor<4xf32>>, %out: !flow.dispatch.tensor<writeonly:tensor<4xf32>>) {
    %0 = flow.dispatch.tensor.load %in, offsets = [0], sizes = [4], strides = [1] : !flow.dispatch.tensor<readonly:tensor<4xf32>> -> tensor<4xf32>
    %1 = tensor.empty() : tensor<4xf32>
    %2 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%0 : tensor<4xf32>) outs(%1 : tensor<4xf32>) {
    ^bb0(%x: f32, %o: f32):
      %y = math.log %x : f32
      linalg.yield %y : f32
    } -> tensor<4xf32>
    flow.dispatch.tensor.store %2, %out, offsets = [0], sizes = [4], strides = [1] : tensor<4xf32> -> !flow.dispatch.tensor<writeonly:tensor<4xf32>>
    flow.return
  } count(%w: index) -> (index, index, index) {
    %x, %y, %z = flow.dispatch.workgroup_count_from_slice %w
    flow.return %x, %y, %z : index, index, index
  }
  util.return %b : tensor<4xf32>
}

// -----

// Tests that dispatches of util.initializer bodies are outlined too, named after the initializer's position (_initializer_<k>).
// CHECK: flow.executable private @_initializer_0_dispatch_0 {
// CHECK-NEXT: flow.executable.export public @_initializer_0_dispatch_0_elementwise_4_f32
// CHECK-LABEL: util.initializer {
// CHECK: %[[R:.+]] = flow.dispatch @_initializer_0_dispatch_0::@_initializer_0_dispatch_0_elementwise_4_f32[%c4](%cst) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK: util.global.store %[[R]], @g : tensor<4xf32>
util.global private @g : tensor<4xf32>
util.initializer {
  %c4 = arith.constant 4 : index
  %cst = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %r = flow.dispatch.workgroups[%c4](%cst) : (tensor<4xf32>) -> tensor<4xf32> =
      (%arg0: !flow.dispatch.tensor<readonly:tensor<4xf32>>, %arg1: !flow.dispatch.tensor<writeonly:tensor<4xf32>>) {
    %0 = flow.dispatch.tensor.load %arg0, offsets = [0], sizes = [4], strides = [1] : !flow.dispatch.tensor<readonly:tensor<4xf32>> -> tensor<4xf32>
    %1 = tensor.empty() : tensor<4xf32>
    %2 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%0 : tensor<4xf32>) outs(%1 : tensor<4xf32>) {
    ^bb0(%x: f32, %o: f32):
      %y = arith.addf %x, %x : f32
      linalg.yield %y : f32
    } -> tensor<4xf32>
    flow.dispatch.tensor.store %2, %arg1, offsets = [0], sizes = [4], strides = [1] : tensor<4xf32> -> !flow.dispatch.tensor<writeonly:tensor<4xf32>>
    flow.return
  } count(%w0: index) -> (index, index, index) {
    %x, %y, %z = flow.dispatch.workgroup_count_from_slice %w0
    flow.return %x, %y, %z : index, index, index
  }
  util.global.store %r, @g : tensor<4xf32>
  util.return
}
