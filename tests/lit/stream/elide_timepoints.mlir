// RUN: python -m rt opt --split-input-file --pass=iree-stream-elide-timepoints %s | filecheck %s

// Tests the seeds' example: %t1 awaited %t0, so the join of both is %t1.
// CHECK-LABEL: util.func public @seed
// CHECK: %[[T0:.+]] = stream.cmd.execute on(#hal.device.affinity<@dev>) with
// CHECK: %[[T1:.+]] = stream.cmd.execute on(#hal.device.affinity<@dev>) await(%[[T0]]) => with
// CHECK-NOT: stream.timepoint.join
// CHECK: %[[R:.+]] = stream.timepoint.await %[[T1]] => %arg0 : !stream.resource<external>{%c4}
// CHECK-NEXT: util.return %[[R]]
util.func public @seed(%arg0: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c0_i32 = arith.constant 0 : i32
  %t0 = stream.cmd.execute on(#hal.device.affinity<@dev>) with(%arg0 as %a: !stream.resource<external>{%c4}) {
    stream.cmd.fill %c0_i32, %a[%c0 for %c4] : i32 -> !stream.resource<external>{%c4}
  } => !stream.timepoint
  %t1 = stream.cmd.execute on(#hal.device.affinity<@dev>) await(%t0) => with(%arg0 as %b: !stream.resource<external>{%c4}) {
    stream.cmd.fill %c0_i32, %b[%c0 for %c4] : i32 -> !stream.resource<external>{%c4}
  } => !stream.timepoint
  %t2 = stream.timepoint.join max(%t0, %t1) => !stream.timepoint
  %r = stream.timepoint.await %t2 => %arg0 : !stream.resource<external>{%c4}
  util.return %r : !stream.resource<external>
}

// -----

// Tests that coverage propagates through timeline ops and selects: %exec0 is awaited by both
// %exec1a and %exec1b, so joins with either (or a select of them) drop it.
// CHECK-LABEL: util.func public @chained
// CHECK: %[[A:.+]] = stream.cmd.execute await(%[[E0:.+]]) =>
// CHECK: %[[B:.+]] = stream.cmd.execute await(%[[E0]]) =>
// CHECK: %[[J:.+]] = stream.timepoint.join max(%[[A]], %[[B]]) => !stream.timepoint
// CHECK: %[[S:.+]] = arith.select %cond, %[[A]], %[[B]] : !stream.timepoint
// CHECK-NEXT: util.return %[[J]], %[[S]]
util.func public @chained(%cond: i1, %r: !stream.resource<external>) -> (!stream.timepoint, !stream.timepoint) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c0_i32 = arith.constant 0 : i32
  %exec0 = stream.cmd.execute with(%r as %a: !stream.resource<external>{%c4}) {
    stream.cmd.fill %c0_i32, %a[%c0 for %c4] : i32 -> !stream.resource<external>{%c4}
  } => !stream.timepoint
  %exec1a = stream.cmd.execute await(%exec0) => with(%r as %b: !stream.resource<external>{%c4}) {
    stream.cmd.fill %c0_i32, %b[%c0 for %c4] : i32 -> !stream.resource<external>{%c4}
  } => !stream.timepoint
  %exec1b = stream.cmd.execute await(%exec0) => with(%r as %d: !stream.resource<external>{%c4}) {
    stream.cmd.fill %c0_i32, %d[%c0 for %c4] : i32 -> !stream.resource<external>{%c4}
  } => !stream.timepoint
  %join = stream.timepoint.join max(%exec0, %exec1a, %exec1b) => !stream.timepoint
  %select = arith.select %cond, %exec1a, %exec1b : !stream.timepoint
  %join2 = stream.timepoint.join max(%exec0, %select) => !stream.timepoint
  util.return %join, %join2 : !stream.timepoint, !stream.timepoint
}

// -----

