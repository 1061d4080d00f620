// ml_program globals (as JAX and IREE's StableHLO tests declare state), imported as util globals
// by iree-import-ml-program; each function runs in a fresh context, so state starts at 2.

ml_program.global private mutable @counter(dense<2.0> : tensor<f32>) : tensor<f32>

func.func @increments_twice() {
  %one = stablehlo.constant dense<1.0> : tensor<f32>
  %0 = ml_program.global_load @counter : tensor<f32>
  %1 = stablehlo.add %0, %one : tensor<f32>
  ml_program.global_store @counter = %1 : tensor<f32>
  %2 = ml_program.global_load @counter : tensor<f32>
  %3 = stablehlo.add %2, %one : tensor<f32>
  ml_program.global_store @counter = %3 : tensor<f32>
  %4 = ml_program.global_load @counter : tensor<f32>
  check.expect_almost_eq_const(%4, dense<4.0> : tensor<f32>) : tensor<f32>
  return
}
