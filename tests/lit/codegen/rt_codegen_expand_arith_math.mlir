// RUN: python -m rt opt --split-input-file --pass=rt-codegen-expand-arith-math %s | filecheck %s

// Tests that math.fpowi becomes a powf of the exponent converted with sitofp.
// CHECK-LABEL: func.func @fpowi
// CHECK: %[[N:.+]] = arith.sitofp %n : i32 to f32
// CHECK: %[[Y:.+]] = math.powf %x, %[[N]] : f32
// CHECK: func.return %[[Y]] : f32
// CHECK-NOT: math.fpowi
func.func @fpowi(%x: f32, %n: i32) -> f32 {
  %y = math.fpowi %x, %n : f32, i32
  return %y : f32
}

// -----

// Tests that arith.mulsi_extended on i32 gives the low word from muli and the high word from the i64 product shifted by 32.
// CHECK-LABEL: func.func @mulsi_extended
// CHECK: %[[LO:.+]] = arith.muli %a, %b : i32
// CHECK: %[[A:.+]] = arith.extsi %a : i32 to i64
// CHECK: %[[B:.+]] = arith.extsi %b : i32 to i64
// CHECK: %[[P:.+]] = arith.muli %[[A]], %[[B]] : i64
// CHECK: %[[C32:.+]] = arith.constant 32 : i64
// CHECK: %[[S:.+]] = arith.shrui %[[P]], %[[C32]] : i64
// CHECK: %[[HI:.+]] = arith.trunci %[[S]] : i64 to i32
// CHECK: func.return %[[LO]], %[[HI]] : i32, i32
func.func @mulsi_extended(%a: i32, %b: i32) -> (i32, i32) {
  %lo, %hi = arith.mulsi_extended %a, %b : i32
  return %lo, %hi : i32, i32
}

// -----

// Tests that arith.addui_extended is an addi and an unsigned compare of the sum with the first operand (the carry).
// CHECK-LABEL: func.func @addui_extended
// CHECK: %[[S:.+]] = arith.addi %a, %b : i8
// CHECK: %[[C:.+]] = arith.cmpi ult, %[[S]], %a : i8
// CHECK: func.return %[[S]], %[[C]] : i8, i1
func.func @addui_extended(%a: i8, %b: i8) -> (i8, i1) {
  %s, %c = arith.addui_extended %a, %b : i8, i1
  return %s, %c : i8, i1
}

// -----

// Tests that math.ipowi on i8 is square-and-multiply over the 8 exponent bits, then the negative-exponent select.
// CHECK-LABEL: func.func @ipowi
// CHECK-COUNT-8: arith.select
// CHECK: arith.cmpi slt, %n
// CHECK-NOT: math.ipowi
func.func @ipowi(%x: i8, %n: i8) -> i8 {
  %y = math.ipowi %x, %n : i8
  return %y : i8
}
