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

// -----

// Tests that flow.tensor.dynamic_constant expands as IREE's ExpandDynamicShapeConstant does: a static constant, each dynamic dim behind an optimization barrier, and a reshape to the dynamic type.
// CHECK-LABEL: func.func @dynamic_constant
// CHECK-DAG: %[[CST:.+]] = flow.tensor.constant dense<[[1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 6.000000e+00]]> : tensor<2x3xf32>
// CHECK-DAG: %[[C2:.+]] = arith.constant 2 : index
// CHECK: %[[D0:.+]] = util.optimization_barrier %[[C2]] : index
// CHECK: %[[R:.+]] = flow.tensor.reshape %[[CST]] : tensor<2x3xf32> -> tensor<?x3xf32>{%[[D0]]}
// CHECK: func.return %[[R]] : tensor<?x3xf32>
func.func @dynamic_constant() -> tensor<?x3xf32> {
  %x = flow.tensor.dynamic_constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32> -> tensor<?x3xf32>
  return %x : tensor<?x3xf32>
}
