// RUN: python -m rt opt %s | filecheck %s

// Tests that IREE's coarse-fences ABI round-trips in its printed form: #util.inline.never, hal.tensor.import wait(..) =>, hal.tensor.barrier, util.null, hal.fence.create/await.
// CHECK-LABEL: util.func public @f$async
// CHECK-SAME: attributes {inlining_policy = #util.inline.never, iree.abi.model = "coarse-fences", iree.abi.stub}
// CHECK: %[[X:.+]] = hal.tensor.import wait(%arg1) => %arg0 : !hal.buffer_view -> tensor<?x4xf32>{%d}
// CHECK: %[[C:.+]] = hal.tensor.import wait(%arg1) => consume %arg0 "c" : !hal.buffer_view -> tensor<?x4xf32>{%d}
// CHECK: %[[B:.+]], %{{.+}} = hal.tensor.barrier join(%[[X]], %[[C]] : tensor<?x4xf32>, tensor<?x4xf32>) => %arg2 : !hal.fence
// CHECK: hal.tensor.export %[[B]] : tensor<?x4xf32>{%d} -> !hal.buffer_view
// CHECK-LABEL: util.func public @f
// CHECK: %[[N:.+]] = util.null : !hal.fence
// CHECK: %[[F:.+]] = hal.fence.create device(%{{.+}} : !hal.device) flags({{"?None"?}}) : !hal.fence
// CHECK: util.call @f$async(%arg0, %[[N]], %[[F]])
// CHECK: hal.fence.await until([%[[F]]]) timeout_millis(%{{.+}}) flags({{"?None"?}}) : i32
util.func public @f$async(%arg0: !hal.buffer_view, %arg1: !hal.fence, %arg2: !hal.fence) -> !hal.buffer_view attributes {inlining_policy = #util.inline.never, iree.abi.model = "coarse-fences", iree.abi.stub} {
  %d = hal.buffer_view.dim<%arg0 : !hal.buffer_view>[0] : index
  %x = hal.tensor.import wait(%arg1) => %arg0 : !hal.buffer_view -> tensor<?x4xf32>{%d}
  %c = hal.tensor.import wait(%arg1) => consume %arg0 "c" : !hal.buffer_view -> tensor<?x4xf32>{%d}
  %b:2 = hal.tensor.barrier join(%x, %c : tensor<?x4xf32>, tensor<?x4xf32>) => %arg2 : !hal.fence
  %e = hal.tensor.export %b#0 : tensor<?x4xf32>{%d} -> !hal.buffer_view
  util.return %e : !hal.buffer_view
}
util.func public @f(%arg0: !hal.buffer_view) -> !hal.buffer_view attributes {iree.abi.stub} {
  %0 = util.null : !hal.fence
  %c-1_i32 = arith.constant -1 : i32
  %c0 = arith.constant 0 : index
  %device_0 = hal.devices.get %c0 : !hal.device
  %fence = hal.fence.create device(%device_0 : !hal.device) flags("None") : !hal.fence
  %1 = util.call @f$async(%arg0, %0, %fence) : (!hal.buffer_view, !hal.fence, !hal.fence) -> !hal.buffer_view
  %status = hal.fence.await until([%fence]) timeout_millis(%c-1_i32) flags("None") : i32
  util.return %1 : !hal.buffer_view
}
