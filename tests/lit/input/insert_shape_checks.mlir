// RUN: python -m rt opt --split-input-file --pass=rt-insert-shape-checks %s | filecheck %s

// Tests that a dynamic matmul asserts that its operands agree on every loop dim (K first).
// CHECK-LABEL: func.func @mm
// CHECK: %[[K1:.+]] = tensor.dim %b, %{{.+}} : tensor<?x?xf32>
// CHECK: %[[K0:.+]] = tensor.dim %a, %{{.+}} : tensor<?x?xf32>
// CHECK: %[[OK:.+]] = arith.cmpi eq, %[[K1]], %[[K0]] : index
// CHECK: cf.assert %[[OK]], "{{.*}}insert_shape_checks.mlir:14:8: linalg.matmul: operand 1 dim 0 must equal operand 0 dim 1 (both are loop dim d2)
// CHECK: cf.assert
// CHECK: cf.assert
// CHECK-NOT: cf.assert
// CHECK: linalg.matmul
func.func @mm(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// Tests that a cast from a dynamic dim to a static one asserts the size, and only that dim.
// CHECK-LABEL: func.func @cast
// CHECK: %[[D:.+]] = tensor.dim %a, %{{.+}} : tensor<?x4xf32>
// CHECK-NEXT: %[[TWO:.+]] = arith.constant 2 : index
// CHECK-NEXT: %[[OK:.+]] = arith.cmpi eq, %[[D]], %[[TWO]] : index
// CHECK-NEXT: cf.assert %[[OK]], "{{.*}}: tensor.cast: to tensor<2x4xf32>: dimension 0 of the source is not 2"
// CHECK-NEXT: tensor.cast
func.func @cast(%a: tensor<?x4xf32>) -> tensor<2x4xf32> {
  %r = tensor.cast %a : tensor<?x4xf32> to tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

// -----

// Tests that fully static ops get no checks (the types already agree).
// CHECK-LABEL: func.func @static
// CHECK-NOT: cf.assert
// CHECK: linalg.matmul
func.func @static(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %c: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<2x3xf32>, tensor<3x4xf32>) outs(%c : tensor<2x4xf32>) -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

// -----

// Tests that a dynamic extract_slice asserts non-negative offset and size and its end inside the source.
// CHECK-LABEL: func.func @ext
// CHECK: arith.cmpi sge, %o
// CHECK: cf.assert {{.*}}"{{.*}}: tensor.extract_slice: offset 0 is negative"
// CHECK: cf.assert {{.*}}"{{.*}}: tensor.extract_slice: size 0 is negative"
// CHECK: arith.cmpi slt
// CHECK: cf.assert {{.*}}"{{.*}}: tensor.extract_slice: the slice along dim 0 ends past the source"
// CHECK: tensor.extract_slice
func.func @ext(%s: tensor<?xf32>, %o: index, %n: index) -> tensor<?xf32> {
  %r = tensor.extract_slice %s[%o] [%n] [1] : tensor<?xf32> to tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// Tests that a concat of dynamic rows asserts each input's row length equals the static result's, else input 0's.
// CHECK-LABEL: func.func @cat
// CHECK: cf.assert {{.*}}"{{.*}}: tensor.concat: dim 1 of input 0 is not the result's 3"
// CHECK-NOT: cf.assert
// CHECK: tensor.concat dim(0) %a, %b
// CHECK: cf.assert {{.*}}"{{.*}}: tensor.concat: input 1 dim 1 must equal input 0 dim 1 (only dim 0 is concatenated)"
// CHECK-NOT: cf.assert
// CHECK: tensor.concat dim(0) %b, %a
func.func @cat(%a: tensor<2x?xf32>, %b: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %r = tensor.concat dim(0) %a, %b : (tensor<2x?xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  %s = tensor.concat dim(0) %b, %a : (tensor<?x3xf32>, tensor<2x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x3xf32>
}
