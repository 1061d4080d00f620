// RUN: python -m rt opt --split-input-file --pass=iree-stream-schedule-concurrency %s | filecheck %s

// Tests that two dispatches reading the same operand form one concurrent wave whose results
// feed the third dispatch, which stays outside the concurrent region.
// CHECK-LABEL: util.func public @fork_join
// CHECK: stream.async.execute on(#hal.device.affinity<@dev>) with(%in as %[[A:.+]]: !stream.resource<external>{%c16})
// CHECK-NEXT: %[[C0:.+]], %[[C1:.+]] = stream.async.concurrent on(#hal.device.affinity<@dev>) with(%[[A]] as %[[B:.+]]: !stream.resource<external>{%c16}) -> (!stream.resource<transient>{%c16}, !stream.resource<transient>{%c16}) {
// CHECK-NEXT: %[[F:.+]] = stream.async.dispatch on(#hal.device.affinity<@dev>) @ex::@f(%[[B]][%c0 to %c16 for %c16])
// CHECK-NEXT: %[[G:.+]] = stream.async.dispatch on(#hal.device.affinity<@dev>) @ex::@g(%[[B]][%c0 to %c16 for %c16])
// CHECK-NEXT: stream.yield %[[F]], %[[G]] : !stream.resource<transient>{%c16}, !stream.resource<transient>{%c16}
// CHECK-NEXT: }
// CHECK-NEXT: %[[H:.+]] = stream.async.dispatch on(#hal.device.affinity<@dev>) @ex::@h(%[[C0]][%c0 to %c16 for %c16], %[[C1]][%c0 to %c16 for %c16])
// CHECK-NEXT: stream.yield %[[H]]
util.func public @fork_join(%in: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %r, %t = stream.async.execute on(#hal.device.affinity<@dev>) with(%in as %a: !stream.resource<external>{%c16}) -> !stream.resource<external>{%c16} {
    %1 = stream.async.dispatch on(#hal.device.affinity<@dev>) @ex::@f(%a[%c0 to %c16 for %c16]) : (!stream.resource<external>{%c16}) -> !stream.resource<transient>{%c16}
    %2 = stream.async.dispatch on(#hal.device.affinity<@dev>) @ex::@g(%a[%c0 to %c16 for %c16]) : (!stream.resource<external>{%c16}) -> !stream.resource<transient>{%c16}
    %3 = stream.async.dispatch on(#hal.device.affinity<@dev>) @ex::@h(%1[%c0 to %c16 for %c16], %2[%c0 to %c16 for %c16]) : (!stream.resource<transient>{%c16}, !stream.resource<transient>{%c16}) -> !stream.resource<external>{%c16}
    stream.yield %3 : !stream.resource<external>{%c16}
  } => !stream.timepoint
  %w = stream.timepoint.await %t => %r : !stream.resource<external>{%c16}
  util.return %w : !stream.resource<external>
}

// -----

// Tests that a chain of dependent ops is left unchanged (no concurrent region).
// CHECK-LABEL: util.func public @chain
// CHECK-NOT: stream.async.concurrent
// CHECK: stream.async.splat
// CHECK-NEXT: stream.async.dispatch
util.func public @chain(%v: i32) -> !stream.timepoint {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %r, %t = stream.async.execute with() -> !stream.resource<external>{%c16} {
    %1 = stream.async.splat %v : i32 -> !stream.resource<transient>{%c16}
    %2 = stream.async.dispatch @ex::@f(%1[%c0 to %c16 for %c16]) : (!stream.resource<transient>{%c16}) -> !stream.resource<external>{%c16}
    stream.yield %2 : !stream.resource<external>{%c16}
  } => !stream.timepoint
  util.return %t : !stream.timepoint
}

// -----

// Tests that an in-place fill waits for an earlier reader of the same resource: the read and
// an independent splat run concurrently, the fill comes after them.
// CHECK-LABEL: util.func public @write_after_read
// CHECK: %{{.+}}, %{{.+}} = stream.async.concurrent with(%{{.+}} as %[[B:.+]]: !stream.resource<external>{%c16})
// CHECK-NEXT: stream.async.dispatch @ex::@f(%[[B]]
// CHECK-NEXT: stream.async.splat
// CHECK: stream.async.fill %v, %{{.+}}[%c0 to %c16 for %c16]
util.func public @write_after_read(%in: !stream.resource<external>, %v: i32) -> !stream.timepoint {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %r:3, %t = stream.async.execute with(%in as %a: !stream.resource<external>{%c16}) -> (!stream.resource<external>{%c16}, !stream.resource<external>{%c16}, %in{%c16}) {
    %1 = stream.async.dispatch @ex::@f(%a[%c0 to %c16 for %c16]) : (!stream.resource<external>{%c16}) -> !stream.resource<external>{%c16}
    %2 = stream.async.splat %v : i32 -> !stream.resource<external>{%c16}
    %3 = stream.async.fill %v, %a[%c0 to %c16 for %c16] : i32 -> %a as !stream.resource<external>{%c16}
    stream.yield %1, %2, %3 : !stream.resource<external>{%c16}, !stream.resource<external>{%c16}, !stream.resource<external>{%c16}
  } => !stream.timepoint
  util.return %t : !stream.timepoint
}
