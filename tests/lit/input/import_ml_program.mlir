// RUN: python -m rt opt --split-input-file --pass=iree-import-ml-program %s | filecheck %s

// Tests that ml_program globals and their loads and stores become util globals, keeping visibility, mutability and the initial value.
// CHECK-LABEL: builtin.module
// CHECK: util.global private mutable @counter = dense<2.000000e+00> : tensor<f32>
// CHECK: util.global private @table = dense<[1, 2]> : tensor<2xi32>
// CHECK: %[[V:.+]] = util.global.load @counter : tensor<f32>
// CHECK: util.global.store %[[V]], @counter : tensor<f32>
// CHECK: util.global.load @table : tensor<2xi32>
module {
  ml_program.global private mutable @counter(dense<2.0> : tensor<f32>) : tensor<f32>
  ml_program.global private @table(dense<[1, 2]> : tensor<2xi32>) : tensor<2xi32>
  func.func @f() -> tensor<2xi32> {
    %0 = ml_program.global_load @counter : tensor<f32>
    ml_program.global_store @counter = %0 : tensor<f32>
    %1 = ml_program.global_load_const @table : tensor<2xi32>
    return %1 : tensor<2xi32>
  }
}
