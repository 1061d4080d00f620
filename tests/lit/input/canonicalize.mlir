// RUN: python -m rt opt --split-input-file --pass=canonicalize %s | filecheck %s

// Tests that constant arithmetic folds and dead ops are erased.
// CHECK-LABEL: func.func @fold
// CHECK-NEXT: %[[C:.+]] = arith.constant 3 : index
// CHECK-NEXT: func.return %[[C]] : index
func.func @fold() -> index {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %s = arith.addi %c1, %c2 : index
  %dead = arith.muli %c1, %c2 : index
  return %s : index
}

// -----

// Tests that util.unfoldable_constant is neither folded into its users nor erased when unused.
// CHECK-LABEL: func.func @unfoldable
// CHECK-NEXT: %[[A:.+]] = util.unfoldable_constant dense<2.000000e+00> : tensor<4xf32>
// CHECK-NEXT: util.unfoldable_constant 7 : i32
// CHECK-NEXT: %[[S:.+]] = arith.addf %[[A]], %[[A]] : tensor<4xf32>
// CHECK-NEXT: func.return %[[S]] : tensor<4xf32>
func.func @unfoldable() -> tensor<4xf32> {
  %a = util.unfoldable_constant dense<2.0> : tensor<4xf32>
  %unused = util.unfoldable_constant 7 : i32
  %s = arith.addf %a, %a : tensor<4xf32>
  return %s : tensor<4xf32>
}
