// RUN: python -m rt opt --split-input-file --pass=iree-stream-pack-constants %s | filecheck %s

// Tests the seed's initializer: one constant packed into a 64-byte composite buffer, mapped
// with try_map, staged and copied when mapping fails, and exposed as a subview; the
// constants' timepoint becomes the scf.if's.
// CHECK-LABEL: util.initializer
// CHECK: %[[BUF:.+]] = util.buffer.constant {alignment = 64 : index} : !util.buffer = #util.composite<64xi8, [dense<1.000000e+00> : tensor<10xf32>]>
// CHECK-NEXT: %[[Z:.+]] = arith.constant 0 : index
// CHECK-NEXT: %[[L:.+]] = arith.constant 64 : index
// CHECK-NEXT: %[[OK:.+]], %[[M:.+]] = stream.resource.try_map on(#hal.device.affinity<@dev>) %[[BUF]][%[[Z]]] : !util.buffer -> i1, !stream.resource<constant>{%[[L]]}
// CHECK-NEXT: %[[R:.+]], %[[T:.+]] = scf.if %[[OK]] -> (!stream.resource<constant>, !stream.timepoint) {
// CHECK-NEXT: %[[I:.+]] = stream.timepoint.immediate => !stream.timepoint
// CHECK-NEXT: scf.yield %[[M]], %[[I]]
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[S:.+]] = stream.resource.map %[[BUF]][%[[Z]]] : !util.buffer -> !stream.resource<staging>{%[[L]]}
// CHECK-NEXT: %[[A:.+]] = stream.resource.alloc uninitialized on(#hal.device.affinity<@dev>) : !stream.resource<constant>{%[[L]]}
// CHECK-NEXT: %[[E:.+]] = stream.cmd.execute on(#hal.device.affinity<@dev>) with(%[[S]] as %[[X:.+]]: !stream.resource<staging>{%[[L]]}, %[[A]] as %[[Y:.+]]: !stream.resource<constant>{%[[L]]}) {
// CHECK-NEXT: stream.cmd.copy %[[X]][%[[Z]]], %[[Y]][%[[Z]]], %[[L]] : !stream.resource<staging>{%[[L]]} -> !stream.resource<constant>{%[[L]]}
// CHECK-NEXT: } => !stream.timepoint
// CHECK-NEXT: scf.yield %[[A]], %[[E]]
// CHECK: %[[V:.+]] = stream.resource.subview %[[R]][%{{.+}}] : !stream.resource<constant>{%[[L]]} -> !stream.resource<constant>{%c40}
// CHECK: util.global.store %[[V]], @_constant : !stream.resource<constant>
// CHECK-NEXT: util.global.store %[[T]], @_constant__timepoint
module {
  util.global private @_constant : !stream.resource<constant>
  util.global private mutable @_constant__timepoint = #stream.timepoint<immediate> : !stream.timepoint
  util.initializer {
    %c40 = arith.constant 40 : index
    %r, %t = stream.resource.constants on(#hal.device.affinity<@dev>) :
      !stream.resource<constant>{%c40} = dense<1.0> : tensor<10xf32>
      => !stream.timepoint
    util.global.store %r, @_constant : !stream.resource<constant>
    util.global.store %t, @_constant__timepoint : !stream.timepoint
    util.return
  }
}

// -----

// Tests that two constants share one buffer at 64-byte aligned offsets with zero padding, and
// that a variable is always staged and copied (no try_map), the timepoints joined.
// CHECK-LABEL: util.func public @mixed
// CHECK: util.buffer.constant {alignment = 64 : index} : !util.buffer = #util.composite<128xi8, [dense<1> : tensor<3xi32>, dense<0> : vector<52xi8>, dense<2> : tensor<4xi32>]>
// CHECK: %[[OK:.+]], %{{.+}} = stream.resource.try_map
// CHECK: %[[C:.+]], %[[CT:.+]] = scf.if %[[OK]]
// CHECK: %[[C0:.+]] = arith.constant 0 : index
// CHECK-NEXT: stream.resource.subview %[[C]][%[[C0]]] : !stream.resource<constant>{%{{.+}}} -> !stream.resource<constant>{%c12}
// CHECK: %[[C64:.+]] = arith.constant 64 : index
// CHECK-NEXT: stream.resource.subview %[[C]][%[[C64]]] : !stream.resource<constant>{%{{.+}}} -> !stream.resource<constant>{%c16}
// CHECK: util.buffer.constant {alignment = 64 : index} : !util.buffer = #util.composite<64xi8, [dense<3> : tensor<2xi32>]>
// CHECK-NOT: try_map
// CHECK: stream.resource.map
// CHECK: %[[VT:.+]] = stream.cmd.execute
// CHECK: stream.resource.subview {{.+}} -> !stream.resource<variable>{%c8}
// CHECK: %[[J:.+]] = stream.timepoint.join max(%[[CT]], %[[VT]]) => !stream.timepoint
// CHECK-NEXT: util.return %[[J]]
util.func public @mixed() -> !stream.timepoint {
  %c8 = arith.constant 8 : index
  %c12 = arith.constant 12 : index
  %c16 = arith.constant 16 : index
  %r:3, %t = stream.resource.constants :
    !stream.resource<constant>{%c12} = dense<1> : tensor<3xi32>,
    !stream.resource<variable>{%c8} = dense<3> : tensor<2xi32>,
    !stream.resource<constant>{%c16} = dense<2> : tensor<4xi32>
    => !stream.timepoint
  util.return %t : !stream.timepoint
}

// -----

// Tests that parameter values are not packed: each scope's parameters are read by one stream.cmd.parameter.load (scope and key strings, offset 0, the constants' sizes) while the dense value is packed as before, and the timepoints are joined.
// CHECK-LABEL: util.initializer
// CHECK-DAG: %[[SCOPE:.+]] = util.buffer.constant : !util.buffer = "model"
// CHECK-DAG: %[[KW:.+]] = util.buffer.constant : !util.buffer = "w"
// CHECK-DAG: %[[KV:.+]] = util.buffer.constant : !util.buffer = "v"
// CHECK: %[[W:.+]], %[[V:.+]], %[[T1:.+]] = stream.cmd.parameter.load on(#hal.device.affinity<@dev>) {
// CHECK-NEXT: %[[SCOPE]]::%[[KW]][%[[Z:.+]]] : !stream.resource<constant>{%c16},
// CHECK-NEXT: %[[SCOPE]]::%[[KV]][%[[Z]]] : !stream.resource<variable>{%c8}
// CHECK-NEXT: } => !stream.timepoint
// CHECK: %[[KB:.+]] = util.buffer.constant : !util.buffer = "b"
// CHECK: %[[B:.+]], %[[T2:.+]] = stream.cmd.parameter.load on(#hal.device.affinity<@dev>) {
// CHECK-NEXT: %[[KB]][%{{.+}}] : !stream.resource<constant>{%c4}
// CHECK-NEXT: } => !stream.timepoint
// CHECK: util.buffer.constant {alignment = 64 : index} : !util.buffer = #util.composite<64xi8, [dense<2> : tensor<2xi32>]>
// CHECK: %[[J:.+]] = stream.timepoint.join max(%[[T1]], %[[T2]], %{{.+}}) => !stream.timepoint
// CHECK: util.global.store %[[W]], @w : !stream.resource<constant>
// CHECK: util.global.store %[[V]], @v : !stream.resource<variable>
// CHECK: util.global.store %[[B]], @b : !stream.resource<constant>
// CHECK: util.global.store %[[J]], @t : !stream.timepoint
module {
  util.global private @w : !stream.resource<constant>
  util.global private mutable @v : !stream.resource<variable>
  util.global private @b : !stream.resource<constant>
  util.global private @d : !stream.resource<constant>
  util.global private mutable @t = #stream.timepoint<immediate> : !stream.timepoint
  util.initializer {
    %c16 = arith.constant 16 : index
    %c8 = arith.constant 8 : index
    %c4 = arith.constant 4 : index
    %r:4, %tp = stream.resource.constants on(#hal.device.affinity<@dev>) :
      !stream.resource<constant>{%c16} = #stream.parameter.named<"model"::"w">,
      !stream.resource<variable>{%c8} = #stream.parameter.named<"model"::"v">,
      !stream.resource<constant>{%c4} = #stream.parameter.named<"b">,
      !stream.resource<constant>{%c8} = dense<2> : tensor<2xi32>
      => !stream.timepoint
    util.global.store %r#0, @w : !stream.resource<constant>
    util.global.store %r#1, @v : !stream.resource<variable>
    util.global.store %r#2, @b : !stream.resource<constant>
    util.global.store %r#3, @d : !stream.resource<constant>
    util.global.store %tp, @t : !stream.timepoint
    util.return
  }
}
