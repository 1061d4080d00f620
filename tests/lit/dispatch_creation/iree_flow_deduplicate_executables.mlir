// RUN: python -m rt opt --split-input-file --pass=iree-flow-deduplicate-executables %s | filecheck %s

// Tests that an executable identical to an earlier one but for its names and SSA name hints is
// erased and its dispatch calls the earlier one.
// CHECK-LABEL: flow.executable private @f_dispatch_0 {
// CHECK: math.exp
// CHECK-NOT: flow.executable
// CHECK-LABEL: util.func public @f
// CHECK: %[[A:.+]] = flow.dispatch @f_dispatch_0::@f_dispatch_0_elementwise_4_f32[%c4](%t)
// CHECK-NEXT: flow.dispatch @f_dispatch_0::@f_dispatch_0_elementwise_4_f32[%c4](%[[A]])
builtin.module {
  flow.executable private @f_dispatch_0 {
    flow.executable.export public @f_dispatch_0_elementwise_4_f32 workgroups(%w: index) -> (index, index, index) {
      %x, %y, %z = flow.dispatch.workgroup_count_from_slice %w
      flow.return %x, %y, %z : index, index, index
    }
    builtin.module {
      func.func @f_dispatch_0_elementwise_4_f32(%in: !flow.dispatch.tensor<readonly:tensor<4xf32>>, %out: !flow.dispatch.tensor<writeonly:tensor<4xf32>>) {
        %0 = flow.dispatch.tensor.load %in, offsets = [0], sizes = [4], strides = [1] : !flow.dispatch.tensor<readonly:tensor<4xf32>> -> tensor<4xf32>
        %1 = tensor.empty() : tensor<4xf32>
        %2 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%0 : tensor<4xf32>) outs(%1 : tensor<4xf32>) {
        ^bb0(%x: f32, %o: f32):
          %y = math.exp %x : f32
          linalg.yield %y : f32
        } -> tensor<4xf32>
        flow.dispatch.tensor.store %2, %out, offsets = [0], sizes = [4], strides = [1] : tensor<4xf32> -> !flow.dispatch.tensor<writeonly:tensor<4xf32>>
        func.return
      }
    }
  }
  flow.executable private @f_dispatch_1 {
    flow.executable.export public @f_dispatch_1_elementwise_4_f32 workgroups(%w: index) -> (index, index, index) {
      %x, %y, %z = flow.dispatch.workgroup_count_from_slice %w
      flow.return %x, %y, %z : index, index, index
    }
    builtin.module {
      func.func @f_dispatch_1_elementwise_4_f32(%in: !flow.dispatch.tensor<readonly:tensor<4xf32>>, %out: !flow.dispatch.tensor<writeonly:tensor<4xf32>>) {
        %0 = flow.dispatch.tensor.load %in, offsets = [0], sizes = [4], strides = [1] : !flow.dispatch.tensor<readonly:tensor<4xf32>> -> tensor<4xf32>
        %1 = tensor.empty() : tensor<4xf32>
        %2 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%0 : tensor<4xf32>) outs(%1 : tensor<4xf32>) {
        ^bb0(%x: f32, %o: f32):
          %renamed = math.exp %x : f32
          linalg.yield %renamed : f32
        } -> tensor<4xf32>
        flow.dispatch.tensor.store %2, %out, offsets = [0], sizes = [4], strides = [1] : tensor<4xf32> -> !flow.dispatch.tensor<writeonly:tensor<4xf32>>
        func.return
      }
    }
  }
  util.func public @f(%t: tensor<4xf32>) -> tensor<4xf32> {
    %c4 = arith.constant 4 : index
    %a = flow.dispatch @f_dispatch_0::@f_dispatch_0_elementwise_4_f32[%c4](%t) : (tensor<4xf32>) -> tensor<4xf32>
    %b = flow.dispatch @f_dispatch_1::@f_dispatch_1_elementwise_4_f32[%c4](%a) : (tensor<4xf32>) -> tensor<4xf32>
    util.return %b : tensor<4xf32>
  }
}

// -----

