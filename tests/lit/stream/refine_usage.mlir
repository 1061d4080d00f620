// RUN: python -m rt opt --split-input-file --pass=iree-stream-refine-usage %s | filecheck %s

// Tests the seeds' @test: values reaching the import and the export become external, so both
// transfers copy nothing and are removed.
// CHECK-LABEL: util.func public @test
// CHECK: %[[I:.+]] = stream.tensor.import %arg0 : !hal.buffer_view -> tensor<10xf32> in !stream.resource<external>{%c40}
// CHECK-NEXT: %[[D:.+]] = stream.async.dispatch @ex::@fn[%c10](%[[I]][%c0 to %c40 for %c40]) : (!stream.resource<external>{%c40}) -> !stream.resource<external>{%c40}
// CHECK-NEXT: %[[E:.+]] = stream.tensor.export %[[D]] : tensor<10xf32> in !stream.resource<external>{%c40} -> !hal.buffer_view
// CHECK-NEXT: util.return %[[E]] : !hal.buffer_view
util.func public @test(%arg0: !hal.buffer_view) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c10 = arith.constant 10 : index
  %c40 = arith.constant 40 : index
  %0 = stream.tensor.import %arg0 : !hal.buffer_view -> tensor<10xf32> in !stream.resource<external>{%c40}
  %1 = stream.async.transfer %0 : !stream.resource<external>{%c40} -> !stream.resource<*>{%c40}
  %2 = stream.async.dispatch @ex::@fn[%c10](%1[%c0 to %c40 for %c40]) : (!stream.resource<*>{%c40}) -> !stream.resource<*>{%c40}
  %3 = stream.async.transfer %2 : !stream.resource<*>{%c40} -> !stream.resource<external>{%c40}
  %4 = stream.tensor.export %3 : tensor<10xf32> in !stream.resource<external>{%c40} -> !hal.buffer_view
  util.return %4 : !hal.buffer_view
}

// -----

// Tests that intermediate results are transient, that a constant read by a dispatch is used in
// place (its transfer goes), and that a transfer to staging for a host load is kept.
// CHECK-LABEL: util.func public @chain
// CHECK: %[[K:.+]] = stream.async.constant : !stream.resource<constant>{%c40}
// CHECK-NEXT: %[[A:.+]] = stream.async.dispatch @ex::@a(%[[K]][%c0 to %c40 for %c40]) : (!stream.resource<constant>{%c40}) -> !stream.resource<transient>{%c40}
// CHECK-NEXT: %[[B:.+]] = stream.async.dispatch @ex::@b(%[[A]][%c0 to %c40 for %c40]) : (!stream.resource<transient>{%c40}) -> !stream.resource<transient>{%c40}
// CHECK-NEXT: %[[S:.+]] = stream.async.transfer %[[B]] : !stream.resource<transient>{%c40} -> !stream.resource<staging>{%c40}
// CHECK-NEXT: stream.async.load %[[S]][%c0] : !stream.resource<staging>{%c40} -> f32
util.func public @chain() -> f32 {
  %c0 = arith.constant 0 : index
  %c40 = arith.constant 40 : index
  %k = stream.async.constant : !stream.resource<constant>{%c40} = dense<1.0> : tensor<10xf32>
  %0 = stream.async.transfer %k : !stream.resource<constant>{%c40} -> !stream.resource<*>{%c40}
  %1 = stream.async.dispatch @ex::@a(%0[%c0 to %c40 for %c40]) : (!stream.resource<*>{%c40}) -> !stream.resource<*>{%c40}
  %2 = stream.async.dispatch @ex::@b(%1[%c0 to %c40 for %c40]) : (!stream.resource<*>{%c40}) -> !stream.resource<*>{%c40}
  %3 = stream.async.transfer %2 : !stream.resource<*>{%c40} -> !stream.resource<staging>{%c40}
  %4 = stream.async.load %3[%c0] : !stream.resource<staging>{%c40} -> f32
  util.return %4 : f32
}

// -----

