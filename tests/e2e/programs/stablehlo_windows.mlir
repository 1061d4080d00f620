// StableHLO convolution (grouped, strided, dilated, padded), reduce_window and gather, converted
// by iree-stablehlo-to-iree-input. Expected values computed with numpy loops.

func.func @grouped_convolution() {
  %x = util.unfoldable_constant dense<[[[[-3.0, -2.0, -1.0, 0.0], [1.0, 2.0, 3.0, -3.0], [-2.0, -1.0, 0.0, 1.0]], [[2.0, 3.0, -3.0, -2.0], [-1.0, 0.0, 1.0, 2.0], [3.0, -3.0, -2.0, -1.0]], [[0.0, 1.0, 2.0, 3.0], [-3.0, -2.0, -1.0, 0.0], [1.0, 2.0, 3.0, -3.0]]]]> : tensor<1x3x3x4xf32>
  %w = util.unfoldable_constant dense<[[[[-2.0, -1.0, 0.0, 1.0], [2.0, -2.0, -1.0, 0.0]], [[1.0, 2.0, -2.0, -1.0], [0.0, 1.0, 2.0, -2.0]]], [[[-1.0, 0.0, 1.0, 2.0], [-2.0, -1.0, 0.0, 1.0]], [[2.0, -2.0, -1.0, 0.0], [1.0, 2.0, -2.0, -1.0]]]]> : tensor<2x2x2x4xf32>
  %y = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 0], [0, 1]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 2 : i64} : (tensor<1x3x3x4xf32>, tensor<2x2x2x4xf32>) -> tensor<1x3x3x4xf32>
  check.expect_almost_eq_const(%y, dense<[[[[11.0, 4.0, 2.0, 1.0], [-10.0, 0.0, 1.0, 2.0], [4.0, 1.0, 0.0, 1.0]], [[-7.0, 10.0, -20.0, -8.0], [4.0, -22.0, 10.0, 6.0], [5.0, 7.0, -3.0, -5.0]], [[-9.0, -9.0, 7.0, -1.0], [16.0, 8.0, 2.0, 6.0], [-17.0, 1.0, 4.0, 1.0]]]]> : tensor<1x3x3x4xf32>) : tensor<1x3x3x4xf32>
  return
}

func.func @strided_dilated_convolution() {
  %x = util.unfoldable_constant dense<[[[[0.0], [1.0], [2.0], [3.0], [4.0]], [[5.0], [6.0], [7.0], [8.0], [9.0]], [[10.0], [11.0], [12.0], [13.0], [14.0]], [[15.0], [16.0], [17.0], [18.0], [19.0]], [[20.0], [21.0], [22.0], [23.0], [24.0]]]]> : tensor<1x5x5x1xf32>
  %w = util.unfoldable_constant dense<[[[[1.0, -1.0]], [[2.0, 0.0]]], [[[0.0, 1.0]], [[-1.0, 3.0]]]]> : tensor<2x2x1x2xf32>
  %y = "stablehlo.convolution"(%x, %w) {dimension_numbers = #stablehlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 3, input_spatial_dimensions = [1, 2], kernel_input_feature_dimension = 2, kernel_output_feature_dimension = 3, kernel_spatial_dimensions = [0, 1], output_batch_dimension = 0, output_feature_dimension = 3, output_spatial_dimensions = [1, 2]>, window_strides = array<i64: 2, 2>, rhs_dilation = array<i64: 2, 1>, feature_group_count = 1 : i64, batch_group_count = 1 : i64} : (tensor<1x5x5x1xf32>, tensor<2x2x1x2xf32>) -> tensor<1x2x2x2xf32>
  check.expect_almost_eq_const(%y, dense<[[[[-9.0, 43.0], [-5.0, 49.0]], [[11.0, 73.0], [15.0, 79.0]]]]> : tensor<1x2x2x2xf32>) : tensor<1x2x2x2xf32>
  return
}

func.func @max_pool_with_padding() {
  %m = util.unfoldable_constant dense<[[1.0, 5.0, 2.0, 7.0], [3.0, 0.0, 9.0, 4.0], [8.0, 6.0, 1.0, 2.0]]> : tensor<3x4xf32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %r = "stablehlo.reduce_window"(%m, %ninf) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %0 = stablehlo.maximum %a, %b : tensor<f32>
    stablehlo.return %0 : tensor<f32>
  }) {window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>, padding = dense<[[0, 1], [0, 0]]> : tensor<2x2xi64>} : (tensor<3x4xf32>, tensor<f32>) -> tensor<2x2xf32>
  check.expect_almost_eq_const(%r, dense<[[5.0, 9.0], [8.0, 2.0]]> : tensor<2x2xf32>) : tensor<2x2xf32>
  return
}