// Tests that executables differing in one op are all kept and that every later duplicate
// goes to the first executable with its body (exp, log, exp, log -> two executables).
// CHECK-LABEL: flow.executable private @g_dispatch_0 {
// CHECK: math.exp
// CHECK-LABEL: flow.executable private @g_dispatch_1 {
// CHECK: math.log
// CHECK-NOT: flow.executable
// CHECK-LABEL: util.func public @g
// CHECK: %[[A:.+]] = flow.dispatch @g_dispatch_0::@g_dispatch_0_elementwise_4_f32[%c4](%t)
// CHECK-NEXT: %[[B:.+]] = flow.dispatch @g_dispatch_1::@g_dispatch_1_elementwise_4_f32[%c4](%[[A]])
// CHECK-NEXT: %[[C:.+]] = flow.dispatch @g_dispatch_0::@g_dispatch_0_elementwise_4_f32[%c4](%[[B]])
// CHECK-NEXT: flow.dispatch @g_dispatch_1::@g_dispatch_1_elementwise_4_f32[%c4](%[[C]])
builtin.module {
  flow.executable private @g_dispatch_0 {
    flow.executable.export public @g_dispatch_0_elementwise_4_f32 workgroups(%w: index) -> (index, index, index) {
      %x, %y, %z = flow.dispatch.workgroup_count_from_slice %w
      flow.return %x, %y, %z : index, index, index
    }
    builtin.module {
      func.func @g_dispatch_0_elementwise_4_f32(%in: !flow.dispatch.tensor<readonly:tensor<4xf32>>, %out: !flow.dispatch.tensor<writeonly:tensor<4xf32>>) {
        %0 = flow.dispatch.tensor.load %in, offsets = [0], sizes = [4], strides = [1] : !flow.dispatch.tensor<readonly:tensor<4xf32>> -> tensor<4xf32>
        %1 = tensor.empty() : tensor<4xf32>
        %2 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%0 : tensor<4xf32>) outs(%1 : tensor<4xf32>) {
        ^bb0(%x: f32, %o: f32):
          %y = math.exp %x : f32
          linalg.yield %y : f32
        } -> tensor<4xf32>
        flow.dispatch.tensor.store %2, %out, offsets = [0], sizes = [4], strides = [1] : tensor<4xf32> -> !flow.dispatch.tensor<writeonly:tensor<4xf32>>
        func.return
      }
    }
  }
  flow.executable private @g_dispatch_1 {
    flow.executable.export public @g_dispatch_1_elementwise_4_f32 workgroups(%w: index) -> (index, index, index) {
      %x, %y, %z = flow.dispatch.workgroup_count_from_slice %w
      flow.return %x, %y, %z : index, index, index
    }
    builtin.module {
      func.func @g_dispatch_1_elementwise_4_f32(%in: !flow.dispatch.tensor<readonly:tensor<4xf32>>, %out: !flow.dispatch.tensor<writeonly:tensor<4xf32>>) {
        %0 = flow.dispatch.tensor.load %in, offsets = [0], sizes = [4], strides = [1] : !flow.dispatch.tensor<readonly:tensor<4xf32>> -> tensor<4xf32>
        %1 = tensor.empty() : tensor<4xf32>
        %2 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%0 : tensor<4xf32>) outs(%1 : tensor<4xf32>) {
        ^bb0(%x: f32, %o: f32):
          %y = math.log %x : f32
          linalg.yield %y : f32
        } -> tensor<4xf32>
        flow.dispatch.tensor.store %2, %out, offsets = [0], sizes = [4], strides = [1] : tensor<4xf32> -> !flow.dispatch.tensor<writeonly:tensor<4xf32>>
        func.return
      }
    }
  }
  flow.executable private @g_dispatch_2 {
    flow.executable.export public @g_dispatch_2_elementwise_4_f32 workgroups(%w: index) -> (index, index, index) {
      %x, %y, %z = flow.dispatch.workgroup_count_from_slice %w
      flow.return %x, %y, %z : index, index, index
    }
    builtin.module {
      func.func @g_dispatch_2_elementwise_4_f32(%in: !flow.dispatch.tensor<readonly:tensor<4xf32>>, %out: !flow.dispatch.tensor<writeonly:tensor<4xf32>>) {
        %0 = flow.dispatch.tensor.load %in, offsets = [0], sizes = [4], strides = [1] : !flow.dispatch.tensor<readonly:tensor<4xf32>> -> tensor<4xf32>
        %1 = tensor.empty() : tensor<4xf32>
        %2 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%0 : tensor<4xf32>) outs(%1 : tensor<4xf32>) {
        ^bb0(%x: f32, %o: f32):
          %y = math.exp %x : f32
          linalg.yield %y : f32
        } -> tensor<4xf32>
        flow.dispatch.tensor.store %2, %out, offsets = [0], sizes = [4], strides = [1] : tensor<4xf32> -> !flow.dispatch.tensor<writeonly:tensor<4xf32>>
        func.return
      }
    }
  }
  flow.executable private @g_dispatch_3 {
    flow.executable.export public @g_dispatch_3_elementwise_4_f32 workgroups(%w: index) -> (index, index, index) {
      %x, %y, %z = flow.dispatch.workgroup_count_from_slice %w
      flow.return %x, %y, %z : index, index, index
    }
    builtin.module {
      func.func @g_dispatch_3_elementwise_4_f32(%in: !flow.dispatch.tensor<readonly:tensor<4xf32>>, %out: !flow.dispatch.tensor<writeonly:tensor<4xf32>>) {
        %0 = flow.dispatch.tensor.load %in, offsets = [0], sizes = [4], strides = [1] : !flow.dispatch.tensor<readonly:tensor<4xf32>> -> tensor<4xf32>
        %1 = tensor.empty() : tensor<4xf32>
        %2 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%0 : tensor<4xf32>) outs(%1 : tensor<4xf32>) {
        ^bb0(%x: f32, %o: f32):
          %y = math.log %x : f32
          linalg.yield %y : f32
        } -> tensor<4xf32>
        flow.dispatch.tensor.store %2, %out, offsets = [0], sizes = [4], strides = [1] : tensor<4xf32> -> !flow.dispatch.tensor<writeonly:tensor<4xf32>>
        func.return
      }
    }
  }
  util.func public @g(%t: tensor<4xf32>) -> tensor<4xf32> {
    %c4 = arith.constant 4 : index
    %a = flow.dispatch @g_dispatch_0::@g_dispatch_0_elementwise_4_f32[%c4](%t) : (tensor<4xf32>) -> tensor<4xf32>
    %b = flow.dispatch @g_dispatch_1::@g_dispatch_1_elementwise_4_f32[%c4](%a) : (tensor<4xf32>) -> tensor<4xf32>
    %c = flow.dispatch @g_dispatch_2::@g_dispatch_2_elementwise_4_f32[%c4](%b) : (tensor<4xf32>) -> tensor<4xf32>
    %d = flow.dispatch @g_dispatch_3::@g_dispatch_3_elementwise_4_f32[%c4](%c) : (tensor<4xf32>) -> tensor<4xf32>
    util.return %d : tensor<4xf32>
  }
}

