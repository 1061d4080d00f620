// RUN: python -m rt opt --split-input-file --pass=iree-hal-resolve-device-promises %s | filecheck %s
// RUN: (python -m rt opt --pass=iree-hal-resolve-device-promises %S/resolve_device_promises_bad.mlir.in 2>&1; echo "exit=$?") | filecheck %s --check-prefix=BAD

// Tests that a promise naming no device global is an error at the op holding it, listing the
// module's devices.
// BAD: resolve_device_promises_bad.mlir.in:4:10: error: 'flow.tensor.transfer' references a promised device that was not declared: #hal.device.promise<@gpu>; the module's devices are @__device_0 (compile with --device=gpu=TARGET)
// BAD: exit=1

// Tests that promises on ops, in transfer targets and in function argument attributes become
// affinities of the devices they name, queues kept.
// CHECK-LABEL: func.func @f
// CHECK-SAME: iree.abi.affinity = #hal.device.affinity<@a>
// CHECK: flow.tensor.transfer %{{.*}} : tensor<4xf32> to #hal.device.affinity<@b, [1]>
// CHECK: stream.affinity = #hal.device.affinity<@a>
// CHECK-NOT: hal.device.promise
module {
  util.global private @a = #hal.device.target<"local", [#hal.executable.target<"vmvx", "vmvx-bytecode">]> : !hal.device
  util.global private @b = #hal.device.target<"local", [#hal.executable.target<"vmvx", "vmvx-bytecode">]> : !hal.device
  func.func @f(%x: tensor<4xf32> {iree.abi.affinity = #hal.device.promise<@a>}) -> tensor<4xf32> {
    %y = flow.tensor.transfer %x : tensor<4xf32> to #hal.device.promise<@b, [1]>
    %z = flow.tensor.transfer %y : tensor<4xf32> to #hal.device.affinity<@a>
    %w = arith.addf %z, %z {stream.affinity = #hal.device.promise<@a>} : tensor<4xf32>
    return %w : tensor<4xf32>
  }
}

// -----

// Tests that a module without promises is left as it is.
// CHECK-LABEL: func.func @g
// CHECK-NEXT: return
module {
  util.global private @a = #hal.device.target<"local", [#hal.executable.target<"vmvx", "vmvx-bytecode">]> : !hal.device
  func.func @g() {
    return
  }
}
