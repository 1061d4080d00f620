// RUN: python -m rt opt --pass=verify %s | filecheck %s
// RUN: (python -m rt opt --pass=verify %S/verify_bad.mlir.in 2>&1; echo "exit=$?") | filecheck %s --check-prefix=BAD

// Tests that verify leaves a valid module unchanged.
// CHECK-LABEL: func.func @add
// CHECK: %[[R:.+]] = arith.addf %a, %b : tensor<4xf32>
// CHECK: func.return %[[R]] : tensor<4xf32>
func.func @add(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// Tests that an unsupported op is a located error naming the op and the alternatives.
// BAD: verify_bad.mlir.in:3:8: error: 'tensor.scatter' is not supported by rt; supported ops: {{.*}}tensor.cast
// BAD-NEXT: %0 = tensor.scatter
// BAD-NEXT: ^
// BAD-NEXT: exit=1
