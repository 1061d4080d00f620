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

// Tests that i1 and odd widths widen to whole bytes (10 x i5 is 10 bytes, an i1 splat value is
// extended to i8) while i4 and i2 pack as IREE packs them: 10 x i4 is 5 bytes, 9 x i2 is
// ceil(18 / 8) = 3, a constant i4 splat of 3 fills bytes of 0x33 and a dynamic one multiplies
// its zero-extended value by 0x11.
// CHECK-LABEL: util.func public @subbyte
// CHECK: %[[C10:.+]] = arith.constant 10 : index
// CHECK: %[[W:.+]] = arith.extui %b : i1 to i8
// CHECK: stream.async.splat %[[W]] : i8 -> !stream.resource<*>{%[[C10]]}
// CHECK: %[[C5:.+]] = arith.constant 5 : index
// CHECK: %[[P:.+]] = arith.constant 51 : i8
// CHECK: stream.async.splat %[[P]] : i8 -> !stream.resource<*>{%[[C5]]}
// CHECK: %[[X:.+]] = arith.extui %v : i4 to i8
// CHECK: %[[R:.+]] = arith.constant 17 : i8
// CHECK: %[[M:.+]] = arith.muli %[[X]], %[[R]] : i8
// CHECK: stream.async.splat %[[M]] : i8 -> !stream.resource<*>{%[[C5]]}
// CHECK: %[[C3:.+]] = arith.constant 3 : index
// CHECK: stream.async.alloca : !stream.resource<*>{%[[C3]]}
util.func public @subbyte(%b: i1, %v: i4) {
  %s = stream.tensor.sizeof tensor<10xi5> : index
  %p = stream.tensor.splat %b : i1 -> tensor<10xi1> in !stream.resource<*>{%s}
  %s4 = stream.tensor.sizeof tensor<10xi4> : index
  %three = arith.constant 3 : i4
  %q = stream.tensor.splat %three : i4 -> tensor<10xi4> in !stream.resource<*>{%s4}
  %r = stream.tensor.splat %v : i4 -> tensor<10xi4> in !stream.resource<*>{%s4}
  %s2 = stream.tensor.sizeof tensor<9xi2> : index
  %e = stream.tensor.empty : tensor<9xi2> in !stream.resource<*>{%s2}
  util.return
}

// -----

// Tests that the 4-bit float f4E2M1FN packs like i4 (7 elements: 4 bytes) and bf16 / f8 splats
// fill with their bit patterns (1.5 : bf16 is 0x3FC0 = 16320; 1.5 : f8E4M3FN is 0x3C = 60).
// CHECK-LABEL: util.func public @small_floats
// CHECK: %[[C4:.+]] = arith.constant 4 : index
// CHECK: stream.async.alloca : !stream.resource<*>{%[[C4]]}
// CHECK: %[[B:.+]] = arith.constant 16320 : i16
// CHECK: stream.async.splat %[[B]] : i16
// CHECK: %[[F:.+]] = arith.constant 60 : i8
// CHECK: stream.async.splat %[[F]] : i8
util.func public @small_floats() {
  %s4 = stream.tensor.sizeof tensor<7xf4E2M1FN> : index
  %e = stream.tensor.empty : tensor<7xf4E2M1FN> in !stream.resource<*>{%s4}
  %sb = stream.tensor.sizeof tensor<8xbf16> : index
  %b = arith.constant 1.5 : bf16
  %pb = stream.tensor.splat %b : bf16 -> tensor<8xbf16> in !stream.resource<*>{%sb}
  %s8 = stream.tensor.sizeof tensor<8xf8E4M3FN> : index
  %f = arith.constant 1.5 : f8E4M3FN
  %pf = stream.tensor.splat %f : f8E4M3FN -> tensor<8xf8E4M3FN> in !stream.resource<*>{%s8}
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

// -----

// Tests that constant fill values fold to integer patterns (f16 bits as i16, i1 as i8, a 64-bit value with equal halves as i32) and that other 64-bit values stay i64 (f64 bitcast) for iree-stream-materialize-builtins.
// CHECK-LABEL: util.func public @patterns
// CHECK-NOT: arith.constant {{.*}} : f16
// CHECK-DAG: %[[H:.+]] = arith.constant -18432 : i16
// CHECK-DAG: stream.async.splat %[[H]] : i16 -> !stream.resource<*>{%c10}
// CHECK-DAG: %[[T:.+]] = arith.constant 1 : i8
// CHECK-DAG: stream.async.splat %[[T]] : i8 -> !stream.resource<*>{%c10}
// CHECK-DAG: %[[E:.+]] = arith.constant -1 : i32
// CHECK-DAG: stream.async.splat %[[E]] : i32 -> !stream.resource<*>{%c16}
// CHECK-DAG: %[[L:.+]] = arith.constant -9000000000 : i64
// CHECK-DAG: stream.async.splat %[[L]] : i64 -> !stream.resource<*>{%c16}
// CHECK-DAG: %[[D:.+]] = arith.constant 4609434218613702656 : i64
// CHECK-DAG: stream.async.splat %[[D]] : i64 -> !stream.resource<*>{%c16}
// CHECK-DAG: %[[B:.+]] = arith.bitcast %x : f64 to i64
// CHECK-DAG: stream.async.splat %[[B]] : i64 -> !stream.resource<*>{%c16}
util.func public @patterns(%x: f64) {
  %c10 = arith.constant 10 : index
  %c16 = arith.constant 16 : index
  %h = arith.constant -0.5 : f16
  %t = arith.constant true
  %e = arith.constant -1 : i64
  %l = arith.constant -9000000000 : i64
  %d = arith.constant 1.5 : f64
  %0 = stream.tensor.splat %h : f16 -> tensor<5xf16> in !stream.resource<*>{%c10}
  %1 = stream.tensor.splat %t : i1 -> tensor<10xi1> in !stream.resource<*>{%c10}
  %2 = stream.tensor.splat %e : i64 -> tensor<2xi64> in !stream.resource<*>{%c16}
  %3 = stream.tensor.splat %l : i64 -> tensor<2xi64> in !stream.resource<*>{%c16}
  %4 = stream.tensor.splat %d : f64 -> tensor<2xf64> in !stream.resource<*>{%c16}
  %5 = stream.tensor.splat %x : f64 -> tensor<2xf64> in !stream.resource<*>{%c16}
  util.return
}