func.func @gathers() {
  %x = util.unfoldable_constant dense<[[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]> : tensor<3x4xi32>
  %rows = util.unfoldable_constant dense<[[2], [0], [1]]> : tensor<3x1xi32>
  %g = "stablehlo.gather"(%x, %rows) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 4>}> : (tensor<3x4xi32>, tensor<3x1xi32>) -> tensor<3x4xi32>
  check.expect_eq_const(%g, dense<[[8, 9, 10, 11], [0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<3x4xi32>) : tensor<3x4xi32>
  %starts = util.unfoldable_constant dense<[[0, 1], [2, 3]]> : tensor<2x2xi32>
  %p = "stablehlo.gather"(%x, %starts) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0, 1], index_vector_dim = 1>, slice_sizes = array<i64: 1, 2>} : (tensor<3x4xi32>, tensor<2x2xi32>) -> tensor<2x2xi32>
  check.expect_eq_const(%p, dense<[[1, 2], [10, 11]]> : tensor<2x2xi32>) : tensor<2x2xi32>
  return
}

func.func @scatter_add_rows_and_is_finite() {
  %x = util.unfoldable_constant dense<1> : tensor<4x2xi32>
  %rows = util.unfoldable_constant dense<[[3], [0], [3]]> : tensor<3x1xi32>
  %updates = util.unfoldable_constant dense<[[10, 20], [30, 40], [50, 60]]> : tensor<3x2xi32>
  %s = "stablehlo.scatter"(%x, %rows, %updates) ({
  ^bb0(%cur: tensor<i32>, %upd: tensor<i32>):
    %sum = stablehlo.add %cur, %upd : tensor<i32>
    stablehlo.return %sum : tensor<i32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<4x2xi32>, tensor<3x1xi32>, tensor<3x2xi32>) -> tensor<4x2xi32>
  check.expect_eq_const(%s, dense<[[31, 41], [1, 1], [1, 1], [61, 81]]> : tensor<4x2xi32>) : tensor<4x2xi32>
  %f = util.unfoldable_constant dense<[1.0, 0x7F800000, 0xFF800000, 0x7FC00000]> : tensor<4xf32>
  %fin = stablehlo.is_finite %f : (tensor<4xf32>) -> tensor<4xi1>
  %fin_i8 = stablehlo.convert %fin : (tensor<4xi1>) -> tensor<4xi8>
  check.expect_eq_const(%fin_i8, dense<[1, 0, 0, 0]> : tensor<4xi8>) : tensor<4xi8>
  return
}

func.func @stable_key_value_sort() {
  %keys = util.unfoldable_constant dense<[3, 1, 3, 2, 1]> : tensor<5xi32>
  %vals = util.unfoldable_constant dense<[0, 1, 2, 3, 4]> : tensor<5xi32>
  %k, %v = "stablehlo.sort"(%keys, %vals) ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>, %va: tensor<i32>, %vb: tensor<i32>):
    %lt = stablehlo.compare LT, %a, %b, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) {dimension = 0 : i64, is_stable = true} : (tensor<5xi32>, tensor<5xi32>) -> (tensor<5xi32>, tensor<5xi32>)
  check.expect_eq_const(%k, dense<[1, 1, 2, 3, 3]> : tensor<5xi32>) : tensor<5xi32>
  check.expect_eq_const(%v, dense<[1, 4, 3, 0, 2]> : tensor<5xi32>) : tensor<5xi32>
  %x = util.unfoldable_constant dense<[[0.5, -1.0, 2.0], [3.0, 3.0, -2.0]]> : tensor<2x3xf32>
  %d = "stablehlo.sort"(%x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %gt = stablehlo.compare GT, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %gt : tensor<i1>
  }) {dimension = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  check.expect_almost_eq_const(%d, dense<[[2.0, 0.5, -1.0], [3.0, 3.0, -2.0]]> : tensor<2x3xf32>) : tensor<2x3xf32>
  return
}
