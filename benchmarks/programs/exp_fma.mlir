// exp(a * b + c) over 4M f32: the elementwise benchmark of issue 4 (one fused dispatch).
func.func @exp_fma(%a: tensor<4194304xf32>, %b: tensor<4194304xf32>, %c: tensor<4194304xf32>) -> tensor<4194304xf32> {
  %m = arith.mulf %a, %b : tensor<4194304xf32>
  %s = arith.addf %m, %c : tensor<4194304xf32>
  %e = math.exp %s : tensor<4194304xf32>
  return %e : tensor<4194304xf32>
}