// -----

// Tests that stream executables are deduplicated too, that their symbol names are compared by
// position (@b's @y is @a's @x: same place, same body) and that stream dispatches (entry point
// arrays) are redirected export by export.
// CHECK-LABEL: stream.executable private @a {
// CHECK-NOT: stream.executable private @b
// CHECK-LABEL: util.func public @s
// CHECK: %[[P:.+]] = stream.async.dispatch @a::@x(%arg0[%c0 to %c64 for %c64]) : (!stream.resource<*>{%c64}) -> !stream.resource<*>{%c64}
// CHECK-NEXT: %[[Q:.+]] = stream.async.dispatch @a::@x(%[[P]][%c0 to %c64 for %c64]) : (!stream.resource<*>{%c64}) -> !stream.resource<*>{%c64}
// CHECK-NEXT: stream.async.dispatch @a::@y(%[[Q]][%c0 to %c64 for %c64]) : (!stream.resource<*>{%c64}) -> !stream.resource<*>{%c64}
builtin.module {
  stream.executable private @a {
    stream.executable.export public @x workgroups(%arg0: index) -> (index, index, index) {
      %x, %y, %z = flow.dispatch.workgroup_count_from_slice %arg0
      stream.return %x, %y, %z : index, index, index
    }
    stream.executable.export public @y workgroups(%arg0: index) -> (index, index, index) {
      %x, %y, %z = flow.dispatch.workgroup_count_from_slice %arg0
      stream.return %x, %y, %z : index, index, index
    }
    builtin.module {
      func.func @x(%p: i32, %q: i32) {
        %0 = arith.addi %p, %q : i32
        return
      }
      func.func @y(%p: i32, %q: i32) {
        %0 = arith.muli %p, %q : i32
        return
      }
    }
  }
  stream.executable private @b {
    stream.executable.export public @y workgroups(%arg0: index) -> (index, index, index) {
      %x, %y, %z = flow.dispatch.workgroup_count_from_slice %arg0
      stream.return %x, %y, %z : index, index, index
    }
    stream.executable.export public @x workgroups(%arg0: index) -> (index, index, index) {
      %x, %y, %z = flow.dispatch.workgroup_count_from_slice %arg0
      stream.return %x, %y, %z : index, index, index
    }
    builtin.module {
      func.func @y(%p: i32, %q: i32) {
        %0 = arith.addi %p, %q : i32
        return
      }
      func.func @x(%p: i32, %q: i32) {
        %0 = arith.muli %p, %q : i32
        return
      }
    }
  }
  util.func public @s(%arg0: !stream.resource<*>) -> !stream.resource<*> {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %0 = stream.async.dispatch @a::@x(%arg0[%c0 to %c64 for %c64]) : (!stream.resource<*>{%c64}) -> !stream.resource<*>{%c64}
    %1 = stream.async.dispatch @b::@y(%0[%c0 to %c64 for %c64]) : (!stream.resource<*>{%c64}) -> !stream.resource<*>{%c64}
    %2 = stream.async.dispatch @b::@x(%1[%c0 to %c64 for %c64]) : (!stream.resource<*>{%c64}) -> !stream.resource<*>{%c64}
    util.return %2 : !stream.resource<*>
  }
}
