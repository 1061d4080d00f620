// RUN: python -m rt opt --split-input-file --pass=iree-stream-schedule-allocation %s | filecheck %s

// Tests the seed's @predict shape: the yielded result gets stream.resource.alloc, the two
// intermediates become slices of one transient alloca sized by stream.resource.pack (lifetime
// intervals over the region's ops), dispatches read `ro` and write `wo` ranges, and the
// transient is released after the commands with the region's timepoint joining both.
// CHECK-LABEL: util.func public @predict
// CHECK: %[[OUT:.+]] = stream.resource.alloc uninitialized on(#hal.device.affinity<@dev>) : !stream.resource<external>{%c40}
// CHECK-NEXT: %[[P:.+]], %[[O1:.+]], %[[O2:.+]] = stream.resource.pack on(#hal.device.affinity<@dev>) slices({
// CHECK-NEXT: [0, 2] = %c40,
// CHECK-NEXT: [1, 2] = %c4
// CHECK-NEXT: }) : index
// CHECK-NEXT: %[[TR:.+]], %[[TT:.+]] = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev>) : !stream.resource<transient>{%[[P]]} => !stream.timepoint
// CHECK-NEXT: %[[Z:.+]] = arith.constant 0 : index
// CHECK-NEXT: %[[E:.+]] = stream.cmd.execute on(#hal.device.affinity<@dev>) await(%[[TT]]) => with(%arg0 as %[[A:.+]]: !stream.resource<external>{%c8}, %[[OUT]] as %[[B:.+]]: !stream.resource<external>{%c40}, %[[TR]] as %[[C:.+]]: !stream.resource<transient>{%[[P]]}) {
// CHECK-NEXT: stream.cmd.dispatch @d0::@f0[%c1] {
// CHECK-NEXT: ro %[[A]][%c0 for %c8] : !stream.resource<external>{%c8},
// CHECK-NEXT: wo %[[C]][%[[O1]] for %c40] : !stream.resource<transient>{%[[P]]}
// CHECK: stream.cmd.dispatch @d1::@f1[%c1] {
// CHECK-NEXT: ro %[[C]][%[[O1]] for %c40] : !stream.resource<transient>{%[[P]]},
// CHECK-NEXT: wo %[[C]][%[[O2]] for %c4] : !stream.resource<transient>{%[[P]]}
// CHECK: stream.cmd.dispatch @d2::@f2[%c1](%n : index) {
// CHECK-NEXT: ro %[[C]][%[[O1]] for %c40] : !stream.resource<transient>{%[[P]]},
// CHECK-NEXT: ro %[[C]][%[[O2]] for %c4] : !stream.resource<transient>{%[[P]]},
// CHECK-NEXT: wo %[[B]][%[[Z]] for %c40] : !stream.resource<external>{%c40}
// CHECK: } => !stream.timepoint
// CHECK-NEXT: %[[D:.+]] = stream.resource.dealloca on(#hal.device.affinity<@dev>) await(%[[E]]) => %[[TR]] : !stream.resource<transient>{%[[P]]} => !stream.timepoint
// CHECK-NEXT: %[[J:.+]] = stream.timepoint.join max(%[[D]], %[[E]]) => !stream.timepoint
// CHECK-NEXT: %[[W:.+]] = stream.timepoint.await %[[J]] => %[[OUT]] : !stream.resource<external>{%c40}
// CHECK-NOT: stream.async
util.func public @predict(%arg0: !stream.resource<external>, %n: index) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c40 = arith.constant 40 : index
  %r, %t = stream.async.execute on(#hal.device.affinity<@dev>) with(%arg0 as %a: !stream.resource<external>{%c8}) -> !stream.resource<external>{%c40} {
    %0 = stream.async.dispatch on(#hal.device.affinity<@dev>) @d0::@f0[%c1](%a[%c0 to %c8 for %c8]) : (!stream.resource<external>{%c8}) -> !stream.resource<transient>{%c40}
    %1 = stream.async.dispatch on(#hal.device.affinity<@dev>) @d1::@f1[%c1](%0[%c0 to %c40 for %c40]) : (!stream.resource<transient>{%c40}) -> !stream.resource<transient>{%c4}
    %2 = stream.async.dispatch on(#hal.device.affinity<@dev>) @d2::@f2[%c1](%0[%c0 to %c40 for %c40], %1[%c0 to %c4 for %c4], %n) : (!stream.resource<transient>{%c40}, !stream.resource<transient>{%c4}, index) -> !stream.resource<external>{%c40}
    stream.yield %2 : !stream.resource<external>{%c40}
  } => !stream.timepoint
  %w = stream.timepoint.await %t => %r : !stream.resource<external>{%c40}
  util.return %w : !stream.resource<external>
}

// -----

// Tests that a region yielding only a constant becomes stream.resource.constants plus an empty
// command region, the result aliasing the constant and the timepoint joining both (seed 000).
// CHECK-LABEL: util.initializer
// CHECK: %[[C:.+]], %[[CT:.+]] = stream.resource.constants :
// CHECK-NEXT: !stream.resource<constant>{%c40} = dense<1.000000e+00> : tensor<10xf32>
// CHECK-NEXT: => !stream.timepoint
// CHECK-NEXT: %[[E:.+]] = stream.cmd.execute await(%[[CT]]) => with(%[[C]] as %{{.+}}: !stream.resource<constant>{%c40}) {
// CHECK-NEXT: } => !stream.timepoint
// CHECK-NEXT: %[[J:.+]] = stream.timepoint.join max(%[[E]], %[[CT]]) => !stream.timepoint
// CHECK-NEXT: util.global.store %[[C]], @_constant : !stream.resource<constant>
// CHECK-NEXT: util.global.store %[[J]], @_constant__timepoint : !stream.timepoint
module {
  util.global private @_constant : !stream.resource<constant>
  util.global private mutable @_constant__timepoint = #stream.timepoint<immediate> : !stream.timepoint
  util.initializer {
    %c40 = arith.constant 40 : index
    %r, %t = stream.async.execute with() -> !stream.resource<constant>{%c40} {
      %cst = stream.async.constant : !stream.resource<constant>{%c40} = dense<1.0> : tensor<10xf32>
      stream.yield %cst : !stream.resource<constant>{%c40}
    } => !stream.timepoint
    util.global.store %r, @_constant : !stream.resource<constant>
    util.global.store %t, @_constant__timepoint : !stream.timepoint
    util.return
  }
}

// -----

// Tests that splat/fill/update/slice become fill and copy commands, that an in-place fill of
// an operand writes the operand's own range (tied result, no allocation), and that a
// concurrent region becomes stream.cmd.concurrent; async.load becomes stream.resource.load.
// CHECK-LABEL: util.func public @transfers
// CHECK: %[[T:.+]], %[[TT:.+]] = stream.resource.alloca uninitialized : !stream.resource<transient>
// CHECK: %[[E:.+]] = stream.cmd.execute await(%[[TT]]) => with(%arg0 as %[[A:.+]]: !stream.resource<external>{%c64}, %[[T]] as %[[X:.+]]: !stream.resource<transient>{%{{.+}}}) {
// CHECK-NEXT: stream.cmd.concurrent {
// CHECK-NEXT: stream.cmd.fill %v, %[[X]][%{{.+}} for %c16] : i32 -> !stream.resource<transient>
// CHECK-NEXT: stream.cmd.copy %[[A]][%c16], %[[X]][%{{.+}}], %c16 : !stream.resource<external>{%c64} -> !stream.resource<transient>
// CHECK-NEXT: }
// CHECK-NEXT: stream.cmd.copy %[[X]][%{{.+}}], %[[A]][%c32], %c16 : !stream.resource<transient>{%{{.+}}} -> !stream.resource<external>{%c64}
// CHECK-NEXT: stream.cmd.fill %v, %[[A]][%c0 for %c16] : i32 -> !stream.resource<external>{%c64}
// CHECK: stream.timepoint.await %{{.+}} => %arg0 : !stream.resource<external>{%c64}
// CHECK: stream.resource.load %{{.+}}[%c0] : !stream.resource<external>{%c64} -> i32
util.func public @transfers(%arg0: !stream.resource<external>, %v: i32) -> i32 {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c48 = arith.constant 48 : index
  %c64 = arith.constant 64 : index
  %r, %t = stream.async.execute with(%arg0 as %a: !stream.resource<external>{%c64}) -> %arg0{%c64} {
    %s:2 = stream.async.concurrent with(%a as %b: !stream.resource<external>{%c64}) -> (!stream.resource<transient>{%c16}, !stream.resource<transient>{%c16}) {
      %0 = stream.async.splat %v : i32 -> !stream.resource<transient>{%c16}
      %1 = stream.async.slice %b[%c16 to %c32] : !stream.resource<external>{%c64} -> !stream.resource<transient>{%c16}
      stream.yield %0, %1 : !stream.resource<transient>{%c16}, !stream.resource<transient>{%c16}
    }
    %2 = stream.async.update %s#1, %a[%c32 to %c48] : !stream.resource<transient>{%c16} -> %a as !stream.resource<external>{%c64}
    %3 = stream.async.fill %v, %2[%c0 to %c16 for %c16] : i32 -> %2 as !stream.resource<external>{%c64}
    stream.yield %3 : !stream.resource<external>{%c64}
  } => !stream.timepoint
  %w = stream.timepoint.await %t => %r : !stream.resource<external>{%c64}
  %x = stream.async.load %w[%c0] : !stream.resource<external>{%c64} -> i32
  util.return %x : i32
}
