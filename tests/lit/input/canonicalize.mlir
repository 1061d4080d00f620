// RUN: python -m rt opt --pass=canonicalize %s | filecheck %s

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
