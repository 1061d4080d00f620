// RUN: python -m rt opt --split-input-file --pass=iree-stream-elide-async-copies %s | filecheck %s

// Tests that a clone whose source is not used after it is removed (the update then works in
// place), while a clone whose source is read later is kept.
// CHECK-LABEL: util.func public @last_use
// CHECK: %[[D:.+]] = stream.async.dispatch @ex::@fn(%[[S:.+]][%c0 to %c64 for %c64])
// CHECK-NEXT: %[[C:.+]] = stream.async.clone %[[S]] : !stream.resource<*>{%c64} -> !stream.resource<*>{%c64}
// CHECK-NEXT: stream.async.fill %c1_i32, %[[C]][%c0 to %c16 for %c16] : i32 -> %[[C]] as !stream.resource<*>{%c64}
// CHECK-NEXT: stream.async.dispatch @ex::@fn(%[[S]][%c0 to %c64 for %c64])
// CHECK-NEXT: stream.async.fill %c1_i32, %[[D]][%c0 to %c16 for %c16] : i32 -> %[[D]] as !stream.resource<*>{%c64}
// CHECK-NOT: stream.async.clone
util.func public @last_use() -> (!stream.resource<*>, !stream.resource<*>, !stream.resource<*>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c1_i32 = arith.constant 1 : i32
  %s = stream.async.splat %c1_i32 : i32 -> !stream.resource<*>{%c64}
  %0 = stream.async.dispatch @ex::@fn(%s[%c0 to %c64 for %c64]) : (!stream.resource<*>{%c64}) -> !stream.resource<*>{%c64}
  %1 = stream.async.clone %s : !stream.resource<*>{%c64} -> !stream.resource<*>{%c64}
  %2 = stream.async.fill %c1_i32, %1[%c0 to %c16 for %c16] : i32 -> %1 as !stream.resource<*>{%c64}
  %3 = stream.async.dispatch @ex::@fn(%s[%c0 to %c64 for %c64]) : (!stream.resource<*>{%c64}) -> !stream.resource<*>{%c64}
  %4 = stream.async.clone %0 : !stream.resource<*>{%c64} -> !stream.resource<*>{%c64}
  %5 = stream.async.fill %c1_i32, %4[%c0 to %c16 for %c16] : i32 -> %4 as !stream.resource<*>{%c64}
  util.return %2, %3, %5 : !stream.resource<*>, !stream.resource<*>, !stream.resource<*>
}

// -----

// Tests that lifetime-changing clones stay, that arguments of public functions are by-reference
// (kept), and that an argument of a private function whose every caller passes a last use is
// moved in (its clone goes).
// CHECK-LABEL: util.func public @entry
// CHECK: stream.async.clone %arg0 : !stream.resource<*>{%c64} -> !stream.resource<*>{%c64}
// CHECK: stream.async.clone %{{.+}} : !stream.resource<constant>{%c64} -> !stream.resource<*>{%c64}
// CHECK: util.call @callee(%{{.+}}) : (!stream.resource<*>) -> !stream.resource<*>
// CHECK-LABEL: util.func private @callee
// CHECK-NOT: stream.async.clone
// CHECK: stream.async.fill %c1_i32, %arg0[%c0 to %c16 for %c16] : i32 -> %arg0 as !stream.resource<*>{%c64}
util.func public @entry(%arg0: !stream.resource<*>) -> (!stream.resource<*>, !stream.resource<*>, !stream.resource<*>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c1_i32 = arith.constant 1 : i32
  %0 = stream.async.clone %arg0 : !stream.resource<*>{%c64} -> !stream.resource<*>{%c64}
  %1 = stream.async.fill %c1_i32, %0[%c0 to %c16 for %c16] : i32 -> %0 as !stream.resource<*>{%c64}
  %k = stream.async.constant : !stream.resource<constant>{%c64} = dense<1> : tensor<16xi32>
  %2 = stream.async.clone %k : !stream.resource<constant>{%c64} -> !stream.resource<*>{%c64}
  %3 = stream.async.fill %c1_i32, %2[%c0 to %c16 for %c16] : i32 -> %2 as !stream.resource<*>{%c64}
  %s = stream.async.splat %c1_i32 : i32 -> !stream.resource<*>{%c64}
  %4 = util.call @callee(%s) : (!stream.resource<*>) -> !stream.resource<*>
  util.return %1, %3, %4 : !stream.resource<*>, !stream.resource<*>, !stream.resource<*>
}
util.func private @callee(%arg0: !stream.resource<*>) -> !stream.resource<*> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c1_i32 = arith.constant 1 : i32
  %0 = stream.async.clone %arg0 : !stream.resource<*>{%c64} -> !stream.resource<*>{%c64}
  %1 = stream.async.fill %c1_i32, %0[%c0 to %c16 for %c16] : i32 -> %0 as !stream.resource<*>{%c64}
  util.return %1 : !stream.resource<*>
}

// -----

// Tests that a clone inside a loop body of a value defined outside it is kept (the loop may
// read the value again on the next iteration).
// CHECK-LABEL: util.func public @loop
// CHECK: scf.for
// CHECK-NEXT: stream.async.clone
util.func public @loop(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c1_i32 = arith.constant 1 : i32
  %s = stream.async.splat %c1_i32 : i32 -> !stream.resource<*>{%c64}
  scf.for %i = %c0 to %n step %c1 {
    %0 = stream.async.clone %s : !stream.resource<*>{%c64} -> !stream.resource<*>{%c64}
    %1 = stream.async.fill %c1_i32, %0[%c0 to %c16 for %c16] : i32 -> %0 as !stream.resource<*>{%c64}
    scf.yield
  }
  util.return
}

// -----

// Tests that a slice only read by a dispatch folds into the dispatch as a sub-range of its
// source (offsets added), when no other user of the source writes it.
// CHECK-LABEL: util.func public @slice
// CHECK-NOT: stream.async.slice
// CHECK: %[[E:.+]] = arith.addi %c16, %c32 : index
// CHECK: stream.async.dispatch @ex::@fn(%[[S:.+]][%c16 to %[[E]] for %c32]) : (!stream.resource<*>{%c64}) -> !stream.resource<*>{%c32}
// CHECK: stream.async.dispatch @ex::@fn(%[[S]][%c0 to %c64 for %c64])
util.func public @slice() -> (!stream.resource<*>, !stream.resource<*>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c48 = arith.constant 48 : index
  %c64 = arith.constant 64 : index
  %c1_i32 = arith.constant 1 : i32
  %s = stream.async.splat %c1_i32 : i32 -> !stream.resource<*>{%c64}
  %0 = stream.async.slice %s[%c16 to %c48] : !stream.resource<*>{%c64} -> !stream.resource<*>{%c32}
  %1 = stream.async.dispatch @ex::@fn(%0[%c0 to %c32 for %c32]) : (!stream.resource<*>{%c32}) -> !stream.resource<*>{%c32}
  %2 = stream.async.dispatch @ex::@fn(%s[%c0 to %c64 for %c64]) : (!stream.resource<*>{%c64}) -> !stream.resource<*>{%c64}
  util.return %1, %2 : !stream.resource<*>, !stream.resource<*>
}
