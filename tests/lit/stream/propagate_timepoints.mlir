// RUN: python -m rt opt --split-input-file --pass=iree-stream-propagate-timepoints %s | filecheck %s

// Tests that a resource global gets a timepoint global, that the initializer stores the value
// before its await together with the region's timepoint, and that the function's region awaits
// the loaded timepoint instead of the host (the load's await disappears).
// CHECK-LABEL: util.global private @_constant : !stream.resource<constant>
// CHECK-NEXT: util.global private mutable @_constant__timepoint = #stream.timepoint<immediate> : !stream.timepoint
// CHECK: util.initializer {
// CHECK: %[[R:.+]], %[[T:.+]] = stream.async.execute
// CHECK-NOT: stream.timepoint.await
// CHECK: util.global.store %[[R]], @_constant : !stream.resource<constant>
// CHECK-NEXT: util.global.store %[[T]], @_constant__timepoint : !stream.timepoint
// CHECK-LABEL: util.func public @test
// CHECK: %[[GT:.+]] = util.global.load @_constant__timepoint : !stream.timepoint
// CHECK-NEXT: %[[G:.+]] = util.global.load @_constant : !stream.resource<constant>
// CHECK-NOT: stream.timepoint.await
// CHECK: stream.async.execute await(%[[GT]]) => with(%arg0 as %{{.+}}: !stream.resource<external>{%c40}, %[[G]] as %{{.+}}: !stream.resource<constant>{%c40})
// CHECK: stream.timepoint.await
module {
  util.global private @_constant : !stream.resource<constant>
  util.initializer {
    %c40 = arith.constant 40 : index
    %r, %t = stream.async.execute with() -> !stream.resource<constant>{%c40} {
      %cst = stream.async.constant : !stream.resource<constant>{%c40} = dense<1.0> : tensor<10xf32>
      stream.yield %cst : !stream.resource<constant>{%c40}
    } => !stream.timepoint
    %a = stream.timepoint.await %t => %r : !stream.resource<constant>{%c40}
    util.global.store %a, @_constant : !stream.resource<constant>
    util.return
  }
  util.func public @test(%arg0: !stream.resource<external>) -> !stream.resource<external> {
    %c0 = arith.constant 0 : index
    %c40 = arith.constant 40 : index
    %g = util.global.load @_constant : !stream.resource<constant>
    %r, %t = stream.async.execute with(%arg0 as %a: !stream.resource<external>{%c40}, %g as %b: !stream.resource<constant>{%c40}) -> !stream.resource<external>{%c40} {
      %0 = stream.async.dispatch @ex::@fn(%a[%c0 to %c40 for %c40], %b[%c0 to %c40 for %c40]) : (!stream.resource<external>{%c40}, !stream.resource<constant>{%c40}) -> !stream.resource<external>{%c40}
      stream.yield %0 : !stream.resource<external>{%c40}
    } => !stream.timepoint
    %w = stream.timepoint.await %t => %r : !stream.resource<external>{%c40}
    util.return %w : !stream.resource<external>
  }
}

// -----

// Tests that a region consuming the results of two earlier regions awaits the join of their
// timepoints and takes the un-awaited resources, so the host waits only at the end.
// CHECK-LABEL: util.func public @chain
// CHECK: %[[R1:.+]], %[[T1:.+]] = stream.async.execute
// CHECK: %[[R2:.+]], %[[T2:.+]] = stream.async.execute
// CHECK: %[[J:.+]] = stream.timepoint.join max(%[[T1]], %[[T2]]) => !stream.timepoint
// CHECK-NEXT: %[[R3:.+]], %[[T3:.+]] = stream.async.execute await(%[[J]]) => with(%[[R1]] as %{{.+}}: !stream.resource<transient>{%c16}, %[[R2]] as
// CHECK: %[[W:.+]] = stream.timepoint.await %[[T3]] => %[[R3]]
// CHECK-NEXT: util.return %[[W]]
util.func public @chain(%v: i32) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %r1, %t1 = stream.async.execute with() -> !stream.resource<transient>{%c16} {
    %0 = stream.async.splat %v : i32 -> !stream.resource<transient>{%c16}
    stream.yield %0 : !stream.resource<transient>{%c16}
  } => !stream.timepoint
  %a1 = stream.timepoint.await %t1 => %r1 : !stream.resource<transient>{%c16}
  %r2, %t2 = stream.async.execute with() -> !stream.resource<transient>{%c16} {
    %0 = stream.async.splat %v : i32 -> !stream.resource<transient>{%c16}
    stream.yield %0 : !stream.resource<transient>{%c16}
  } => !stream.timepoint
  %a2 = stream.timepoint.await %t2 => %r2 : !stream.resource<transient>{%c16}
  %r3, %t3 = stream.async.execute with(%a1 as %x: !stream.resource<transient>{%c16}, %a2 as %y: !stream.resource<transient>{%c16}) -> !stream.resource<external>{%c16} {
    %0 = stream.async.dispatch @ex::@add(%x[%c0 to %c16 for %c16], %y[%c0 to %c16 for %c16]) : (!stream.resource<transient>{%c16}, !stream.resource<transient>{%c16}) -> !stream.resource<external>{%c16}
    stream.yield %0 : !stream.resource<external>{%c16}
  } => !stream.timepoint
  %a3 = stream.timepoint.await %t3 => %r3 : !stream.resource<external>{%c16}
  util.return %a3 : !stream.resource<external>
}

// -----

// Tests that storing a value that was never awaited records an immediate timepoint.
// CHECK-LABEL: util.func public @store_immediate
// CHECK: %[[I:.+]] = stream.timepoint.immediate => !stream.timepoint
// CHECK-NEXT: util.global.store %arg0, @_var : !stream.resource<variable>
// CHECK-NEXT: util.global.store %[[I]], @_var__timepoint : !stream.timepoint
module {
  util.global private mutable @_var : !stream.resource<variable>
  util.func public @store_immediate(%arg0: !stream.resource<variable>) {
    util.global.store %arg0, @_var : !stream.resource<variable>
    util.return
  }
}
