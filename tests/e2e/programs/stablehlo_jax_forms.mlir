// StableHLO forms JAX 0.10.2 prints that need gather batching dims and convolution lhs_dilation
// (helpers/stablehlo/windows.py). Op lines as jax.jit(f).lower(...).as_text() printed them;
// expected values from JAX on CPU.

func.func @gather_batching_dims_vmap() {
  %arg0 = util.unfoldable_constant dense<[[0.25, 0.5, 0.75, 1.0], [1.25, 1.5, 1.75, 2.0], [2.25, 2.5, 2.75, 3.0]]> : tensor<3x4xf32>
  %arg1 = util.unfoldable_constant dense<[[1, 3], [0, 0], [2, 1]]> : tensor<3x2xi32>
  %c = stablehlo.constant dense<0> : tensor<i32>
  %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<3x2xi32>
  %1 = stablehlo.compare LT, %arg1, %0, SIGNED : (tensor<3x2xi32>, tensor<3x2xi32>) -> tensor<3x2xi1>
  %c_0 = stablehlo.constant dense<4> : tensor<i32>
  %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<3x2xi32>
  %3 = stablehlo.add %arg1, %2 : tensor<3x2xi32>
  %4 = stablehlo.select %1, %3, %arg1 : tensor<3x2xi1>, tensor<3x2xi32>
  %5 = stablehlo.broadcast_in_dim %4, dims = [0, 1] : (tensor<3x2xi32>) -> tensor<3x2x1xi32>
  %6 = "stablehlo.gather"(%arg0, %5) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1>}> : (tensor<3x4xf32>, tensor<3x2x1xi32>) -> tensor<3x2xf32>
  check.expect_almost_eq_const(%6, dense<[[0.5, 1.0], [1.25, 1.25], [2.75, 2.5]]> : tensor<3x2xf32>) : tensor<3x2xf32>
  return
}

func.func @gather_batching_dims_with_offset() {
  %arg0 = util.unfoldable_constant dense<[[[0.0, 0.5], [1.0, 1.5], [2.0, 2.5]], [[3.0, 3.5], [4.0, 4.5], [5.0, 5.5]], [[6.0, 6.5], [7.0, 7.5], [8.0, 8.5]], [[9.0, 9.5], [10.0, 10.5], [11.0, 11.5]]]> : tensor<4x3x2xf32>
  %arg1 = util.unfoldable_constant dense<[[2], [0], [1], [2]]> : tensor<4x1xi32>
  %c = stablehlo.constant dense<0> : tensor<i32>
  %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<4x1xi32>
  %1 = stablehlo.compare LT, %arg1, %0, SIGNED : (tensor<4x1xi32>, tensor<4x1xi32>) -> tensor<4x1xi1>
  %c_0 = stablehlo.constant dense<3> : tensor<i32>
  %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<4x1xi32>
  %3 = stablehlo.add %arg1, %2 : tensor<4x1xi32>
  %4 = stablehlo.select %1, %3, %arg1 : tensor<4x1xi1>, tensor<4x1xi32>
  %5 = stablehlo.broadcast_in_dim %4, dims = [0, 1] : (tensor<4x1xi32>) -> tensor<4x1x1xi32>
  %6 = "stablehlo.gather"(%arg0, %5) <{dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1, 2>}> : (tensor<4x3x2xf32>, tensor<4x1x1xi32>) -> tensor<4x1x2xf32>
  check.expect_almost_eq_const(%6, dense<[[[2.0, 2.5]], [[3.0, 3.5]], [[7.0, 7.5]], [[11.0, 11.5]]]> : tensor<4x1x2xf32>) : tensor<4x1x2xf32>
  return
}

