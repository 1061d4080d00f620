// RUN: python -m rt opt --pass=cse %s | filecheck %s

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
