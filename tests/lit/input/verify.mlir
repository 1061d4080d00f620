// RUN: python -m rt opt --split-input-file --pass=verify %s | filecheck %s
// RUN: (python -m rt opt --pass=verify %S/verify_bad.mlir.in 2>&1; echo "exit=$?") | filecheck %s --check-prefix=BAD

// Tests that verify leaves a valid module unchanged.
// CHECK-LABEL: func.func @add
// CHECK: %[[R:.+]] = arith.addf %a, %b : tensor<4xf32>
// CHECK: func.return %[[R]] : tensor<4xf32>
func.func @add(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests that named ops with mixed element types (i8 x i8 -> i32, f16 -> f32) verify.
// CHECK-LABEL: func.func @mixed_types
// CHECK: linalg.matmul ins(%a, %b : tensor<2x3xi8>, tensor<3x2xi8>) outs(%c : tensor<2x2xi32>) -> tensor<2x2xi32>
// CHECK: linalg.matvec ins(%m, %v : tensor<4x3xf16>, tensor<3xf16>) outs(%y : tensor<4xf32>) -> tensor<4xf32>
func.func @mixed_types(%a: tensor<2x3xi8>, %b: tensor<3x2xi8>, %c: tensor<2x2xi32>,
                       %m: tensor<4x3xf16>, %v: tensor<3xf16>, %y: tensor<4xf32>) -> (tensor<2x2xi32>, tensor<4xf32>) {
  %0 = linalg.matmul ins(%a, %b : tensor<2x3xi8>, tensor<3x2xi8>) outs(%c : tensor<2x2xi32>) -> tensor<2x2xi32>
  %1 = linalg.matvec ins(%m, %v : tensor<4x3xf16>, tensor<3xf16>) outs(%y : tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<2x2xi32>, tensor<4xf32>
}

// -----

// Tests that tensor comparisons verify with i1 tensor results.
// CHECK-LABEL: func.func @compare
// CHECK: %[[C:.+]] = arith.cmpi slt, %a, %b : tensor<?xi32>
// CHECK: arith.select %[[C]], %a, %b : tensor<?xi1>, tensor<?xi32>
func.func @compare(%a: tensor<?xi32>, %b: tensor<?xi32>) -> tensor<?xi32> {
  %c = arith.cmpi slt, %a, %b : tensor<?xi32>
  %r = arith.select %c, %a, %b : tensor<?xi1>, tensor<?xi32>
  return %r : tensor<?xi32>
}

// Tests that an unsupported op is a located error naming the op and the alternatives.
// BAD: verify_bad.mlir.in:3:8: error: 'tensor.scatter' is not supported by rt; supported ops: {{.*}}tensor.cast
// BAD-NEXT: %0 = tensor.scatter
// BAD-NEXT: ^
// BAD-NEXT: exit=1
