// RUN: python -m rt opt --split-input-file --pass=iree-hal-materialize-target-devices %s | filecheck %s
// RUN: (python -m rt opt --pass=iree-hal-materialize-target-devices %S/materialize_target_devices_bad.mlir.in 2>&1; echo "exit=$?") | filecheck %s --check-prefix=BAD

// Tests that an affinity naming no device (here @b with devices @a and @c, as when --device
// flags use other names than the input) is an error at the op that names it.
// BAD: materialize_target_devices_bad.mlir.in:3:10: error: target = #hal.device.affinity<@b> names no device; the module's devices are @a, @c (declare util.global @b = #hal.device.target<...> or compile with --device=b=TARGET)
// BAD: exit=1

// Tests that hal.device.targets become device globals at the top of the module and that the
// first device becomes stream.affinity.default.
// CHECK-LABEL: builtin.module attributes {stream.affinity.default = #hal.device.affinity<@a>} {
// CHECK-NEXT: util.global private @a = #hal.device.target<"local", [#hal.executable.target<"vmvx", "vmvx-bytecode">]> : !hal.device
// CHECK-NEXT: util.global private @b = #hal.device.target<"local", [#hal.executable.target<"llvm-cpu", "llvm-cpu-object-x86_64">]> : !hal.device
// CHECK-NEXT: func.func @f
module attributes {hal.device.targets = {a = #hal.device.target<"local", [#hal.executable.target<"vmvx", "vmvx-bytecode">]>, b = #hal.device.target<"local", [#hal.executable.target<"llvm-cpu", "llvm-cpu-object-x86_64">]>}} {
  func.func @f() {
    return
  }
}

// -----

// Tests that an existing stream.affinity.default is kept.
// CHECK-LABEL: builtin.module attributes {stream.affinity.default = #hal.device.affinity<@y>} {
// CHECK: util.global private @x
// CHECK: util.global private @y
module attributes {stream.affinity.default = #hal.device.affinity<@y>} {
  util.global private @x = #hal.device.target<"local", [#hal.executable.target<"vmvx", "vmvx-bytecode">]> : !hal.device
  util.global private @y = #hal.device.target<"local", [#hal.executable.target<"vmvx", "vmvx-bytecode">]> : !hal.device
}
