// RUN: python -m rt opt --split-input-file --pass=iree-abi-wrap-entry-points %s | filecheck %s

// Tests that dynamic tensor arguments are imported with hal.buffer_view.dim dims and results exported.
// CHECK-LABEL: util.func public @foo(%lhs: !hal.buffer_view, %n: index) -> !hal.buffer_view
// CHECK-SAME: iree.abi.stub
// CHECK-SAME: iree.abi.declaration = "func @foo(%lhs: tensor<?x4xf32>, %n: index) -> tensor<?x4xf32>"
// CHECK-SAME: rt.abi = "{\22args\22:[{\22name\22:\22lhs\22,\22type\22:\22tensor<?x4xf32>\22,\22kind\22:\22tensor\22,\22shape\22:[null,4],\22dtype\22:\22f32\22,\22encoding\22:null},{\22name\22:\22n\22,\22type\22:\22index\22,\22kind\22:\22scalar\22,\22dtype\22:\22index\22}]
// CHECK: %[[D0:.+]] = hal.buffer_view.dim<%lhs : !hal.buffer_view>[0] : index
// CHECK: %[[T:.+]] = hal.tensor.import %lhs "input0" : !hal.buffer_view -> tensor<?x4xf32>{%[[D0]]}
// CHECK: %[[R:.+]] = math.exp %[[T]] : tensor<?x4xf32>
// CHECK: %[[C0:.+]] = arith.constant 0 : index
// CHECK: %[[RD:.+]] = tensor.dim %[[R]], %[[C0]] : tensor<?x4xf32>
// CHECK: %[[E:.+]] = hal.tensor.export %[[R]] "output0" : tensor<?x4xf32>{%[[RD]]} -> !hal.buffer_view
// CHECK: util.return %[[E]] : !hal.buffer_view
func.func @foo(%lhs: tensor<?x4xf32>, %n: index) -> tensor<?x4xf32> {
  %0 = math.exp %lhs : tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// Tests that a function without tensors is wrapped too and private functions become util.func.
// CHECK-LABEL: util.func private @helper(%x: f32) -> f32
// CHECK: util.return %x : f32
// CHECK-LABEL: util.func public @e2e()
// CHECK-SAME: iree.abi.declaration = "func @e2e()"
// CHECK: util.call @helper(%{{.+}}) : (f32) -> f32
// CHECK: util.return
func.func private @helper(%x: f32) -> f32 {
  return %x : f32
}
func.func @e2e() {
  %c = arith.constant 1.0 : f32
  %r = func.call @helper(%c) : (f32) -> f32
  return
}

// -----

// Tests that a public function called by another keeps a private unwrapped copy for the caller.
// CHECK-LABEL: util.func private @_callee(%t: tensor<4xf32>) -> tensor<4xf32>
// CHECK: util.return %t : tensor<4xf32>
// CHECK-LABEL: util.func public @callee(%t: !hal.buffer_view) -> !hal.buffer_view
// CHECK: hal.tensor.import %t "input0" : !hal.buffer_view -> tensor<4xf32>
// CHECK-LABEL: util.func public @caller(%a: !hal.buffer_view) -> !hal.buffer_view
// CHECK: util.call @_callee(%{{.+}}) : (tensor<4xf32>) -> tensor<4xf32>
func.func @callee(%t: tensor<4xf32>) -> tensor<4xf32> {
  return %t : tensor<4xf32>
}
func.func @caller(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = func.call @callee(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Tests that functions already in ABI form (iree.abi.stub: IREE's coarse-fences pair) are not wrapped again but get rt.abi reflection: buffer views take the types of their imports (through util.call for the synchronous wrapper), fences are kind "fence", a result the type of its export.
// CHECK-LABEL: util.func public @g$async(%arg0: !hal.buffer_view, %arg1: !hal.fence, %arg2: !hal.fence) -> !hal.buffer_view
// CHECK-SAME: iree.reflection = {iree.abi.declaration = "func @g$async(%arg0: tensor<?x4xf32>, %arg1: !hal.fence, %arg2: !hal.fence) -> tensor<?x4xf32>", rt.abi = "{\22args\22:[{\22name\22:\22arg0\22,\22type\22:\22tensor<?x4xf32>\22,\22kind\22:\22tensor\22,\22shape\22:[null,4],\22dtype\22:\22f32\22,\22encoding\22:null},{\22name\22:\22arg1\22,\22kind\22:\22fence\22},{\22name\22:\22arg2\22,\22kind\22:\22fence\22}],\22results\22:[{\22name\22:\22output0\22,\22type\22:\22tensor<?x4xf32>\22,\22kind\22:\22tensor\22,\22shape\22:[null,4],\22dtype\22:\22f32\22,\22encoding\22:null}]}"
// CHECK-NEXT: %[[D:.+]] = hal.buffer_view.dim
// CHECK-NEXT: hal.tensor.import wait(%arg1) => %arg0
// CHECK-LABEL: util.func public @g(%arg0: !hal.buffer_view) -> !hal.buffer_view
// CHECK-SAME: iree.abi.declaration = "func @g(%arg0: tensor<?x4xf32>) -> tensor<?x4xf32>"
util.func public @g$async(%arg0: !hal.buffer_view, %arg1: !hal.fence, %arg2: !hal.fence) -> !hal.buffer_view attributes {iree.abi.model = "coarse-fences", iree.abi.stub} {
  %d = hal.buffer_view.dim<%arg0 : !hal.buffer_view>[0] : index
  %0 = hal.tensor.import wait(%arg1) => %arg0 : !hal.buffer_view -> tensor<?x4xf32>{%d}
  %1 = hal.tensor.barrier join(%0 : tensor<?x4xf32>) => %arg2 : !hal.fence
  %2 = hal.tensor.export %1 : tensor<?x4xf32>{%d} -> !hal.buffer_view
  util.return %2 : !hal.buffer_view
}
util.func public @g(%arg0: !hal.buffer_view) -> !hal.buffer_view attributes {iree.abi.stub} {
  %0 = util.null : !hal.fence
  %c0 = arith.constant 0 : index
  %device = hal.devices.get %c0 : !hal.device
  %fence = hal.fence.create device(%device : !hal.device) flags("None") : !hal.fence
  %1 = util.call @g$async(%arg0, %0, %fence) : (!hal.buffer_view, !hal.fence, !hal.fence) -> !hal.buffer_view
  util.return %1 : !hal.buffer_view
}
