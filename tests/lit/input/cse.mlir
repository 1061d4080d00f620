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
