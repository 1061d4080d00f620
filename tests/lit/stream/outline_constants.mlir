// RUN: python -m rt opt --split-input-file --pass=iree-stream-outline-constants %s | filecheck %s

// Tests that a dense (non-splat) tensor constant in host code becomes a private noinline global
// after the module's globals and is read back with util.global.load (the seeds' @test).
// CHECK: util.global private @__device_0 = 1 : i32
// CHECK-NEXT: util.global private @_constant {noinline} = dense<[0.000000e+00, 1.000000e-02, 2.000000e-02, 3.000000e-02]> : tensor<4xf32>
// CHECK-LABEL: util.func public @test
// CHECK: %[[G:.+]] = util.global.load @_constant : tensor<4xf32>
// CHECK: flow.dispatch @ex::@fn[%c4](%{{.+}}, %[[G]]) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NOT: arith.constant dense
util.global private @__device_0 = 1 : i32
util.func public @test(%arg0: !hal.buffer_view) -> !hal.buffer_view {
  %cst = arith.constant dense<[0.0, 0.01, 0.02, 0.03]> : tensor<4xf32>
  %c4 = arith.constant 4 : index
  %0 = hal.tensor.import %arg0 : !hal.buffer_view -> tensor<4xf32>
  %1 = flow.dispatch @ex::@fn[%c4](%0, %cst) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = hal.tensor.export %1 : tensor<4xf32> -> !hal.buffer_view
  util.return %2 : !hal.buffer_view
}

// -----

// Tests that names are uniqued against existing symbols, that splats and constants in nested
// regions stay inline, and that initializers are scanned too.
// CHECK: util.global private @_constant = 0 : i32
// CHECK-NEXT: util.global private @_constant_0 {noinline} = dense<[1, 2]> : tensor<2xi32>
// CHECK-NEXT: util.global private @_constant_1 {noinline} = dense<[3, 4]> : tensor<2xi32>
// CHECK-LABEL: util.func public @many
// CHECK: %{{.+}} = arith.constant dense<7> : tensor<2xi32>
// CHECK: util.global.load @_constant_0 : tensor<2xi32>
// CHECK: scf.if
// CHECK-NEXT: arith.constant dense<[5, 6]> : tensor<2xi32>
// CHECK: util.initializer {
// CHECK-NEXT: util.global.load @_constant_1 : tensor<2xi32>
util.global private @_constant = 0 : i32
util.func public @many(%c: i1) {
  %splat = arith.constant dense<7> : tensor<2xi32>
  %a = arith.constant dense<[1, 2]> : tensor<2xi32>
  scf.if %c {
    %b = arith.constant dense<[5, 6]> : tensor<2xi32>
    scf.yield
  }
  util.return
}
util.initializer {
  %d = arith.constant dense<[3, 4]> : tensor<2xi32>
  util.return
}
