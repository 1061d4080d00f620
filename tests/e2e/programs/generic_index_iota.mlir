// linalg.index inside linalg.generic: iota, a lower-triangular mask, and a ragged 1023x37 grid
// whose exact integer sum is checked: sum of 0..37850 = 37851 * 37850 / 2 = 716330175.
func.func @iota_i32() {
  %e = tensor.empty() : tensor<2x5xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<2x5xi32>) {
  ^bb0(%o: i32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c5 = arith.constant 5 : index
    %r0 = arith.muli %i, %c5 : index
    %r1 = arith.addi %r0, %j : index
    %v = arith.index_cast %r1 : index to i32
    linalg.yield %v : i32
  } -> tensor<2x5xi32>
  check.expect_eq_const(%r, dense<[[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]]> : tensor<2x5xi32>) : tensor<2x5xi32>
  return
}

func.func @lower_triangular_mask() {
  %x = util.unfoldable_constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]> : tensor<3x3xf32>
  %e = tensor.empty() : tensor<3x3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<3x3xf32>) outs(%e : tensor<3x3xf32>) {
  ^bb0(%v: f32, %o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %keep = arith.cmpi ule, %j, %i : index
    %zero = arith.constant 0.0 : f32
    %s = arith.select %keep, %v, %zero : f32
    linalg.yield %s : f32
  } -> tensor<3x3xf32>
  check.expect_eq_const(%r, dense<[[1.0, 0.0, 0.0], [4.0, 5.0, 0.0], [7.0, 8.0, 9.0]]> : tensor<3x3xf32>) : tensor<3x3xf32>
  return
}

func.func @ragged_grid_sum() {
  %e = tensor.empty() : tensor<1023x37xi32>
  %g = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<1023x37xi32>) {
  ^bb0(%o: i32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c37 = arith.constant 37 : index
    %r0 = arith.muli %i, %c37 : index
    %r1 = arith.addi %r0, %j : index
    %v = arith.index_cast %r1 : index to i32
    linalg.yield %v : i32
  } -> tensor<1023x37xi32>
  %zero = arith.constant 0 : i32
  %e0 = tensor.empty() : tensor<i32>
  %f = linalg.fill ins(%zero : i32) outs(%e0 : tensor<i32>) -> tensor<i32>
  %s = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>],
                       iterator_types = ["reduction", "reduction"]}
      ins(%g : tensor<1023x37xi32>) outs(%f : tensor<i32>) {
  ^bb0(%v: i32, %a: i32):
    %t = arith.addi %v, %a : i32
    linalg.yield %t : i32
  } -> tensor<i32>
  check.expect_eq_const(%s, dense<716330175> : tensor<i32>) : tensor<i32>
  %last = tensor.extract_slice %g[1022, 34] [1, 3] [1, 1] : tensor<1023x37xi32> to tensor<3xi32>
  check.expect_eq_const(%last, dense<[37848, 37849, 37850]> : tensor<3xi32>) : tensor<3xi32>
  return
}