// Tests that forward branches with convergent coverage elide (both edges cover %t0) while a
// back edge keeps the join.
// CHECK-LABEL: util.func public @forward
// CHECK: ^bb1(%[[ARG:.+]]: !stream.timepoint):
// CHECK-NEXT: util.return %[[ARG]]
// CHECK-LABEL: util.func public @back_edge
// CHECK: ^bb2(%[[T1:.+]]: !stream.timepoint):
// CHECK-NEXT: %[[J:.+]] = stream.timepoint.join max(%t0, %[[T1]]) => !stream.timepoint
util.func public @forward(%cond: i1, %t0: !stream.timepoint, %r: !stream.resource<transient>, %s: index) -> !stream.timepoint {
  %t1a = stream.timepoint.join max(%t0) => !stream.timepoint
  %t1b = stream.resource.dealloca await(%t0) => %r : !stream.resource<transient>{%s} => !stream.timepoint
  cf.cond_br %cond, ^bb1(%t1a : !stream.timepoint), ^bb1(%t1b : !stream.timepoint)
^bb1(%arg: !stream.timepoint):
  %join = stream.timepoint.join max(%t0, %arg) => !stream.timepoint
  util.return %join : !stream.timepoint
}
util.func public @back_edge(%cond: i1, %t0: !stream.timepoint, %r: !stream.resource<transient>, %s: index) -> !stream.timepoint {
  cf.br ^bb1(%t0 : !stream.timepoint)
^bb1(%bb1_t0: !stream.timepoint):
  %bb1_t1 = stream.cmd.execute await(%bb1_t0) => with(%r as %x: !stream.resource<transient>{%s}) {
    stream.cmd.discard %x[%s for %s] : !stream.resource<transient>{%s}
  } => !stream.timepoint
  cf.cond_br %cond, ^bb1(%bb1_t1 : !stream.timepoint), ^bb2(%bb1_t1 : !stream.timepoint)
^bb2(%bb2_t1: !stream.timepoint):
  %join = stream.timepoint.join max(%t0, %bb2_t1) => !stream.timepoint
  util.return %join : !stream.timepoint
}

// -----

// Tests immediates: a join of immediates, a global that only ever holds immediates and an
// scf.if yielding immediates on both sides all leave the execute's await list, and an await
// of an immediate forwards its resource.
// CHECK-LABEL: util.func private @immediates
// CHECK-NOT: util.global.load
// CHECK-NOT: stream.timepoint.join
// CHECK: %[[E:.+]] = stream.cmd.execute with(%arg0 as
// CHECK-NOT: stream.timepoint.await
// CHECK: util.return %arg0, %[[E]]
util.global private mutable @global = #stream.timepoint<immediate> : !stream.timepoint
util.func private @immediates(%arg0: !stream.resource<external>, %cond: i1) -> (!stream.resource<external>, !stream.timepoint) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c0_i32 = arith.constant 0 : i32
  %imm0 = stream.timepoint.immediate => !stream.timepoint
  %imm1 = stream.timepoint.immediate => !stream.timepoint
  %j = stream.timepoint.join max(%imm0, %imm1) => !stream.timepoint
  %g = util.global.load @global : !stream.timepoint
  %if = scf.if %cond -> (!stream.timepoint) {
    %i2 = stream.timepoint.immediate => !stream.timepoint
    scf.yield %i2 : !stream.timepoint
  } else {
    scf.yield %g : !stream.timepoint
  }
  %e = stream.cmd.execute await(%j, %if) => with(%arg0 as %a: !stream.resource<external>{%c4}) {
    stream.cmd.fill %c0_i32, %a[%c0 for %c4] : i32 -> !stream.resource<external>{%c4}
  } => !stream.timepoint
  %r = stream.timepoint.await %g => %arg0 : !stream.resource<external>{%c4}
  util.return %r, %e : !stream.resource<external>, !stream.timepoint
}
util.func private @set_global() {
  %imm = stream.timepoint.immediate => !stream.timepoint
  util.global.store %imm, @global : !stream.timepoint
  util.return
}

// -----

