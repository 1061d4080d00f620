// RUN: python -m rt opt --split-input-file --pass=iree-stream-layout-slices %s | filecheck %s

// Tests that the seeds' @predict transients ([0,2]=40, [1,2]=4, [2,4]=40, [3,4]=4) pack into 192 bytes at 0/64/128/0.
// CHECK-LABEL: util.func public @predict
// CHECK: %c4 = arith.constant 4 : index
// CHECK-NEXT: %[[O0:.+]] = arith.constant 0 : index
// CHECK-NEXT: %[[O64:.+]] = arith.constant 64 : index
// CHECK-NEXT: %[[O128:.+]] = arith.constant 128 : index
// CHECK-NEXT: %[[O0B:.+]] = arith.constant 0 : index
// CHECK-NEXT: %[[TOTAL:.+]] = arith.constant 192 : index
// CHECK-NEXT: util.return %[[TOTAL]], %[[O0]], %[[O64]], %[[O128]], %[[O0B]]
util.func public @predict() -> (index, index, index, index, index) {
  %c40 = arith.constant 40 : index
  %c4 = arith.constant 4 : index
  %p:5 = stream.resource.pack slices({
    [0, 2] = %c40,
    [1, 2] = %c4,
    [2, 4] = %c40,
    [3, 4] = %c4
  }) : index
  util.return %p#0, %p#1, %p#2, %p#3, %p#4 : index, index, index, index, index
}

// -----

// Tests that dynamic slices of one size share a bin when lifetimes do not intersect and get 64-byte aligned offsets.
// CHECK-LABEL: util.func public @dynamic
// CHECK: %[[BASE:.+]] = arith.constant 0 : index
// CHECK: %[[MASK:.+]] = arith.constant 63 : index
// CHECK: %[[BUMP:.+]] = arith.addi %n, %[[MASK]] : index
// CHECK: %[[NEG:.+]] = arith.constant -64 : index
// CHECK: %[[ALIGNED:.+]] = arith.andi %[[BUMP]], %[[NEG]] : index
// CHECK: %[[END1:.+]] = arith.addi %[[BASE]], %[[ALIGNED]] : index
// CHECK: %[[TOTAL:.+]] = arith.andi
// CHECK: util.return %[[TOTAL]], %[[BASE]], %[[BASE]]
util.func public @dynamic(%n: index) -> (index, index, index) {
  %p:3 = stream.resource.pack slices({
    [0, 1] = %n,
    [2, 3] = %n
  }) : index
  util.return %p#0, %p#1, %p#2 : index, index, index
}