// Tests that a transfer whose result is updated in place is kept when its source is an import
// (the caller's buffer must not change), and that transfers between affinities are kept.
// CHECK-LABEL: util.func public @guarded
// CHECK: %[[I:.+]] = stream.tensor.import on(#hal.device.affinity<@a>) %arg0 : !hal.buffer_view -> tensor<4xi32> in !stream.resource<external>{%c16}
// CHECK-NEXT: %[[T:.+]] = stream.async.transfer %[[I]] : !stream.resource<external>{%c16} from(#hal.device.affinity<@a>) -> to(#hal.device.affinity<@a>) !stream.resource<transient>{%c16}
// CHECK-NEXT: %[[F:.+]] = stream.async.fill on(#hal.device.affinity<@a>) %c1_i32, %[[T]][%c0 to %c4 for %c4] : i32 -> %[[T]] as !stream.resource<transient>{%c16}
// CHECK-NEXT: %[[X:.+]] = stream.async.transfer %[[F]] : !stream.resource<transient>{%c16} from(#hal.device.affinity<@a>) -> to(#hal.device.affinity<@b>) !stream.resource<external>{%c16}
// CHECK-NEXT: stream.tensor.export on(#hal.device.affinity<@b>) %[[X]]
util.func public @guarded(%arg0: !hal.buffer_view) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c1_i32 = arith.constant 1 : i32
  %0 = stream.tensor.import on(#hal.device.affinity<@a>) %arg0 : !hal.buffer_view -> tensor<4xi32> in !stream.resource<external>{%c16}
  %1 = stream.async.transfer %0 : !stream.resource<external>{%c16} from(#hal.device.affinity<@a>) -> to(#hal.device.affinity<@a>) !stream.resource<*>{%c16}
  %2 = stream.async.fill on(#hal.device.affinity<@a>) %c1_i32, %1[%c0 to %c4 for %c4] : i32 -> %1 as !stream.resource<*>{%c16}
  %3 = stream.async.transfer %2 : !stream.resource<*>{%c16} from(#hal.device.affinity<@a>) -> to(#hal.device.affinity<@b>) !stream.resource<*>{%c16}
  %4 = stream.async.transfer %3 : !stream.resource<*>{%c16} from(#hal.device.affinity<@b>) -> to(#hal.device.affinity<@b>) !stream.resource<external>{%c16}
  %5 = stream.tensor.export on(#hal.device.affinity<@b>) %4 : tensor<4xi32> in !stream.resource<external>{%c16} -> !hal.buffer_view
  util.return %5 : !hal.buffer_view
}

// -----

// Tests that private functions get the lifetimes of their arguments and results in their
// signature, matching the call site, and that a global constant stays constant.
// CHECK: util.global private @g : !stream.resource<constant>
// CHECK-LABEL: util.func public @caller
// CHECK: %[[G:.+]] = util.global.load @g : !stream.resource<constant>
// CHECK-NEXT: %[[R:.+]] = util.call @callee(%[[G]]) : (!stream.resource<constant>) -> !stream.resource<external>
// CHECK-LABEL: util.func private @callee(%arg0: !stream.resource<constant>) -> !stream.resource<external>
// CHECK: stream.async.dispatch @ex::@fn(%arg0[%c0 to %c16 for %c16]) : (!stream.resource<constant>{%c16}) -> !stream.resource<external>{%c16}
util.global private @g : !stream.resource<constant>
util.func public @caller() -> !hal.buffer_view {
  %c16 = arith.constant 16 : index
  %0 = util.global.load @g : !stream.resource<constant>
  %1 = stream.async.transfer %0 : !stream.resource<constant>{%c16} -> !stream.resource<*>{%c16}
  %2 = util.call @callee(%1) : (!stream.resource<*>) -> !stream.resource<*>
  %3 = stream.async.transfer %2 : !stream.resource<*>{%c16} -> !stream.resource<external>{%c16}
  %4 = stream.tensor.export %3 : tensor<4xf32> in !stream.resource<external>{%c16} -> !hal.buffer_view
  util.return %4 : !hal.buffer_view
}
util.func private @callee(%arg0: !stream.resource<*>) -> !stream.resource<*> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %0 = stream.async.dispatch @ex::@fn(%arg0[%c0 to %c16 for %c16]) : (!stream.resource<*>{%c16}) -> !stream.resource<*>{%c16}
  util.return %0 : !stream.resource<*>
}
