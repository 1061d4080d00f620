// RUN: python -m rt opt --split-input-file --pass=iree-stablehlo-preprocessing-lower-complex %s | filecheck %s
// RUN: (python -m rt opt --split-input-file --pass=iree-stablehlo-preprocessing-lower-complex %S/lower_complex_bad.mlir.in 2>&1; echo "exit=$?") | filecheck %s --check-prefix=BAD

// Tests that a complex product becomes (ac - bd, ad + bc) on the parts and a complex constant two real constants.
// CHECK-LABEL: func.func @multiply
// CHECK-DAG: %[[C:.+]] = stablehlo.constant dense<[1.000000e+00, 3.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[D:.+]] = stablehlo.constant dense<[2.000000e+00, -4.000000e+00]> : tensor<2xf32>
// CHECK: %[[AC:.+]] = stablehlo.multiply %a, %[[C]] : tensor<2xf32>
// CHECK: %[[BD:.+]] = stablehlo.multiply %b, %[[D]] : tensor<2xf32>
// CHECK: %re = stablehlo.subtract %[[AC]], %[[BD]] : tensor<2xf32>
// CHECK: %[[AD:.+]] = stablehlo.multiply %a, %[[D]] : tensor<2xf32>
// CHECK: %[[BC:.+]] = stablehlo.multiply %b, %[[C]] : tensor<2xf32>
// CHECK: %im = stablehlo.add %[[AD]], %[[BC]] : tensor<2xf32>
// CHECK: return %re, %im
// CHECK-NOT: complex
func.func @multiply(%a: tensor<2xf32>, %b: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %z = stablehlo.complex %a, %b : tensor<2xcomplex<f32>>
  %w = stablehlo.constant dense<[(1.0,2.0), (3.0,-4.0)]> : tensor<2xcomplex<f32>>
  %p = stablehlo.multiply %z, %w : tensor<2xcomplex<f32>>
  %re = stablehlo.real %p : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
  %im = stablehlo.imag %p : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
  return %re, %im : tensor<2xf32>, tensor<2xf32>
}

// -----

// Tests that abs of a complex tensor is the modulus sqrt(a^2 + b^2), a real tensor.
// CHECK-LABEL: func.func @abs
// CHECK: %[[AA:.+]] = stablehlo.multiply %a, %a
// CHECK: %[[BB:.+]] = stablehlo.multiply %b, %b
// CHECK: %[[S:.+]] = stablehlo.add %[[AA]], %[[BB]]
// CHECK: %m = stablehlo.sqrt %[[S]] : tensor<3xf32>
// CHECK: return %m : tensor<3xf32>
func.func @abs(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  %z = stablehlo.complex %a, %b : tensor<3xcomplex<f32>>
  %m = stablehlo.abs %z : (tensor<3xcomplex<f32>>) -> tensor<3xf32>
  return %m : tensor<3xf32>
}

// -----

// Tests that a power-of-two FFT is a bit reversal (reshape, transpose, reshape) of each part and log2(n) iree_linalg_ext.fft stages with exp(-2 pi i j / m) coefficients.
// CHECK-LABEL: func.func @fft_8
// CHECK: stablehlo.reshape %a : (tensor<2x8xf32>) -> tensor<2x2x2x2xf32>
// CHECK: stablehlo.transpose {{.*}} dims = [0, 3, 2, 1] : tensor<2x2x2x2xf32>
// CHECK: %[[RE:.+]] = stablehlo.reshape {{.*}} -> tensor<2x8xf32>
// CHECK: stablehlo.reshape %b
// CHECK: %[[IM:.+]] = stablehlo.reshape {{.*}} -> tensor<2x8xf32>
// CHECK: %[[S1:.+]] = arith.constant 1 : index
// CHECK: %[[R1:.+]], %[[I1:.+]] = iree_linalg_ext.fft ins(%[[S1]], {{.*}} : index, tensor<1xf32>, tensor<1xf32>) outs(%[[RE]], %[[IM]] : tensor<2x8xf32>, tensor<2x8xf32>)
// CHECK: stablehlo.constant dense<[-0.000000e+00, -1.000000e+00]> : tensor<2xf32>
// CHECK: arith.constant 2 : index
// CHECK: iree_linalg_ext.fft ins({{.*}} : index, tensor<2xf32>, tensor<2xf32>) outs(%[[R1]], %[[I1]] :
// CHECK: stablehlo.constant dense<[-0.000000e+00, -0.707106769, -1.000000e+00, -0.707106769]> : tensor<4xf32>
// CHECK: arith.constant 3 : index
// CHECK: %re, %{{.+}} = iree_linalg_ext.fft ins({{.*}} : index, tensor<4xf32>, tensor<4xf32>)
// CHECK: return %re
func.func @fft_8(%a: tensor<2x8xf32>, %b: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %z = stablehlo.complex %a, %b : tensor<2x8xcomplex<f32>>
  %f = stablehlo.fft %z, type = FFT, length = [8] : tensor<2x8xcomplex<f32>>
  %re = stablehlo.real %f : (tensor<2x8xcomplex<f32>>) -> tensor<2x8xf32>
  return %re : tensor<2x8xf32>
}

