// f16 as a storage type: load f16, extend to f32, compute in f32, truncate back to f16.
func.func @f16_fma_generic() {
  %a = util.unfoldable_constant dense<[1.5, -2.0, 0.25, 100.0]> : tensor<4xf16>
  %b = util.unfoldable_constant dense<[0.5, 3.0, -0.125, 0.01]> : tensor<4xf16>
  %e = tensor.empty() : tensor<4xf16>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%a, %b : tensor<4xf16>, tensor<4xf16>) outs(%e : tensor<4xf16>) {
  ^bb0(%x: f16, %y: f16, %o: f16):
    %xf = arith.extf %x : f16 to f32
    %yf = arith.extf %y : f16 to f32
    %p = arith.mulf %xf, %yf : f32
    %one = arith.constant 1.0 : f32
    %s = arith.addf %p, %one : f32
    %t = arith.truncf %s : f32 to f16
    linalg.yield %t : f16
  } -> tensor<4xf16>
  check.expect_eq_const(%r, dense<[1.75, -5.0, 0.96875, 2.0]> : tensor<4xf16>) : tensor<4xf16>
  return
}

func.func @f16_sum_in_f32() {
  %x = util.unfoldable_constant dense<[0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]> : tensor<8xf16>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %sum = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>],
                         iterator_types = ["reduction"]}
      ins(%x : tensor<8xf16>) outs(%acc : tensor<f32>) {
  ^bb0(%v: f16, %a: f32):
    %vf = arith.extf %v : f16 to f32
    %s = arith.addf %vf, %a : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %e16 = tensor.empty() : tensor<f16>
  %h = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []}
      ins(%sum : tensor<f32>) outs(%e16 : tensor<f16>) {
  ^bb0(%v: f32, %o: f16):
    %t = arith.truncf %v : f32 to f16
    linalg.yield %t : f16
  } -> tensor<f16>
  check.expect_almost_eq_const(%sum, dense<3.5999756> : tensor<f32>) : tensor<f32>
  check.expect_eq_const(%h, dense<3.599609375> : tensor<f16>) : tensor<f16>
  return
}

func.func @f16_matmul_f32_accumulate() {
  %a = util.unfoldable_constant dense<[[0.5, 1.0, 1.5], [2.0, 2.5, 3.0]]> : tensor<2x3xf16>
  %b = util.unfoldable_constant dense<[[1.0, -1.0], [0.5, 2.0], [-2.0, 0.25]]> : tensor<3x2xf16>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %mm = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>],
                        iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<2x3xf16>, tensor<3x2xf16>) outs(%acc : tensor<2x2xf32>) {
  ^bb0(%x: f16, %y: f16, %c: f32):
    %xf = arith.extf %x : f16 to f32
    %yf = arith.extf %y : f16 to f32
    %p = arith.mulf %xf, %yf : f32
    %s = arith.addf %p, %c : f32
    linalg.yield %s : f32
  } -> tensor<2x2xf32>
  %h = arith.truncf %mm : tensor<2x2xf32> to tensor<2x2xf16>
  check.expect_eq_const(%h, dense<[[-2.0, 1.875], [-2.75, 3.75]]> : tensor<2x2xf16>) : tensor<2x2xf16>
  return
}
