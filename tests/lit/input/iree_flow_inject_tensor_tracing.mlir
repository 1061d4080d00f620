// RUN: python -m rt opt --split-input-file --pass=iree-flow-inject-tensor-tracing %s | filecheck %s

// Tests that an op with a string iree.tensor.trace key gets its tensor operands traced before
// it and its results after it (dynamic dims from tensor.dim), and loses the attribute.
// CHECK-LABEL: func.func @keyed
// CHECK: %[[D0:.+]] = tensor.dim %a, %{{.+}} : tensor<?xf32>
// CHECK: flow.tensor.trace "sum inputs" = [%a : tensor<?xf32>{%[[D0]]}, %b : tensor<?xf32>{%{{.+}}}]
// CHECK-NEXT: %[[S:.+]] = arith.addf %a, %b : tensor<?xf32>
// CHECK-NOT: iree.tensor.trace
// CHECK: flow.tensor.trace "sum outputs" = [%[[S]] : tensor<?xf32>{%{{.+}}}]
func.func @keyed(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %0 = arith.addf %a, %b {iree.tensor.trace = "sum"} : tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// Tests that a unit iree.tensor.trace takes the callee of a call (and the op name otherwise) as
// its key, and that scalar operands are not traced.
// CHECK-LABEL: func.func @derived
// CHECK: flow.tensor.trace "callee inputs" = [%t : tensor<4xf32>]
// CHECK-NEXT: %[[C:.+]] = func.call @callee(%t, %s)
// CHECK-NEXT: flow.tensor.trace "callee outputs" = [%[[C]] : tensor<4xf32>]
// CHECK: flow.tensor.trace "arith.negf inputs" = [%[[C]] : tensor<4xf32>]
func.func private @callee(%t: tensor<4xf32>, %s: f32) -> tensor<4xf32> {
  return %t : tensor<4xf32>
}
func.func @derived(%t: tensor<4xf32>, %s: f32) -> tensor<4xf32> {
  %0 = func.call @callee(%t, %s) {iree.tensor.trace} : (tensor<4xf32>, f32) -> tensor<4xf32>
  %1 = arith.negf %0 {iree.tensor.trace} : tensor<4xf32>
  return %1 : tensor<4xf32>
}
