// RUN: python -m rt opt --pass=rt-decompose-linalg-ext --split-input-file %s | filecheck %s
// RUN: (python -m rt opt --pass=rt-decompose-linalg-ext %S/decompose_linalg_ext_fft_bad.mlir.in 2>&1; echo "exit=$?") | filecheck %s --check-prefix=BAD

// Tests that an fft stage is one parallel generic over [.., n/m, 2, m/2] reading the upper (index 0) and lower (index 1) butterfly inputs and the coefficient of the innermost index, writing u + w v / u - w v.
// CHECK-LABEL: func.func @stage_2
// CHECK: %[[RE:.+]] = flow.tensor.reshape %re : tensor<3x8xf32> -> tensor<3x2x2x2xf32>
// CHECK: %[[IM:.+]] = flow.tensor.reshape %im : tensor<3x8xf32> -> tensor<3x2x2x2xf32>
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, 1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, 1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%wr, %wi, %[[RE]], %[[IM]], %[[RE]], %[[IM]] :
// CHECK: linalg.index 2 : index
// CHECK: arith.cmpi eq
// CHECK: arith.select
// CHECK: flow.tensor.reshape {{.*}} : tensor<3x2x2x2xf32> -> tensor<3x8xf32>
// CHECK-NOT: iree_linalg_ext.fft
func.func @stage_2(%re: tensor<3x8xf32>, %im: tensor<3x8xf32>, %wr: tensor<2xf32>, %wi: tensor<2xf32>) -> (tensor<3x8xf32>, tensor<3x8xf32>) {
  %s = arith.constant 2 : index
  %r:2 = iree_linalg_ext.fft ins(%s, %wr, %wi : index, tensor<2xf32>, tensor<2xf32>) outs(%re, %im : tensor<3x8xf32>, tensor<3x8xf32>) : tensor<3x8xf32>, tensor<3x8xf32>
  return %r#0, %r#1 : tensor<3x8xf32>, tensor<3x8xf32>
}

// -----

// Tests that a stage without coefficient operands uses the forward coefficients exp(-2 pi i j / m) as constants.
// CHECK-LABEL: func.func @forward_default
// CHECK: arith.constant dense<[1.000000e+00, 6.12323426e-17]> : tensor<2xf32>
// CHECK: arith.constant dense<[-0.000000e+00, -1.000000e+00]> : tensor<2xf32>
// CHECK: linalg.generic
func.func @forward_default(%re: tensor<4xf32>, %im: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %s = arith.constant 2 : index
  %r:2 = iree_linalg_ext.fft ins(%s : index) outs(%re, %im : tensor<4xf32>, tensor<4xf32>) : tensor<4xf32>, tensor<4xf32>
  return %r#0, %r#1 : tensor<4xf32>, tensor<4xf32>
}

// BAD: decompose_linalg_ext_fft_bad.mlir.in:3:10: error: 'iree_linalg_ext.fft': stage 3 does not fit the innermost dim 4 (1 <= stage <= log2(4))
// BAD: exit=1