// -----

// Tests that an RFFT of a length that is not a power of two is a DFT: two dot_generals of the real input with the [n, n/2+1] cos and -sin matrices.
// CHECK-LABEL: func.func @rfft_6
// CHECK-DAG: %[[COS:.+]] = stablehlo.constant dense<{{.*}}> : tensor<6x4xf32>
// CHECK-DAG: %[[SIN:.+]] = stablehlo.constant dense<{{.*}}-0.866025388{{.*}}> : tensor<6x4xf32>
// CHECK: stablehlo.dot_general %a, %[[COS]], contracting_dims = [0] x [0] : (tensor<6xf32>, tensor<6x4xf32>) -> tensor<4xf32>
// CHECK: %im = stablehlo.dot_general %a, %[[SIN]], contracting_dims = [0] x [0]
// CHECK-NOT: iree_linalg_ext.fft
// CHECK: return %im
func.func @rfft_6(%a: tensor<6xf32>) -> tensor<4xf32> {
  %f = stablehlo.fft %a, type = RFFT, length = [6] : (tensor<6xf32>) -> tensor<4xcomplex<f32>>
  %im = stablehlo.imag %f : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  return %im : tensor<4xf32>
}

// -----

// Tests that a call to a private function returning a complex tensor (JAX's outlined jnp.fft) is inlined and the function dropped.
// CHECK-LABEL: func.func @outlined
// CHECK-NOT: call
// CHECK: %[[P:.+]] = stablehlo.add %a, %a : tensor<2xf32>
// CHECK: return %[[P]]
// CHECK-NOT: func.func private @twice
func.func @outlined(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {
  %z = call @twice(%a, %b) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xcomplex<f32>>
  %re = stablehlo.real %z : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
  return %re : tensor<2xf32>
}
func.func private @twice(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xcomplex<f32>> {
  %z = stablehlo.complex %a, %b : tensor<2xcomplex<f32>>
  %s = stablehlo.add %z, %z : tensor<2xcomplex<f32>>
  return %s : tensor<2xcomplex<f32>>
}

// BAD: lower_complex_bad.mlir.in:1:1: error: argument 0 of @complex_argument has complex type tensor<4xcomplex<f32>>; {{.*}} as tensor<4xf32>
// BAD: lower_complex_bad.mlir.in:10:8: error: 'stablehlo.power' on complex numbers is not supported by rt; supported: {{.*}}multiply
// BAD: lower_complex_bad.mlir.in:19:8: error: 'stablehlo.compare' LT of complex numbers: complex numbers have no order
// BAD: lower_complex_bad.mlir.in:26:8: error: 'stablehlo.fft' type = RFFT, length = [8]: tensor<8xf32> -> tensor<4xcomplex<f32>> does not fit; the last 1 dims must be [8] -> [5]
// BAD: lower_complex_bad.mlir.in:34:8: error: 'stablehlo.complex' on tensor<?xcomplex<f32>>: rt splits complex tensors of static shape only
// BAD: lower_complex_bad.mlir.in:44:8: error: 'stablehlo.reduce' on complex numbers is not supported by rt
// BAD: exit=1
