// RUN: python -m rt opt --split-input-file --pass=iree-hal-materialize-interfaces %s | filecheck %s
// RUN: (python -m rt opt --pass=iree-hal-materialize-interfaces %S/materialize_interfaces_bad.mlir.in 2>&1; echo "exit=$?") | filecheck %s --check-prefix=BAD

// Tests that a dispatch argument wider than a push constant is rejected at the function.
// BAD: materialize_interfaces_bad.mlir.in:6:7: error: dispatch function @w: argument of type i64 cannot be passed as a 32-bit push constant
// BAD: exit=1

// Tests that a stream executable becomes a hal.executable with one variant per target, an
// export with its pipeline layout (one push constant per scalar, ReadOnly for read-only
// bindings) and a body reading bindings and scalars through the interface ops.
// CHECK-LABEL: hal.executable private @ex {
// CHECK: hal.executable.variant public @vmvx_bytecode target(#hal.executable.target<"vmvx", "vmvx-bytecode">) {
// CHECK: hal.executable.export public @add ordinal(0) layout(#hal.pipeline.layout<constants = 2, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly">, #hal.pipeline.binding<storage_buffer>]>) count(%device: !hal.device, %arg0: index) -> (index, index, index) {
// CHECK-NEXT: flow.dispatch.workgroup_count_from_slice %arg0
// CHECK-NEXT: hal.return
// CHECK: func.func @add() {
// CHECK-NEXT: %n = hal.interface.constant.load layout({{.+}}) ordinal(0) : i32
// CHECK-NEXT: %[[M32:.+]] = hal.interface.constant.load layout({{.+}}) ordinal(1) : i32
// CHECK-NEXT: %m = arith.index_cast %[[M32]] : i32 to index
// CHECK: hal.interface.binding.subspan layout({{.+}}) binding(0) alignment(64) offset(%c0) flags("ReadOnly") : !flow.dispatch.tensor<readonly:tensor<?xf32>>{%m}
// CHECK: hal.interface.binding.subspan layout({{.+}}) binding(1) alignment(64) offset(%c0) : !flow.dispatch.tensor<writeonly:tensor<?xf32>>{%m}
// CHECK-NOT: stream.binding
module attributes {stream.affinity.default = #hal.device.affinity<@__device_0>} {
  util.global private @__device_0 = #hal.device.target<"local", [#hal.executable.target<"vmvx", "vmvx-bytecode">]> : !hal.device
  stream.executable private @ex {
    stream.executable.export public @add workgroups(%arg0: index) -> (index, index, index) {
      %x, %y, %z = flow.dispatch.workgroup_count_from_slice %arg0
      stream.return %x, %y, %z : index, index, index
    }
    builtin.module {
      func.func @add(%a: !stream.binding, %n: i32, %b: !stream.binding, %m: index) {
        %c0 = arith.constant 0 : index
        %0 = stream.binding.subspan %a[%c0] : !stream.binding -> !flow.dispatch.tensor<readonly:tensor<?xf32>>{%m}
        %1 = stream.binding.subspan %b[%c0] : !stream.binding -> !flow.dispatch.tensor<writeonly:tensor<?xf32>>{%m}
        return
      }
    }
  }
}

// -----

// Tests that an executable dispatched on two devices gets one variant per device target.
// CHECK-LABEL: hal.executable private @two {
// CHECK: hal.executable.variant public @vmvx_bytecode target(#hal.executable.target<"vmvx", "vmvx-bytecode">)
// CHECK: hal.executable.variant public @llvm_cpu_object_x86_64 target(#hal.executable.target<"llvm-cpu", "llvm-cpu-object-x86_64">)
module {
  util.global private @a = #hal.device.target<"local", [#hal.executable.target<"vmvx", "vmvx-bytecode">]> : !hal.device
  util.global private @b = #hal.device.target<"local", [#hal.executable.target<"llvm-cpu", "llvm-cpu-object-x86_64">]> : !hal.device
  stream.executable private @two {
    stream.executable.export public @fill
    builtin.module {
      func.func @fill(%out: !stream.binding) {
        return
      }
    }
  }
  util.func public @f(%r: !stream.resource<transient>, %s: index) -> !stream.timepoint {
    %c0 = arith.constant 0 : index
    %t0 = stream.cmd.execute on(#hal.device.affinity<@a>) with(%r as %x: !stream.resource<transient>{%s}) {
      stream.cmd.dispatch @two::@fill {
        wo %x[%c0 for %s] : !stream.resource<transient>{%s}
      }
    } => !stream.timepoint
    %t1 = stream.cmd.execute on(#hal.device.affinity<@b>) with(%r as %x: !stream.resource<transient>{%s}) {
      stream.cmd.dispatch @two::@fill {
        wo %x[%c0 for %s] : !stream.resource<transient>{%s}
      }
    } => !stream.timepoint
    %t = stream.timepoint.join max(%t0, %t1) => !stream.timepoint
    util.return %t : !stream.timepoint
  }
}

