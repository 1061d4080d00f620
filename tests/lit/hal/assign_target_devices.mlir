// RUN: python -m rt opt --split-input-file --pass='iree-hal-assign-target-devices{targets=a=vmvx;b=llvm-cpu:znver4}' %s | filecheck %s

// Tests that a module without devices records the requested ones, in order, by name.
// CHECK-LABEL: builtin.module attributes {hal.device.targets = {a = #hal.device.target<"local", [#hal.executable.target<"vmvx", "vmvx-bytecode"{{.*}}>]> : !hal.device, b = #hal.device.target<"local", [#hal.executable.target<"llvm-cpu", "llvm-cpu-object-x86_64", {{.*}}cpu = "znver4"
// CHECK: func.func @f
func.func @f() {
  return
}

// -----

// Tests that a module that declares a device global keeps it and gets no hal.device.targets.
// CHECK-LABEL: builtin.module {
// CHECK-NOT: hal.device.targets
// CHECK: util.global private @dev = #hal.device.target<"local", [#hal.executable.target<"vmvx", "vmvx-bytecode">]> : !hal.device
util.global private @dev = #hal.device.target<"local", [#hal.executable.target<"vmvx", "vmvx-bytecode">]> : !hal.device
func.func @g() {
  return
}
