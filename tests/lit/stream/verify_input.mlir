// RUN: python -m rt opt --split-input-file --pass=iree-stream-verify-input %s | filecheck %s
// RUN: (python -m rt opt --split-input-file --pass=iree-stream-verify-input %S/verify_input_bad.mlir.in 2>&1; echo "exit=$?") | filecheck %s --check-prefix=BAD

// Tests that a module in the flow form passes unchanged.
// CHECK-LABEL: flow.executable private @ex
// CHECK-LABEL: util.func public @ok
// CHECK: %[[I:.+]] = hal.tensor.import %arg0 : !hal.buffer_view -> tensor<4xf32>
// CHECK-NEXT: %[[D:.+]] = flow.dispatch @ex::@fn(%[[I]]) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: %[[E:.+]] = hal.tensor.export %[[D]] : tensor<4xf32> -> !hal.buffer_view
flow.executable private @ex {
  flow.executable.export public @fn workgroups() -> (index, index, index) {
    %c1 = arith.constant 1 : index
    flow.return %c1, %c1, %c1 : index, index, index
  }
  builtin.module {
    func.func @fn(%0: !flow.dispatch.tensor<readonly:tensor<4xf32>>, %1: !flow.dispatch.tensor<writeonly:tensor<4xf32>>) {
      %2 = flow.dispatch.tensor.load %0, offsets = [0], sizes = [4], strides = [1] : !flow.dispatch.tensor<readonly:tensor<4xf32>> -> tensor<4xf32>
      flow.dispatch.tensor.store %2, %1, offsets = [0], sizes = [4], strides = [1] : tensor<4xf32> -> !flow.dispatch.tensor<writeonly:tensor<4xf32>>
      func.return
    }
  }
}
util.func public @ok(%arg0: !hal.buffer_view) -> !hal.buffer_view {
  %0 = hal.tensor.import %arg0 : !hal.buffer_view -> tensor<4xf32>
  %1 = flow.dispatch @ex::@fn(%0) : (tensor<4xf32>) -> tensor<4xf32>
  %2 = hal.tensor.export %1 : tensor<4xf32> -> !hal.buffer_view
  util.return %2 : !hal.buffer_view
}

// Tests that each kind of input the stream phase cannot take is a located error that says
// what to run or change.
// BAD: verify_input_bad.mlir.in:4:8: error: 'linalg.fill' is outside any dispatch; the stream phase expects tensor computation to be formed into flow.dispatch ops (iree-dispatch-creation-form-dispatch-regions)
// BAD: verify_input_bad.mlir.in:10:1: error: argument 0 of @takes_tensor is a tensor (tensor<4xf32>); public functions of the stream phase take and return !hal.buffer_view (run iree-abi-wrap-entry-points)
// BAD: verify_input_bad.mlir.in:18:8: error: 'flow.dispatch' names @nowhere::@fn, which the module does not define (defined entry points: none)
// BAD: verify_input_bad.mlir.in:25:8: error: 'flow.dispatch.region' was not outlined; run iree-dispatch-creation-convert-dispatch-regions-to-workgroups and iree-flow-outline-dispatch-regions before the stream phase
// BAD: exit=1
