// RUN: python -m rt opt --split-input-file --pass=iree-stream-encode-host-tensors %s | filecheck %s

// Tests that sizeof folds to bytes (static and dynamic), empty becomes alloca and dispatch gets full byte ranges.
// CHECK-LABEL: util.func public @sizes
// CHECK: %[[C40:.+]] = arith.constant 40 : index
// CHECK-NEXT: %[[C16:.+]] = arith.constant 16 : index
// CHECK-NEXT: %[[DYN:.+]] = arith.muli %[[C16]], %n : index
// CHECK: %[[A:.+]] = stream.async.alloca : !stream.resource<*>{%[[DYN]]}
// CHECK: %[[Z:.+]] = arith.constant 0 : index
// CHECK: stream.async.dispatch @ex::@fn[%n](%[[A]][%[[Z]] to %[[DYN]] for %[[DYN]]], %n) : (!stream.resource<*>{%[[DYN]]}, index) -> %[[A]]{%[[DYN]]}
// CHECK: util.return %[[C40]]
util.func public @sizes(%n: index) -> index {
  %s = stream.tensor.sizeof tensor<10xf32> : index
  %d = stream.tensor.sizeof tensor<?x4xf32>{%n} : index
  %e = stream.tensor.empty : tensor<?x4xf32>{%n} in !stream.resource<*>{%d}
  %r = stream.tensor.dispatch @ex::@fn[%n](%e, %n) : (tensor<?x4xf32>{%n} in !stream.resource<*>{%d}, index) -> tensor<?x4xf32>{%n} in %e{%d}
  util.return %s : index
}

// -----

// Tests that sub-byte element types widen to whole bytes: 10 x i4 is 10 bytes and an i1 splat value is extended to i8.
// CHECK-LABEL: util.func public @subbyte
// CHECK: %[[C10:.+]] = arith.constant 10 : index
// CHECK: %[[W:.+]] = arith.extui %b : i1 to i8
// CHECK: stream.async.splat %[[W]] : i8 -> !stream.resource<*>{%[[C10]]}
util.func public @subbyte(%b: i1) {
  %s = stream.tensor.sizeof tensor<10xi4> : index
  %p = stream.tensor.splat %b : i1 -> tensor<10xi1> in !stream.resource<*>{%s}
  util.return
}

// -----

// Tests that clone, contiguous slice, update, fill, load and store get byte offsets in row-major order.
// CHECK-LABEL: util.func public @ranges
// CHECK: stream.async.clone %r : !stream.resource<*>{%c64} -> !stream.resource<*>{%c64}
// CHECK: %[[OFF:.+]] = arith.constant 32 : index
// CHECK: %[[END:.+]] = arith.constant 64 : index
// CHECK: %[[SL:.+]] = stream.async.slice %r[%[[OFF]] to %[[END]]] : !stream.resource<*>{%c64} -> !stream.resource<*>{%c32}
// CHECK: stream.async.update %[[SL]], %r[%{{.+}} to %{{.+}}] : !stream.resource<*>{%c32} -> %r as !stream.resource<*>{%c64}
// CHECK: %[[FO:.+]] = arith.constant 16 : index
// CHECK: %[[FE:.+]] = arith.constant 32 : index
// CHECK: %[[FL:.+]] = arith.constant 16 : index
// CHECK: stream.async.fill %f, %r[%[[FO]] to %[[FE]] for %[[FL]]] : f32 -> %r as !stream.resource<*>{%c64}
// CHECK: %[[LO:.+]] = arith.constant 36 : index
// CHECK: stream.async.load %r[%[[LO]]] : !stream.resource<*>{%c64} -> f32
util.func public @ranges(%r: !stream.resource<*>, %f: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %0 = stream.tensor.clone %r : tensor<4x4xf32> in !stream.resource<*>{%c64} -> tensor<16xf32> in !stream.resource<*>{%c64}
  %1 = stream.tensor.slice %r[%c2, %c0 for %c2, %c4] : tensor<4x4xf32> in !stream.resource<*>{%c64} -> tensor<2x4xf32> in !stream.resource<*>{%c32}
  %2 = stream.tensor.update %1, %r[%c2, %c0] : tensor<2x4xf32> in !stream.resource<*>{%c32} -> tensor<4x4xf32> in %r as !stream.resource<*>{%c64}
  %3 = stream.tensor.fill %f, %r[%c1, %c0 for %c1, %c4] : f32 -> tensor<4x4xf32> in %r as !stream.resource<*>{%c64}
  %4 = stream.tensor.load %r[%c2, %c1] : tensor<4x4xf32> in !stream.resource<*>{%c64} -> f32
  util.return
}

// -----

// Tests that a rank-0 tensor is one element (4 bytes for f32).
// CHECK-LABEL: util.func public @plain
// CHECK: arith.constant 4 : index
util.func public @plain() -> index {
  %s = stream.tensor.sizeof tensor<f32> : index
  util.return %s : index
}
