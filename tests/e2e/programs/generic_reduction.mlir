// linalg.generic reductions: inner dim, outer dim, max, full reduction to 0-d, middle dim of 3-D.
func.func @sum_inner() {
  %x = util.unfoldable_constant dense<[[3.0, -1.0, 7.0, 2.0], [-5.0, 4.0, 4.0, 0.5], [1.0, 1.0, -2.0, 9.0]]> : tensor<3x4xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<3xf32>) -> tensor<3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<3x4xf32>) outs(%f : tensor<3xf32>) {
  ^bb0(%v: f32, %a: f32):
    %s = arith.addf %v, %a : f32
    linalg.yield %s : f32
  } -> tensor<3xf32>
  check.expect_almost_eq_const(%r, dense<[11.0, 3.5, 9.0]> : tensor<3xf32>) : tensor<3xf32>
  return
}

func.func @sum_outer() {
  %x = util.unfoldable_constant dense<[[3.0, -1.0, 7.0, 2.0], [-5.0, 4.0, 4.0, 0.5], [1.0, 1.0, -2.0, 9.0]]> : tensor<3x4xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>],
                       iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<3x4xf32>) outs(%f : tensor<4xf32>) {
  ^bb0(%v: f32, %a: f32):
    %s = arith.addf %v, %a : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  check.expect_almost_eq_const(%r, dense<[-1.0, 4.0, 9.0, 11.5]> : tensor<4xf32>) : tensor<4xf32>
  return
}

func.func @max_inner() {
  %x = util.unfoldable_constant dense<[[3.0, -1.0, 7.0, 2.0], [-5.0, 4.0, 4.0, 0.5], [1.0, 1.0, -2.0, 9.0]]> : tensor<3x4xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<3xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<3xf32>) -> tensor<3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<3x4xf32>) outs(%f : tensor<3xf32>) {
  ^bb0(%v: f32, %a: f32):
    %m = arith.maximumf %v, %a : f32
    linalg.yield %m : f32
  } -> tensor<3xf32>
  check.expect_eq_const(%r, dense<[7.0, 4.0, 9.0]> : tensor<3xf32>) : tensor<3xf32>
  return
}

func.func @sum_all_to_scalar() {
  %x = util.unfoldable_constant dense<[[3.0, -1.0, 7.0, 2.0], [-5.0, 4.0, 4.0, 0.5], [1.0, 1.0, -2.0, 9.0]]> : tensor<3x4xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>],
                       iterator_types = ["reduction", "reduction"]}
      ins(%x : tensor<3x4xf32>) outs(%f : tensor<f32>) {
  ^bb0(%v: f32, %a: f32):
    %s = arith.addf %v, %a : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  check.expect_almost_eq_const(%r, dense<23.5> : tensor<f32>) : tensor<f32>
  return
}

func.func @sum_middle_i32() {
  %x = util.unfoldable_constant dense<[[[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]],
                                       [[12, 13, 14, 15], [16, 17, 18, 19], [20, 21, 22, 23]]]> : tensor<2x3x4xi32>
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<2x4xi32>
  %f = linalg.fill ins(%zero : i32) outs(%e : tensor<2x4xi32>) -> tensor<2x4xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, j, k)>, affine_map<(i, j, k) -> (i, k)>],
                       iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%x : tensor<2x3x4xi32>) outs(%f : tensor<2x4xi32>) {
  ^bb0(%v: i32, %a: i32):
    %s = arith.addi %v, %a : i32
    linalg.yield %s : i32
  } -> tensor<2x4xi32>
  check.expect_eq_const(%r, dense<[[12, 15, 18, 21], [48, 51, 54, 57]]> : tensor<2x4xi32>) : tensor<2x4xi32>
  return
}
