// RUN: python -m rt opt --split-input-file --pass=iree-flow-inject-dispatch-tracing %s | filecheck %s
// RUN: python -m rt opt --split-input-file --pass="iree-flow-inject-dispatch-tracing{enabled=false,symbol=second}" %s | filecheck %s --check-prefix=SYM

// Tests that every dispatch gets a trace of its tensor inputs before it and of its results after
// it, labelled with the entry point (`executable::export`, as IREE labels them); scalar operands are left out and dynamic dims carried along.
// CHECK-LABEL: util.func public @f
// CHECK: flow.tensor.trace "ex::first inputs" = [%t : tensor<?xf32>{%n}]
// CHECK-NEXT: %[[A:.+]] = flow.dispatch @ex::@first[%n](%t, %s, %n)
// CHECK-NEXT: flow.tensor.trace "ex::first outputs" = [%[[A]] : tensor<?xf32>{%n}]
// CHECK-NEXT: flow.tensor.trace "ex::second inputs" = [%[[A]] : tensor<?xf32>{%n}]
// CHECK-NEXT: %[[B:.+]] = flow.dispatch @ex::@second[%n](%[[A]], %n)
// CHECK-NEXT: flow.tensor.trace "ex::second outputs" = [%[[B]] : tensor<?xf32>{%n}]
// SYM-LABEL: util.func public @f
// SYM-NOT: "first
// SYM: flow.tensor.trace "ex::second inputs"
// SYM: flow.tensor.trace "ex::second outputs"
util.func public @f(%t: tensor<?xf32>, %s: f32, %n: index) -> tensor<?xf32> {
  %0 = flow.dispatch @ex::@first[%n](%t, %s, %n) : (tensor<?xf32>{%n}, f32, index) -> tensor<?xf32>{%n}
  %1 = flow.dispatch @ex::@second[%n](%0, %n) : (tensor<?xf32>{%n}, index) -> tensor<?xf32>{%n}
  util.return %1 : tensor<?xf32>
}

// -----

// Tests that a tensor in a packed layout (with an encoding) is traced with its encoded type (the
// runtime unpacks it when printing).
// CHECK-LABEL: util.func public @g
// CHECK: flow.tensor.trace "ex::mm inputs" = [%a : tensor<4x4xf32, #iree_encoding.encoding<{{.+}}>>, %b : tensor<4x4xf32>]
// CHECK: flow.tensor.trace "ex::mm outputs" = [%{{.+}} : tensor<4x4xf32>]
util.func public @g(%a: tensor<4x4xf32, #iree_encoding.encoding<operand_index = 0 : index, op_type = matmul, element_types = [f32, f32, f32]>>, %b: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %c4 = arith.constant 4 : index
  %0 = flow.dispatch @ex::@mm[%c4](%a, %b) : (tensor<4x4xf32, #iree_encoding.encoding<operand_index = 0 : index, op_type = matmul, element_types = [f32, f32, f32]>>, tensor<4x4xf32>) -> tensor<4x4xf32>
  util.return %0 : tensor<4x4xf32>
}
