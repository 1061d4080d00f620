// RUN: python -m rt opt --split-input-file --pass=cse %s | filecheck %s

// Tests that two identical pure ops are merged into the first.
// CHECK-LABEL: func.func @dup
// CHECK: %[[X:.+]] = arith.addf %a, %b : tensor<4xf32>
// CHECK-NOT: arith.addf
// CHECK: arith.mulf %[[X]], %[[X]] : tensor<4xf32>
func.func @dup(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %a, %b : tensor<4xf32>
  %1 = arith.addf %a, %b : tensor<4xf32>
  %2 = arith.mulf %0, %1 : tensor<4xf32>
  return %2 : tensor<4xf32>
}

// -----

// Tests that two equal util.unfoldable_constant ops stay two ops (each is an opaque input).
// CHECK-LABEL: func.func @unfoldable
// CHECK: %[[A:.+]] = util.unfoldable_constant dense<1> : tensor<2xi32>
// CHECK: %[[B:.+]] = util.unfoldable_constant dense<1> : tensor<2xi32>
// CHECK: arith.addi %[[A]], %[[B]] : tensor<2xi32>
func.func @unfoldable() -> tensor<2xi32> {
  %a = util.unfoldable_constant dense<1> : tensor<2xi32>
  %b = util.unfoldable_constant dense<1> : tensor<2xi32>
  %s = arith.addi %a, %b : tensor<2xi32>
  return %s : tensor<2xi32>
}

// -----

// Tests that a nested region sees the ops before it (its addf is merged into the outer one), that
// what a region adds is forgotten when it ends (the else branch's mulf does not replace the later
// one), and that a function starts with an empty table (@other keeps its own addf).
// CHECK-LABEL: func.func @scopes
// CHECK: %[[S:.+]] = arith.addf %a, %b : f32
// CHECK: scf.if
// CHECK-NEXT: arith.mulf %[[S]], %[[S]] : f32
// CHECK: } else {
// CHECK-NEXT: arith.mulf %a, %a : f32
// CHECK: }
// CHECK-NEXT: %[[M:.+]] = arith.mulf %a, %a : f32
// CHECK-NEXT: arith.addf %[[S]], %[[M]] : f32
// CHECK-LABEL: func.func @other
// CHECK-NEXT: arith.addf %a, %b : f32
func.func @scopes(%c: i1, %a: f32, %b: f32) -> (f32, f32) {
  %0 = arith.addf %a, %b : f32
  %1 = scf.if %c -> (f32) {
    %2 = arith.addf %a, %b : f32
    %3 = arith.mulf %2, %2 : f32
    scf.yield %3 : f32
  } else {
    %4 = arith.mulf %a, %a : f32
    scf.yield %4 : f32
  }
  %5 = arith.mulf %a, %a : f32
  %6 = arith.addf %0, %5 : f32
  return %1, %6 : f32, f32
}
func.func @other(%a: f32, %b: f32) -> f32 {
  %0 = arith.addf %a, %b : f32
  return %0 : f32
}
