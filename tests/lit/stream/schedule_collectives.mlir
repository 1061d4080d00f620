// RUN: python -m rt opt --split-input-file --pass=iree-stream-schedule-execution %s | filecheck %s --check-prefix=EXEC
// RUN: python -m rt opt --split-input-file --pass=iree-stream-schedule-execution --pass=iree-stream-schedule-allocation %s | filecheck %s --check-prefix=ALLOC

// Tests that a collective is streamable: schedule-execution puts it into the execute region
// of its affinity with the alloca of its target; schedule-allocation records it as
// stream.cmd.collective reading the source (ro) and writing the result's storage (wo).
// EXEC-LABEL: util.func public @collective
// EXEC: stream.async.execute on(#hal.device.affinity<@dev>) with(%arg0 as %[[A:.+]]: !stream.resource<external>{%c16}) -> !stream.resource<external>{%c16} {
// EXEC-NEXT: %[[T:.+]] = stream.async.alloca on(#hal.device.affinity<@dev>) : !stream.resource<external>{%c16}
// EXEC-NEXT: %[[R:.+]] = stream.async.collective<all_reduce with sum : f32>[%c4] on(#hal.device.affinity<@dev>) channel(%ch) %[[A]][%c0 to %c16 for %c16], %[[T]][%c0 to %c16 for %c16]
// EXEC-NEXT: stream.yield %[[R]] : !stream.resource<external>{%c16}
// ALLOC-LABEL: util.func public @collective
// ALLOC: %[[OUT:.+]] = stream.resource.alloc uninitialized on(#hal.device.affinity<@dev>) : !stream.resource<external>{%c16}
// ALLOC: stream.cmd.execute on(#hal.device.affinity<@dev>) with(%arg0 as %[[A:.+]]: !stream.resource<external>{%c16}, %[[OUT]] as %[[B:.+]]: !stream.resource<external>{%c16}) {
// ALLOC-NEXT: stream.cmd.collective<all_reduce with sum : f32>[%c4] channel(%ch) {
// ALLOC-NEXT: ro %[[A]][%c0 for %c16] : !stream.resource<external>{%c16},
// ALLOC-NEXT: wo %[[B]][%{{.+}} for %c16] : !stream.resource<external>{%c16}
// ALLOC-NOT: stream.async
module {
  util.global private @dev : !hal.device
  util.func public @collective(%arg0: !stream.resource<external>) -> !stream.resource<external> {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %c16 = arith.constant 16 : index
    %ch = stream.channel.create on(#hal.device.affinity<@dev>) : !stream.channel
    %t = stream.async.alloca on(#hal.device.affinity<@dev>) : !stream.resource<external>{%c16}
    %r = stream.async.collective<all_reduce with sum : f32>[%c4] on(#hal.device.affinity<@dev>) channel(%ch) %arg0[%c0 to %c16 for %c16], %t[%c0 to %c16 for %c16] : !stream.resource<external>{%c16} -> %t as !stream.resource<external>{%c16}
    util.return %r : !stream.resource<external>
  }
}
