// RUN: python -m rt opt %s | filecheck %s

// Tests that IREE's input-level syntax round-trips: device globals, affinities, transfers, e2e checks.
// CHECK: util.global private @dev_a = #hal.device.target<"local", [#hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {cpu_features = "+avx512f"}>]> : !hal.device
// CHECK-LABEL: util.func public @main
// CHECK: %[[X:.+]] = util.unfoldable_constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>
// CHECK: %[[T:.+]] = flow.tensor.transfer %[[X]] : tensor<4xf32> to #hal.device.affinity<@dev_a>
// CHECK: %[[B:.+]] = util.optimization_barrier %[[T]] : tensor<4xf32>
// CHECK: check.expect_almost_eq_const(%[[B]], dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>) : tensor<4xf32>
// CHECK: check.expect_eq(%[[B]], %[[B]]) : tensor<4xf32>
// CHECK: %[[S:.+]] = stream.tensor.sizeof on(#hal.device.affinity<@dev_a>) tensor<?xf32>{%n} : index
#exe = #hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {cpu_features = "+avx512f"}>
#dev = #hal.device.target<"local", [#exe]> : !hal.device
module {
  util.global private @dev_a = #dev
  util.func public @main(%n: index) -> index {
    %x = util.unfoldable_constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
    %t = flow.tensor.transfer %x : tensor<4xf32> to #hal.device.affinity<@dev_a>
    %b = util.optimization_barrier %t : tensor<4xf32>
    check.expect_almost_eq_const(%b, dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>) : tensor<4xf32>
    check.expect_eq(%b, %b) : tensor<4xf32>
    %s = stream.tensor.sizeof on(#hal.device.affinity<@dev_a>) tensor<?xf32>{%n} : index
    util.return %s : index
  }
}