func.func @conv_transpose_nhwc_stride2() {
  %arg0 = util.unfoldable_constant dense<[[[[0.13, -0.13], [0.64, 0.1], [-0.54, 0.36]], [[1.3, 0.95], [-0.7, -1.27], [-0.62, 0.04]], [[-2.33, -0.22], [-1.25, -0.73], [-0.54, -0.32]]]]> : tensor<1x3x3x2xf32>
  %arg1 = util.unfoldable_constant dense<[[[[0.41, 1.04], [-0.13, 1.37]], [[-0.67, 0.35], [0.9, 0.09]], [[-0.74, -0.92], [-0.46, 0.22]]], [[[-1.01, -0.21], [-0.16, 0.54]], [[0.21, 0.36], [-0.65, -0.13]], [[0.78, 1.49], [-1.26, 1.51]]], [[[1.35, 0.78], [0.26, -0.31]], [[1.46, 1.96], [1.8, 1.32]], [[0.36, -1.21], [-0.0, 0.66]]]]> : tensor<3x3x2x2xf32>
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[2, 1], [2, 1]], lhs_dilate = [2, 2], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x3x3x2xf32>, tensor<3x3x2x2xf32>) -> tensor<1x6x6x2xf32>
  check.expect_almost_eq_const(%0, dense<[[[[0.0468, -0.2431], [-0.044199992, 0.08319999], [0.3721, -0.5667], [1.1144, 1.3864], [0.69560003, 1.3592], [-0.14040005, -0.5832]], [[0.2652, -0.002599991], [0.11179999, 0.0637], [0.2627, 1.0071], [0.0694, 0.21740001], [-1.5372, -0.34140003], [-0.3474, -0.24120001]], [[0.4316, -1.0941999], [3.4039001, 3.8357997], [1.3006002, 0.11859991], [-3.6467998, -2.8154], [-1.015, 2.0029001], [-0.14740002, -1.319]], [[-0.18300004, 3.3714998], [-0.3445, 0.3445], [-0.41079986, -2.7207], [0.67849994, -0.08690001], [0.37619996, -1.4022], [-0.15619999, -0.2284]], [[-2.2378, 1.6870999], [-3.8137999, -4.3167], [-2.1409998, 2.2996], [-3.813, -3.7729], [-1.7532, -2.1952], [-0.913, -1.6942]], [[-1.5401999, -3.8039], [-0.34629998, -0.81020004], [2.3332999, -2.5942998], [0.21200001, -0.3551], [1.3613, -1.4195001], [0.09459999, -0.15280001]]]]> : tensor<1x6x6x2xf32>) : tensor<1x6x6x2xf32>
  return
}

func.func @conv_lhs_dilation_grouped() {
  %arg0 = util.unfoldable_constant dense<[[[[-1.29, 0.4, 0.43], [0.7, -1.18, -0.66], [-0.44, -1.17, 1.74]], [[-0.5, 0.33, -0.26], [1.58, 1.32, 0.63], [-2.2, 0.05, 0.68]]]]> : tensor<1x2x3x3xf32>
  %arg1 = util.unfoldable_constant dense<[[[[1.0, -0.62], [1.82, -1.32]]], [[[-0.66, 0.94], [0.05, 2.0]]]]> : tensor<2x1x2x2xf32>
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[1, 0], [0, 1]], lhs_dilate = [2, 3], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 2 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x2x3x3xf32>, tensor<2x1x2x2xf32>) -> tensor<1x2x5x7xf32>
  check.expect_almost_eq_const(%0, dense<[[[[-2.3478, 0.0, -0.52800006, 0.72800004, 0.0, -0.5676, 0.78260005], [-1.29, 0.0, -0.24800001, 0.4, 0.0, -0.2666, 0.43], [1.274, 0.0, 1.5576, -2.1476, 0.0, 0.8712001, -1.2012001], [0.7, 0.0, 0.7316, -1.18, 0.0, 0.4092, -0.66], [-0.8008, 0.0, 1.5444, -2.1294, 0.0, -2.2968001, 3.1668]], [[-0.025, 0.0, 0.66, 0.016500002, 0.0, -0.52, -0.012999999], [0.33, 0.0, 0.3102, -0.21780002, 0.0, -0.2444, 0.1716], [0.079, 0.0, 2.64, 0.06600001, 0.0, 1.26, 0.0315], [-1.0428001, 0.0, 1.2408, -0.8712001, 0.0, 0.5922, -0.4158], [-0.11000001, 0.0, 0.1, 0.0025000002, 0.0, 1.36, 0.034]]]]> : tensor<1x2x5x7xf32>) : tensor<1x2x5x7xf32>
  return
}
