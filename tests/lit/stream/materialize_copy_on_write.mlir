// RUN: python -m rt opt --split-input-file --pass=iree-stream-materialize-copy-on-write %s | filecheck %s

// Tests that a fill of a value that is read afterwards writes into a clone, while a fill of a
// value it is the only user of updates it in place.
// CHECK-LABEL: util.func public @fill_read
// CHECK: %[[S:.+]] = stream.async.splat %c0_i32 : i32 -> !stream.resource<*>{%c64}
// CHECK-NEXT: %[[C:.+]] = stream.async.clone %[[S]] : !stream.resource<*>{%c64} -> !stream.resource<*>{%c64}
// CHECK-NEXT: %[[F:.+]] = stream.async.fill %c1_i32, %[[C]][%c0 to %c16 for %c16] : i32 -> %[[C]] as !stream.resource<*>{%c64}
// CHECK-NEXT: %[[D:.+]] = stream.async.dispatch @ex::@fn(%[[S]][%c0 to %c64 for %c64])
// CHECK-NEXT: %[[S2:.+]] = stream.async.splat %c0_i32 : i32 -> !stream.resource<*>{%c64}
// CHECK-NEXT: %{{.+}} = stream.async.fill %c1_i32, %[[S2]][%c0 to %c16 for %c16] : i32 -> %[[S2]] as !stream.resource<*>{%c64}
util.func public @fill_read() -> (!stream.resource<*>, !stream.resource<*>, !stream.resource<*>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c0_i32 = arith.constant 0 : i32
  %c1_i32 = arith.constant 1 : i32
  %0 = stream.async.splat %c0_i32 : i32 -> !stream.resource<*>{%c64}
  %1 = stream.async.fill %c1_i32, %0[%c0 to %c16 for %c16] : i32 -> %0 as !stream.resource<*>{%c64}
  %2 = stream.async.dispatch @ex::@fn(%0[%c0 to %c64 for %c64]) : (!stream.resource<*>{%c64}) -> !stream.resource<*>{%c64}
  %3 = stream.async.splat %c0_i32 : i32 -> !stream.resource<*>{%c64}
  %4 = stream.async.fill %c1_i32, %3[%c0 to %c16 for %c16] : i32 -> %3 as !stream.resource<*>{%c64}
  util.return %1, %2, %4 : !stream.resource<*>, !stream.resource<*>, !stream.resource<*>
}

// -----

// Tests that block arguments (the caller may still hold them) and constants are always copied
// before an in-place update, even when the update is their only use.
// CHECK-LABEL: util.func private @args
// CHECK: %[[C:.+]] = stream.async.clone %arg0 : !stream.resource<*>{%c64} -> !stream.resource<*>{%c64}
// CHECK-NEXT: stream.async.update %arg1, %[[C]][%c0 to %c16] : !stream.resource<*>{%c16} -> %[[C]] as !stream.resource<*>{%c64}
// CHECK: %[[K:.+]] = stream.async.constant : !stream.resource<constant>{%c16}
// CHECK-NEXT: %[[KC:.+]] = stream.async.clone %[[K]] : !stream.resource<constant>{%c16} -> !stream.resource<constant>{%c16}
// CHECK-NEXT: stream.async.fill %c1_i32, %[[KC]][%c0 to %c16 for %c16] : i32 -> %[[KC]] as !stream.resource<constant>{%c16}
util.func private @args(%arg0: !stream.resource<*>, %arg1: !stream.resource<*>) -> (!stream.resource<*>, !stream.resource<constant>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c1_i32 = arith.constant 1 : i32
  %0 = stream.async.update %arg1, %arg0[%c0 to %c16] : !stream.resource<*>{%c16} -> %arg0 as !stream.resource<*>{%c64}
  %1 = stream.async.constant : !stream.resource<constant>{%c16} = dense<[1, 2, 3, 4]> : tensor<4xi32>
  %2 = stream.async.fill %c1_i32, %1[%c0 to %c16 for %c16] : i32 -> %1 as !stream.resource<constant>{%c16}
  util.return %0, %2 : !stream.resource<*>, !stream.resource<constant>
}

// -----

// Tests that a dispatch result tied to an operand that is used again gets a clone on the
// dispatch's affinity, and that every operand naming the same value reads the clone.
// CHECK-LABEL: util.func public @tied_dispatch
// CHECK: %[[A:.+]] = stream.async.alloca on(#hal.device.affinity<@dev>) : !stream.resource<*>{%c64}
// CHECK-NEXT: %[[C:.+]] = stream.async.clone on(#hal.device.affinity<@dev>) %[[A]] : !stream.resource<*>{%c64} -> !stream.resource<*>{%c64}
// CHECK-NEXT: %[[D:.+]] = stream.async.dispatch on(#hal.device.affinity<@dev>) @ex::@fn(%[[C]][%c0 to %c64 for %c64], %[[C]][%c0 to %c64 for %c64]) : (!stream.resource<*>{%c64}, !stream.resource<*>{%c64}) -> %[[C]]{%c64}
// CHECK-NEXT: stream.async.dispatch on(#hal.device.affinity<@dev>) @ex::@fn(%[[A]][%c0 to %c64 for %c64])
util.func public @tied_dispatch() -> (!stream.resource<*>, !stream.resource<*>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %0 = stream.async.alloca on(#hal.device.affinity<@dev>) : !stream.resource<*>{%c64}
  %1 = stream.async.dispatch on(#hal.device.affinity<@dev>) @ex::@fn(%0[%c0 to %c64 for %c64], %0[%c0 to %c64 for %c64]) : (!stream.resource<*>{%c64}, !stream.resource<*>{%c64}) -> %0{%c64}
  %2 = stream.async.dispatch on(#hal.device.affinity<@dev>) @ex::@fn(%0[%c0 to %c64 for %c64]) : (!stream.resource<*>{%c64}) -> !stream.resource<*>{%c64}
  util.return %1, %2 : !stream.resource<*>, !stream.resource<*>
}
