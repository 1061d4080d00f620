// RUN: python -m rt opt --split-input-file --pass=iree-hal-convert-to-hal %s | filecheck %s

// Tests that stream channels become hal.channel.create on the affinity's device (rank and
// count -1: the runtime's channel provider), split/rank/count go through i32, and a
// stream.cmd.collective records hal.command_buffer.collective with its send (ro) and receive
// (wo) ranges.
// CHECK-LABEL: util.func public @collective
// CHECK: %[[DEV:.+]] = util.global.load @dev : !hal.device
// CHECK: %[[CH:.+]] = hal.channel.create device(%[[DEV]] : !hal.device) affinity(%{{.+}}) flags(None) group("g") rank(%[[M1:.+]]) count(%[[M1]]) : !hal.channel
// CHECK: %[[RANK:.+]], %{{.+}} = hal.channel.rank_and_count<%[[CH]] : !hal.channel> : i32, i32
// CHECK: %[[R:.+]] = arith.index_cast %[[RANK]] : i32 to index
// CHECK: %{{.+}}, %[[COUNT:.+]] = hal.channel.rank_and_count<%[[CH]] : !hal.channel> : i32, i32
// CHECK: %[[COLOR:.+]] = arith.index_cast %[[R]] : index to i32
// CHECK: %[[SPLIT:.+]] = hal.channel.split<%[[CH]] : !hal.channel> color(%[[COLOR]]) key(%{{.+}}) flags(None) : !hal.channel
// CHECK: %[[CMD:.+]] = hal.command_buffer.create
// CHECK: hal.command_buffer.collective<%[[CMD]] : !hal.command_buffer> channel(%[[SPLIT]] : !hal.channel) op(<all_reduce with sum : f32>) send(%arg0 : !hal.buffer)[%c0, %c16] recv(%{{.+}} : !hal.buffer)[%c0, %c16] count(%c4) flags(None)
// CHECK: hal.command_buffer.finalize<%[[CMD]] : !hal.command_buffer>
module {
  util.global private @dev = #hal.device.target<"local", [#hal.executable.target<"vmvx", "vmvx-bytecode-fb">]> : !hal.device
  util.func public @collective(%arg0: !stream.resource<external>) -> (!stream.resource<external>, index) {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %c16 = arith.constant 16 : index
    %ch = stream.channel.create on(#hal.device.affinity<@dev>) group("g") : !stream.channel
    %r = stream.channel.rank %ch : index
    %n = stream.channel.count %ch : index
    %s = stream.channel.split %ch, %r, %n : !stream.channel -> !stream.channel
    %0 = stream.resource.alloc uninitialized on(#hal.device.affinity<@dev>) : !stream.resource<external>{%c16}
    %1 = stream.cmd.execute on(#hal.device.affinity<@dev>) with(%arg0 as %2: !stream.resource<external>{%c16}, %0 as %3: !stream.resource<external>{%c16}) {
      stream.cmd.collective<all_reduce with sum : f32>[%c4] channel(%s) {
        ro %2[%c0 for %c16] : !stream.resource<external>{%c16},
        wo %3[%c0 for %c16] : !stream.resource<external>{%c16}
      }
    } => !stream.timepoint
    %4 = stream.timepoint.await %1 => %0 : !stream.resource<external>{%c16}
    util.return %4, %r : !stream.resource<external>, index
  }
}
