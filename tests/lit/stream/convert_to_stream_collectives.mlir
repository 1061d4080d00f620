// RUN: python -m rt opt --split-input-file --pass=iree-stream-convert-to-stream %s | filecheck %s

// Tests that flow channels become stream channels on the op's affinity and that an
// all_reduce becomes stream.async.collective writing its target resource in place, counting
// the whole buffer.
// CHECK-LABEL: util.func public @all_reduce
// CHECK: %[[CH:.+]] = stream.channel.create on(#hal.device.affinity<@dev>) : !stream.channel
// CHECK: %[[T:.+]] = stream.tensor.empty on(#hal.device.affinity<@dev>) : tensor<6xf32> in !stream.resource<*>{%[[TS:.+]]}
// CHECK: %[[N:.+]] = arith.constant 6 : index
// CHECK: stream.async.collective<all_reduce with maximum : f32>[%[[N]]] on(#hal.device.affinity<@dev>) channel(%[[CH]]) %{{.+}}[%{{.+}} to %{{.+}} for %{{.+}}], %[[T]][%{{.+}} to %[[TS]] for %[[TS]]] : !stream.resource<*>{%{{.+}}} -> %[[T]] as !stream.resource<*>{%[[TS]]}
module attributes {stream.affinity.default = #hal.device.affinity<@dev>} {
  util.global private @dev : !hal.device
  util.func public @all_reduce(%arg0: !hal.buffer_view) -> !hal.buffer_view {
    %0 = hal.tensor.import %arg0 : !hal.buffer_view -> tensor<6xf32>
    %ch = flow.channel.default : !flow.channel
    %e = flow.tensor.empty : tensor<6xf32>
    %1 = flow.collective.all_reduce maximum, f32, %e, %0, %ch : (tensor<6xf32>, tensor<6xf32>, !flow.channel) -> %e as tensor<6xf32>
    %2 = hal.tensor.export %1 : tensor<6xf32> -> !hal.buffer_view
    util.return %2 : !hal.buffer_view
  }
}

// -----

// Tests that all_gather counts one rank's contribution, that channel globals, loads, splits,
// ranks and counts change type, and that send_recv packs (recv << 16) | (send & 0xffff).
// CHECK-LABEL: util.global private @split : !stream.channel
// CHECK-LABEL: util.func public @gather_and_shift
// CHECK: %[[G:.+]] = util.global.load @split : !stream.channel
// CHECK: %[[R:.+]] = stream.channel.rank %[[G]] : index
// CHECK: %[[C:.+]] = stream.channel.count %[[G]] : index
// CHECK: %[[S:.+]] = stream.channel.split %[[G]], %[[R]], %[[C]] : !stream.channel -> !stream.channel
// CHECK: %[[N:.+]] = arith.constant 3 : index
// CHECK: stream.async.collective<all_gather : si32>[%[[N]]] on(#hal.device.affinity<@dev>) channel(%[[S]])
// CHECK: %[[LO:.+]] = arith.andi %{{.+}}, %{{.+}} : i32
// CHECK: %[[HI:.+]] = arith.shli %{{.+}}, %{{.+}} : i32
// CHECK: %[[P:.+]] = arith.ori %[[HI]], %[[LO]] : i32
// CHECK: stream.async.collective<send_recv : si32>[%{{.+}}] on(#hal.device.affinity<@dev>) channel(%[[S]]) source_target_pair(%[[P]])
module attributes {stream.affinity.default = #hal.device.affinity<@dev>} {
  util.global private @dev : !hal.device
  util.global private @split : !flow.channel
  util.func public @gather_and_shift(%arg0: !hal.buffer_view, %to: index, %from: index) -> !hal.buffer_view {
    %0 = hal.tensor.import %arg0 : !hal.buffer_view -> tensor<3xi32>
    %g = util.global.load @split : !flow.channel
    %r = flow.channel.rank %g : index
    %c = flow.channel.count %g : index
    %s = flow.channel.split %g, %r, %c : !flow.channel -> !flow.channel
    %e = flow.tensor.empty : tensor<6xi32>
    %1 = flow.collective.all_gather si32, %e, %0, %s : (tensor<6xi32>, tensor<3xi32>, !flow.channel) -> %e as tensor<6xi32>
    %e2 = flow.tensor.empty : tensor<6xi32>
    %2 = flow.collective.send_recv si32, %e2, %1, %s, %to, %from : (tensor<6xi32>, tensor<6xi32>, !flow.channel, index, index) -> %e2 as tensor<6xi32>
    %3 = hal.tensor.export %2 : tensor<6xi32> -> !hal.buffer_view
    util.return %3 : !hal.buffer_view
  }
}
