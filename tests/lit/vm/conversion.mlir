// RUN: python -m rt opt --split-input-file --pass=iree-vm-conversion %s | filecheck %s
// RUN: (python -m rt opt --pass=iree-vm-conversion %S/conversion_bad.mlir.in 2>&1; echo "exit=$?") | filecheck %s --check-prefix=BAD

// Tests that an op the vm phase cannot take is rejected at its location.
// BAD: conversion_bad.mlir.in:2:{{[0-9]+}}: error:
// BAD: exit=1

// Tests that a public function is exported with its cconv and source reflection and that
// arith ops become VM instructions located at their source lines.
// CHECK: vm.module @module data(dense<"0x{{[0-9A-F]+}}"> : vector<{{[0-9]+}}xi8>)
// CHECK: // exports (1):
// CHECK-NEXT: //   mad -> function [0]
// CHECK: //   [0] @mad 0ii_i (exported as mad)
// CHECK-NEXT: //       reflection rt.source = "{{.*}}conversion.mlir:18:1"
// CHECK: mul.i32
// CHECK: add.i32
// CHECK: return
util.func public @mad(%a: i32, %b: i32) -> i32 {
  %0 = arith.muli %a, %b : i32
  %1 = arith.addi %0, %a : i32
  util.return %1 : i32
}

// -----

// Tests that initializers become __init_N functions called by an exported __init, that
// globals are declared with their initial values and that hal ops become imports.
// CHECK: // imports (2):
// CHECK-NEXT: //   [0] hal.devices.get 0i_r
// CHECK-NEXT: //   [1] hal.device.allocator 0r_r
// CHECK: //   __init -> function [1]
// CHECK: //   i64[0] n = 7
// CHECK: //   ref[0] dev = null
// CHECK: //   [0] @__init_0 0v_v
// CHECK: call.import @hal.devices.get
// CHECK: global.store.ref
// CHECK: //   [1] @__init 0v_v (exported as __init)
// CHECK: call @__init_0
util.global private @dev : !hal.device
util.global private mutable @n = 7 : i64
util.initializer {
  %c0 = arith.constant 0 : index
  %d = hal.devices.get %c0 : !hal.device
  util.global.store %d, @dev : !hal.device
  util.return
}
util.func public @alloc() -> !hal.allocator {
  %d = util.global.load @dev : !hal.device
  %a = hal.device.allocator<%d : !hal.device> : !hal.allocator
  util.return %a : !hal.allocator
}

// -----

// Tests that scalar util.unfoldable_constant stays a run-time constant register (no folding
// into its users), that util.optimization_barrier is a move, and that an f16 constant is
// rounded to the nearest f16 and carried in an f32 register.
// CHECK-LABEL: //   [0] @unfoldable 0v_if
// CHECK: const.i32 %i0, 7
// CHECK-NEXT: // {{.*}}:{{[0-9]+}}:8
// CHECK-NEXT: mov.i32 %i1, %i0
// CHECK: const.f32 %f0, 0.0999755859375
// CHECK: add.i32 %{{i[0-9]+}}, %i1, %i1
// CHECK: return
util.func public @unfoldable() -> (i32, f16) {
  %a = util.unfoldable_constant 7 : i32
  %b = util.optimization_barrier %a : i32
  %c = util.unfoldable_constant 0.1 : f16
  %d = arith.addi %b, %b : i32
  util.return %d, %c : i32, f16
}

// -----

// Tests that arith.truncf f64 -> f16 rounds once (trunc.f32.f16 on the f64 register, not
// through f32) and that f16 arithmetic is rounded back to f16 after the f32 operation.
// CHECK-LABEL: //   [0] @narrow 0Ff_f
// CHECK: trunc.f32.f16 %f2, %f0
// CHECK-NOT: trunc.f64.f32
// CHECK: add.f32 %[[S:f[0-9]+]], %f2, %f1
// CHECK-NEXT: trunc.f32.f16 %[[S]], %[[S]]
util.func public @narrow(%x: f64, %y: f16) -> f16 {
  %h = arith.truncf %x : f64 to f16
  %s = arith.addf %h, %y : f16
  util.return %s : f16
}

// -----

// Tests that a buffer view carrying a layout identifier (an exported packed tensor) tags its
// buffer with rt's hal.buffer.set_encoding, from a rodata string, before the view is created.
// CHECK: //   [0] hal.buffer.set_encoding 0rr_v
// CHECK: //   [1] hal.buffer_view.create 0rIIiiCID_r
// CHECK: [0] _str_0 align 1 size 83
// CHECK: @export_packed 0r_r
// CHECK: const.ref.rodata %[[S:r[0-9]+]], @_str_0
// CHECK-NEXT: call.import @hal.buffer.set_encoding, (%r0, %[[S]]), -> ()
// CHECK-NEXT: {{.*}}call.variadic @hal.buffer_view.create
util.func public @export_packed(%b: !hal.buffer) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c1024 = arith.constant 1024 : index
  %t = hal.element_type<f32> : i32
  %e = hal.encoding_type<dense_row_major> : i32
  %v = hal.buffer_view.create buffer(%b : !hal.buffer)[%c0, %c1024] shape([%c16, %c16]) type(%t) encoding(%e) : !hal.buffer_view {rt.layout = "packed<f32, innerDimsPos = [0, 1], innerTileSizes = [8, 4], outerDimsPerm = [0, 1]>"}
  util.return %v : !hal.buffer_view
}

// -----

// Tests that io_parameters.load calls IREE's import with a key table ({u32 offset, u32 length} per key), the concatenated keys and the spans ({u64, u64, u64} per parameter) as rodata, and takes each buffer from the returned list; util.null is a null ref.
// CHECK: //   [0] io_parameters.load 0rIrrrIiirrr_r
// CHECK: //   [{{[0-9]+}}] _table_{{[0-9]+}} align 8 size 16 segment
// CHECK-NEXT: //   [{{[0-9]+}}] _table_{{[0-9]+}} align 8 size 3 segment
// CHECK-NEXT: //   [{{[0-9]+}}] _table_{{[0-9]+}} align 8 size 48 segment
// CHECK: call.import @io_parameters.load, (%r{{[0-9]+}}, %i0, %r0, %r1, %r{{[0-9]+}}, %i0, %i1, %i2, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}), -> (%[[L:r[0-9]+]])
// CHECK: list.get.ref %r{{[0-9]+}}, %[[L]], %i{{[0-9]+}}
// CHECK: list.get.ref %[[B:r[0-9]+]], %[[L]], %i{{[0-9]+}}
// CHECK: global.store.ref %[[B]], @w
// CHECK: const.ref.zero
util.global private @dev : !hal.device
util.global private @w : !hal.buffer
util.func public @load_params(%wait: !hal.fence, %signal: !hal.fence) {
  %d = util.global.load @dev : !hal.device
  %a = arith.constant -1 : i64
  %mt = arith.constant 50 : i32
  %us = arith.constant 527363 : i32
  %c16 = arith.constant 16 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0 : i64
  %scope = util.buffer.constant : !util.buffer = "model"
  %kw = util.buffer.constant : !util.buffer = "w"
  %kv = util.buffer.constant : !util.buffer = "vv"
  %b:2 = io_parameters.load<%d : !hal.device> affinity(%a) wait(%wait) signal(%signal) type(%mt) usage(%us) {
    %scope::%kw[%zero] : !hal.buffer{%c16},
    %scope::%kv[%zero] : !hal.buffer{%c8}
  }
  util.global.store %b#1, @w : !hal.buffer
  %n = util.null : !hal.fence
  util.return
}
