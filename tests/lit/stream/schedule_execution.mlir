// RUN: python -m rt opt --split-input-file --pass=iree-stream-schedule-execution %s | filecheck %s

// Tests that the seed's @predict chain of dispatches becomes one execution region: the import
// enters as an operand, intermediate results stay inside, and only the last result is yielded
// and awaited before the export.
// CHECK-LABEL: util.func public @predict
// CHECK: %[[IMP:.+]] = stream.tensor.import
// CHECK-NEXT: %[[R:.+]], %[[T:.+]] = stream.async.execute on(#hal.device.affinity<@dev>) with(%[[IMP]] as %[[ARG:.+]]: !stream.resource<external>{%c8}) -> !stream.resource<external>{%c40} {
// CHECK-NEXT: %[[D0:.+]] = stream.async.dispatch on(#hal.device.affinity<@dev>) @d0::@f0[%c1](%[[ARG]][%c0 to %c8 for %c8])
// CHECK-NEXT: %[[D1:.+]] = stream.async.dispatch on(#hal.device.affinity<@dev>) @d1::@f1[%c1](%[[D0]][%c0 to %c40 for %c40])
// CHECK-NEXT: stream.yield %[[D1]] : !stream.resource<external>{%c40}
// CHECK-NEXT: } => !stream.timepoint
// CHECK-NEXT: %[[A:.+]] = stream.timepoint.await %[[T]] => %[[R]] : !stream.resource<external>{%c40}
// CHECK-NEXT: stream.tensor.export on(#hal.device.affinity<@dev>) %[[A]]
util.func public @predict(%arg0: !hal.buffer_view) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c40 = arith.constant 40 : index
  %0 = stream.tensor.import on(#hal.device.affinity<@dev>) %arg0 : !hal.buffer_view -> tensor<1x2xf32> in !stream.resource<external>{%c8}
  %1 = stream.async.dispatch on(#hal.device.affinity<@dev>) @d0::@f0[%c1](%0[%c0 to %c8 for %c8]) : (!stream.resource<external>{%c8}) -> !stream.resource<transient>{%c40}
  %2 = stream.async.dispatch on(#hal.device.affinity<@dev>) @d1::@f1[%c1](%1[%c0 to %c40 for %c40]) : (!stream.resource<transient>{%c40}) -> !stream.resource<external>{%c40}
  %3 = stream.tensor.export on(#hal.device.affinity<@dev>) %2 : tensor<1x10xf32> in !stream.resource<external>{%c40} -> !hal.buffer_view
  util.return %3 : !hal.buffer_view
}

// -----

// Tests that work on two devices is never merged: each affinity gets its own region, and the
// consumer on @b receives the result of @a's region through its await.
// CHECK-LABEL: util.func public @two_devices
// CHECK: %[[RA:.+]], %[[TA:.+]] = stream.async.execute on(#hal.device.affinity<@a>) with() -> !stream.resource<transient>{%c16}
// CHECK-NEXT: stream.async.splat on(#hal.device.affinity<@a>)
// CHECK: %[[AA:.+]] = stream.timepoint.await %[[TA]] => %[[RA]]
// CHECK: stream.async.execute on(#hal.device.affinity<@b>) with(%[[AA]] as %{{.+}}: !stream.resource<transient>{%c16})
// CHECK-NEXT: stream.async.transfer
// CHECK-NEXT: stream.async.dispatch on(#hal.device.affinity<@b>)
util.func public @two_devices(%v: f32) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %0 = stream.async.splat on(#hal.device.affinity<@a>) %v : f32 -> !stream.resource<transient>{%c16}
  %1 = stream.async.transfer %0 : !stream.resource<transient>{%c16} from(#hal.device.affinity<@a>) -> to(#hal.device.affinity<@b>) !stream.resource<transient>{%c16}
  %2 = stream.async.dispatch on(#hal.device.affinity<@b>) @ex::@fn(%1[%c0 to %c16 for %c16]) : (!stream.resource<transient>{%c16}) -> !stream.resource<external>{%c16}
  util.return %2 : !stream.resource<external>
}

// -----

// Tests that a host op using a result closes the region: work after it goes into a second
// region that receives the awaited value; and that an in-place fill of an operand is tied.
// CHECK-LABEL: util.func public @split
// CHECK: %[[R0:.+]], %[[T0:.+]] = stream.async.execute with(%arg0 as %[[X:.+]]: !stream.resource<external>{%c16}) -> %arg0{%c16} {
// CHECK-NEXT: %[[F:.+]] = stream.async.fill %v, %[[X]][%c0 to %c16 for %c16]
// CHECK-NEXT: stream.yield %[[F]]
// CHECK: %[[A0:.+]] = stream.timepoint.await %[[T0]] => %[[R0]]
// CHECK-NEXT: %[[L:.+]] = stream.async.load %[[A0]][%c0]
// CHECK-NEXT: %[[S:.+]] = arith.addi %[[L]], %v
// CHECK-NEXT: stream.async.execute with() -> !stream.resource<external>{%c16} {
// CHECK-NEXT: stream.async.splat %[[S]]
util.func public @split(%arg0: !stream.resource<external>, %v: i32) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %0 = stream.async.fill %v, %arg0[%c0 to %c16 for %c16] : i32 -> %arg0 as !stream.resource<external>{%c16}
  %1 = stream.async.load %0[%c0] : !stream.resource<external>{%c16} -> i32
  %2 = arith.addi %1, %v : i32
  %3 = stream.async.splat %2 : i32 -> !stream.resource<external>{%c16}
  util.return %3 : !stream.resource<external>
}

// -----

// Tests that independent work of two devices is not chained: @a's own dispatch stays in a
// region that waits on nothing from @b, and the transfer of @b's result back to @a starts a
// second @a region (the only one that receives @b's awaited result).
// CHECK-LABEL: util.func public @independent
// CHECK: %[[RA:.+]], %[[TA:.+]] = stream.async.execute on(#hal.device.affinity<@a>) with() -> !stream.resource<external>{%c16} {
// CHECK-NEXT: stream.async.splat on(#hal.device.affinity<@a>)
// CHECK-NEXT: stream.async.dispatch on(#hal.device.affinity<@a>) @ex::@fa
// CHECK: %[[RB:.+]], %[[TB:.+]] = stream.async.execute on(#hal.device.affinity<@b>) with() -> !stream.resource<transient>{%c16} {
// CHECK-NEXT: stream.async.splat on(#hal.device.affinity<@b>)
// CHECK-NEXT: stream.async.dispatch on(#hal.device.affinity<@b>) @ex::@fb
// CHECK: %[[AB:.+]] = stream.timepoint.await %[[TB]] => %[[RB]]
// CHECK-NEXT: stream.async.execute on(#hal.device.affinity<@a>) with(%[[AB]] as %{{.+}}: !stream.resource<transient>{%c16}) -> !stream.resource<external>{%c16} {
// CHECK-NEXT: stream.async.transfer
// CHECK-NEXT: stream.yield
util.func public @independent(%v: f32) -> (!stream.resource<external>, !stream.resource<external>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %0 = stream.async.splat on(#hal.device.affinity<@a>) %v : f32 -> !stream.resource<transient>{%c16}
  %1 = stream.async.dispatch on(#hal.device.affinity<@a>) @ex::@fa(%0[%c0 to %c16 for %c16]) : (!stream.resource<transient>{%c16}) -> !stream.resource<external>{%c16}
  %2 = stream.async.splat on(#hal.device.affinity<@b>) %v : f32 -> !stream.resource<transient>{%c16}
  %3 = stream.async.dispatch on(#hal.device.affinity<@b>) @ex::@fb(%2[%c0 to %c16 for %c16]) : (!stream.resource<transient>{%c16}) -> !stream.resource<transient>{%c16}
  %4 = stream.async.transfer %3 : !stream.resource<transient>{%c16} from(#hal.device.affinity<@b>) -> to(#hal.device.affinity<@a>) !stream.resource<external>{%c16}
  util.return %1, %4 : !stream.resource<external>, !stream.resource<external>
}