// Tests that a global stored from an unknown timepoint is not immediate.
// CHECK-LABEL: util.func private @divergent_global
// CHECK: %[[G:.+]] = util.global.load @global2 : !stream.timepoint
// CHECK-NEXT: util.return %[[G]]
util.global private mutable @global2 = #stream.timepoint<immediate> : !stream.timepoint
util.func private @divergent_global() -> !stream.timepoint {
  %g = util.global.load @global2 : !stream.timepoint
  util.return %g : !stream.timepoint
}
util.func public @store_unknown(%t: !stream.timepoint) {
  util.global.store %t, @global2 : !stream.timepoint
  util.return
}

// -----

// Tests that a covered await drops out of an await list, that the two independent awaits left
// become one join (the HAL conversion waits on one fence), and that affinities stay.
// CHECK-LABEL: util.func public @await_lists
// CHECK: %{{.+}}, %[[T1:.+]] = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev_a>) await(%a) => !stream.resource<transient>{%c64} => !stream.timepoint
// CHECK-NEXT: %[[J:.+]] = stream.timepoint.join max(%[[T1]], %b) => !stream.timepoint
// CHECK-NEXT: %{{.+}} = stream.cmd.execute on(#hal.device.affinity<@dev_b>) await(%[[J]]) => with
util.func public @await_lists(%a: !stream.timepoint, %b: !stream.timepoint) -> !stream.timepoint {
  %c64 = arith.constant 64 : index
  %r, %t1 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev_a>) await(%a) => !stream.resource<transient>{%c64} => !stream.timepoint
  %t2 = stream.cmd.execute on(#hal.device.affinity<@dev_b>) await(%t1, %a, %b) => with(%r as %x: !stream.resource<transient>{%c64}) {
    stream.cmd.discard %x[%c64 for %c64] : !stream.resource<transient>{%c64}
  } => !stream.timepoint
  util.return %t2 : !stream.timepoint
}

// -----

// Tests that an await moves down to its first consumer: the host submits @b's work before it
// blocks on @a's timepoint, instead of awaiting right after @a's region.
// CHECK-LABEL: util.func public @sink_await
// CHECK: %[[TA:.+]] = stream.cmd.execute on(#hal.device.affinity<@a>)
// CHECK-NOT: stream.timepoint.await
// CHECK: %[[TB:.+]] = stream.cmd.execute on(#hal.device.affinity<@b>)
// CHECK-NEXT: stream.cmd.fill
// CHECK-NEXT: } => !stream.timepoint
// CHECK-NEXT: %[[RA:.+]] = stream.timepoint.await %[[TA]] => %arg0 : !stream.resource<external>{%c4}
// CHECK-NEXT: %[[RB:.+]] = stream.timepoint.await %[[TB]] => %arg1 : !stream.resource<external>{%c4}
// CHECK-NEXT: util.return %[[RA]], %[[RB]]
util.func public @sink_await(%arg0: !stream.resource<external>, %arg1: !stream.resource<external>) -> (!stream.resource<external>, !stream.resource<external>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c0_i32 = arith.constant 0 : i32
  %ta = stream.cmd.execute on(#hal.device.affinity<@a>) with(%arg0 as %a: !stream.resource<external>{%c4}) {
    stream.cmd.fill %c0_i32, %a[%c0 for %c4] : i32 -> !stream.resource<external>{%c4}
  } => !stream.timepoint
  %ra = stream.timepoint.await %ta => %arg0 : !stream.resource<external>{%c4}
  %tb = stream.cmd.execute on(#hal.device.affinity<@b>) with(%arg1 as %b: !stream.resource<external>{%c4}) {
    stream.cmd.fill %c0_i32, %b[%c0 for %c4] : i32 -> !stream.resource<external>{%c4}
  } => !stream.timepoint
  %rb = stream.timepoint.await %tb => %arg1 : !stream.resource<external>{%c4}
  util.return %ra, %rb : !stream.resource<external>, !stream.resource<external>
}
