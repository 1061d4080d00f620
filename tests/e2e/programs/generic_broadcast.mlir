// linalg.generic broadcasts through indexing maps: row vector, column vector, 0-d scalar, transposed read.
func.func @row_bias() {
  %x = util.unfoldable_constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %b = util.unfoldable_constant dense<[10.0, 20.0, 30.0]> : tensor<3xf32>
  %e = tensor.empty() : tensor<2x3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<2x3xf32>, tensor<3xf32>) outs(%e : tensor<2x3xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %s = arith.addf %v, %w : f32
    linalg.yield %s : f32
  } -> tensor<2x3xf32>
  check.expect_eq_const(%r, dense<[[11.0, 22.0, 33.0], [14.0, 25.0, 36.0]]> : tensor<2x3xf32>) : tensor<2x3xf32>
  return
}

func.func @column_scale() {
  %x = util.unfoldable_constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %c = util.unfoldable_constant dense<[100.0, 200.0]> : tensor<2xf32>
  %e = tensor.empty() : tensor<2x3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x, %c : tensor<2x3xf32>, tensor<2xf32>) outs(%e : tensor<2x3xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %s = arith.mulf %v, %w : f32
    linalg.yield %s : f32
  } -> tensor<2x3xf32>
  check.expect_eq_const(%r, dense<[[100.0, 200.0, 300.0], [800.0, 1000.0, 1200.0]]> : tensor<2x3xf32>) : tensor<2x3xf32>
  return
}

func.func @scalar_tensor_broadcast() {
  %s = util.unfoldable_constant dense<7> : tensor<i32>
  %e = tensor.empty() : tensor<2x2xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> ()>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<i32>) outs(%e : tensor<2x2xi32>) {
  ^bb0(%v: i32, %o: i32):
    linalg.yield %v : i32
  } -> tensor<2x2xi32>
  check.expect_eq_const(%r, dense<7> : tensor<2x2xi32>) : tensor<2x2xi32>
  return
}

func.func @transposed_read() {
  %x = util.unfoldable_constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %e = tensor.empty() : tensor<3x2xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>) {
  ^bb0(%v: f32, %o: f32):
    %d = arith.addf %v, %v : f32
    linalg.yield %d : f32
  } -> tensor<3x2xf32>
  check.expect_eq_const(%r, dense<[[2.0, 8.0], [4.0, 10.0], [6.0, 12.0]]> : tensor<3x2xf32>) : tensor<3x2xf32>
  return
}
