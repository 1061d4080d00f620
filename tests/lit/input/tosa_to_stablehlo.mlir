// RUN: python -m rt opt --split-input-file --pass=rt-tosa-to-stablehlo %s | filecheck %s

// Tests that a broadcasting TOSA add becomes stablehlo.broadcast_in_dim of the size-1 operand and a stablehlo.add.
// CHECK-LABEL: func.func @add
// CHECK: %[[B:.+]] = stablehlo.broadcast_in_dim %b, dims = [0, 1] : (tensor<1x3xf32>) -> tensor<2x3xf32>
// CHECK: stablehlo.add %a, %[[B]] : tensor<2x3xf32>
func.func @add(%a: tensor<2x3xf32>, %b: tensor<1x3xf32>) -> tensor<2x3xf32> {
  %0 = tosa.add %a, %b : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Tests that tosa.matmul becomes a batched dot_general and a keep-dims reduce a reduce plus reshape.
// CHECK-LABEL: func.func @matmul_reduce
// CHECK: stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1]
// CHECK: stablehlo.reduce(%{{.+}} init: %{{.+}}) across dimensions = [2]
// CHECK: stablehlo.reshape %{{.+}} : (tensor<1x2xf32>) -> tensor<1x2x1xf32>
func.func @matmul_reduce(%a: tensor<1x2x3xf32>, %b: tensor<1x3x4xf32>) -> tensor<1x2x1xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.matmul %a, %b, %zp, %zp : (tensor<1x2x3xf32>, tensor<1x3x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x4xf32>
  %1 = tosa.reduce_max %0 {axis = 2 : i32} : (tensor<1x2x4xf32>) -> tensor<1x2x1xf32>
  return %1 : tensor<1x2x1xf32>
}

// -----

// Tests that a shape operand from tosa.const_shape is read by tosa.reshape and the const_shape disappears.
// CHECK-LABEL: func.func @reshape
// CHECK-NOT: tosa.
// CHECK: stablehlo.reshape %a : (tensor<2x2xi32>) -> tensor<4xi32>
func.func @reshape(%a: tensor<2x2xi32>) -> tensor<4xi32> {
  %s = tosa.const_shape {values = dense<[4]> : tensor<1xindex>} : () -> !tosa.shape<1>
  %0 = tosa.reshape %a, %s : (tensor<2x2xi32>, !tosa.shape<1>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}
