// StableHLO data movement, contractions and reductions, converted by
// iree-stablehlo-to-iree-input. Expected values computed with numpy.

func.func @broadcast_transpose_reshape() {
  %v = util.unfoldable_constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %rows = stablehlo.broadcast_in_dim %v, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
  check.expect_almost_eq_const(%rows, dense<[[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]]> : tensor<2x3xf32>) : tensor<2x3xf32>
  %col = util.unfoldable_constant dense<[[5], [7]]> : tensor<2x1xi32>
  %wide = "stablehlo.broadcast_in_dim"(%col) {broadcast_dimensions = array<i64: 0, 1>} : (tensor<2x1xi32>) -> tensor<2x3xi32>
  check.expect_eq_const(%wide, dense<[[5, 5, 5], [7, 7, 7]]> : tensor<2x3xi32>) : tensor<2x3xi32>
  %t = stablehlo.transpose %rows, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  check.expect_almost_eq_const(%t, dense<[[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]]> : tensor<3x2xf32>) : tensor<3x2xf32>
  %flat = stablehlo.reshape %t : (tensor<3x2xf32>) -> tensor<6xf32>
  check.expect_almost_eq_const(%flat, dense<[1.0, 1.0, 2.0, 2.0, 3.0, 3.0]> : tensor<6xf32>) : tensor<6xf32>
  %lead = "stablehlo.broadcast"(%v) {broadcast_sizes = array<i64: 2>} : (tensor<3xf32>) -> tensor<2x3xf32>
  check.expect_almost_eq_const(%lead, dense<[[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]]> : tensor<2x3xf32>) : tensor<2x3xf32>
  return
}

func.func @iota_slice_concat_reverse_pad() {
  %iota = stablehlo.iota dim = 1 : tensor<2x4xi32>
  check.expect_eq_const(%iota, dense<[[0, 1, 2, 3], [0, 1, 2, 3]]> : tensor<2x4xi32>) : tensor<2x4xi32>
  %x = util.unfoldable_constant dense<[[1, 2, 3, 4], [5, 6, 7, 8]]> : tensor<2x4xi32>
  %s = "stablehlo.slice"(%x) {start_indices = array<i64: 0, 1>, limit_indices = array<i64: 2, 4>, strides = array<i64: 1, 2>} : (tensor<2x4xi32>) -> tensor<2x2xi32>
  check.expect_eq_const(%s, dense<[[2, 4], [6, 8]]> : tensor<2x2xi32>) : tensor<2x2xi32>
  %c = "stablehlo.concatenate"(%s, %x) {dimension = 1 : i64} : (tensor<2x2xi32>, tensor<2x4xi32>) -> tensor<2x6xi32>
  check.expect_eq_const(%c, dense<[[2, 4, 1, 2, 3, 4], [6, 8, 5, 6, 7, 8]]> : tensor<2x6xi32>) : tensor<2x6xi32>
  %r = "stablehlo.reverse"(%x) {dimensions = array<i64: 1>} : (tensor<2x4xi32>) -> tensor<2x4xi32>
  check.expect_eq_const(%r, dense<[[4, 3, 2, 1], [8, 7, 6, 5]]> : tensor<2x4xi32>) : tensor<2x4xi32>
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %p = "stablehlo.pad"(%x, %zero) {edge_padding_low = array<i64: 1, -1>, edge_padding_high = array<i64: 0, 1>, interior_padding = array<i64: 0, 0>} : (tensor<2x4xi32>, tensor<i32>) -> tensor<3x4xi32>
  check.expect_eq_const(%p, dense<[[0, 0, 0, 0], [2, 3, 4, 0], [6, 7, 8, 0]]> : tensor<3x4xi32>) : tensor<3x4xi32>
  %fi = stablehlo.iota dim = 0 : tensor<3xf32>
  check.expect_almost_eq_const(%fi, dense<[0.0, 1.0, 2.0]> : tensor<3xf32>) : tensor<3xf32>
  return
}

func.func @dots() {
  %x = util.unfoldable_constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %y = util.unfoldable_constant dense<[[0.0, 0.5, 1.0, 1.5], [2.0, 2.5, 3.0, 3.5], [4.0, 4.5, 5.0, 5.5]]> : tensor<3x4xf32>
  %mm = stablehlo.dot_general %x, %y, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  check.expect_almost_eq_const(%mm, dense<[[16.0, 19.0, 22.0, 25.0], [34.0, 41.5, 49.0, 56.5]]> : tensor<2x4xf32>) : tensor<2x4xf32>
  %d = "stablehlo.dot"(%x, %y) {precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  check.expect_almost_eq_const(%d, dense<[[16.0, 19.0, 22.0, 25.0], [34.0, 41.5, 49.0, 56.5]]> : tensor<2x4xf32>) : tensor<2x4xf32>
  %l = util.unfoldable_constant dense<[[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]> : tensor<3x2xf32>
  %r = util.unfoldable_constant dense<[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0], [9.0, 10.0, 11.0]]> : tensor<4x3xf32>
  %g = "stablehlo.dot_general"(%l, %r) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [1]>} : (tensor<3x2xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
  check.expect_almost_eq_const(%g, dense<[[10.0, 28.0, 46.0, 64.0], [13.0, 40.0, 67.0, 94.0]]> : tensor<2x4xf32>) : tensor<2x4xf32>
  %li = util.unfoldable_constant dense<[[100, -100], [50, 7]]> : tensor<2x2xi8>
  %ri = util.unfoldable_constant dense<[[3, 2], [-4, 1]]> : tensor<2x2xi8>
  %wide = stablehlo.dot_general %li, %ri, contracting_dims = [1] x [0] : (tensor<2x2xi8>, tensor<2x2xi8>) -> tensor<2x2xi32>
  check.expect_eq_const(%wide, dense<[[700, 100], [122, 107]]> : tensor<2x2xi32>) : tensor<2x2xi32>
  return
}

func.func @batch_dot() {
  %a = util.unfoldable_constant dense<[[[0.0, 0.25, 0.5, 0.75], [1.0, 1.25, 1.5, 1.75], [2.0, 2.25, 2.5, 2.75]], [[3.0, 3.25, 3.5, 3.75], [4.0, 4.25, 4.5, 4.75], [5.0, 5.25, 5.5, 5.75]]]> : tensor<2x3x4xf32>
  %b = util.unfoldable_constant dense<[[[-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0], [9.0, 10.0], [11.0, 12.0]]]> : tensor<2x4x2xf32>
  %c = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x3x4xf32>, tensor<2x4x2xf32>) -> tensor<2x3x2xf32>
  check.expect_almost_eq_const(%c, dense<[[[2.5, 4.0], [2.5, 8.0], [2.5, 12.0]], [[110.5, 124.0], [142.5, 160.0], [174.5, 196.0]]]> : tensor<2x3x2xf32>) : tensor<2x3x2xf32>
  return
}

func.func @reductions() {
  %m = util.unfoldable_constant dense<[[3.0, 9.0, 1.0], [4.0, 2.0, 8.0]]> : tensor<2x3xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %sum = stablehlo.reduce(%m init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
  check.expect_almost_eq_const(%sum, dense<[13.0, 14.0]> : tensor<2xf32>) : tensor<2xf32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %max = "stablehlo.reduce"(%m, %ninf) ({
  ^bb0(%acc: tensor<f32>, %x: tensor<f32>):
    %0 = stablehlo.maximum %acc, %x : tensor<f32>
    stablehlo.return %0 : tensor<f32>
  }) {dimensions = array<i64: 0>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<3xf32>
  check.expect_almost_eq_const(%max, dense<[4.0, 9.0, 8.0]> : tensor<3xf32>) : tensor<3xf32>
  %all = "stablehlo.reduce"(%m, %zero) ({
  ^bb0(%acc: tensor<f32>, %x: tensor<f32>):
    %0 = stablehlo.add %acc, %x : tensor<f32>
    stablehlo.return %0 : tensor<f32>
  }) {dimensions = array<i64: 0, 1>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<f32>
  check.expect_almost_eq_const(%all, dense<27.0> : tensor<f32>) : tensor<f32>
  return
}

func.func @argmax_reduce() {
  %m = util.unfoldable_constant dense<[[3.0, 9.0, 1.0], [4.0, 2.0, 8.0]]> : tensor<2x3xf32>
  %idx = stablehlo.iota dim = 1 : tensor<2x3xi32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %values, %indices = "stablehlo.reduce"(%m, %idx, %ninf, %zero) ({
  ^bb0(%av: tensor<f32>, %ai: tensor<i32>, %bv: tensor<f32>, %bi: tensor<i32>):
    %gt = stablehlo.compare GT, %av, %bv, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %v = stablehlo.select %gt, %av, %bv : tensor<i1>, tensor<f32>
    %i = stablehlo.select %gt, %ai, %bi : tensor<i1>, tensor<i32>
    stablehlo.return %v, %i : tensor<f32>, tensor<i32>
  }) {dimensions = array<i64: 1>} : (tensor<2x3xf32>, tensor<2x3xi32>, tensor<f32>, tensor<i32>) -> (tensor<2xf32>, tensor<2xi32>)
  check.expect_almost_eq_const(%values, dense<[9.0, 8.0]> : tensor<2xf32>) : tensor<2xf32>
  check.expect_eq_const(%indices, dense<[1, 2]> : tensor<2xi32>) : tensor<2xi32>
  return
}

func.func @rng_uniform_matches_the_stateless_lcg() {
  %lo = util.unfoldable_constant dense<-1.0> : tensor<f32>
  %hi = util.unfoldable_constant dense<3.0> : tensor<f32>
  %shape = util.unfoldable_constant dense<[2, 3]> : tensor<2xi64>
  %r = stablehlo.rng %lo, %hi, %shape, distribution = UNIFORM : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<2x3xf32>
  check.expect_almost_eq_const(%r, dense<[[2.310308, -0.6619632, 0.36576545], [1.3514826, 2.3792112, -0.5930601]]> : tensor<2x3xf32>) : tensor<2x3xf32>
  return
}

func.func @rng_normal_matches_irees_box_muller_draws() {
  %mu = util.unfoldable_constant dense<1.0> : tensor<f32>
  %sigma = util.unfoldable_constant dense<2.0> : tensor<f32>
  %shape = util.unfoldable_constant dense<[5]> : tensor<1xi64>
  %r = stablehlo.rng %mu, %sigma, %shape, distribution = NORMAL : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<5xf32>
  check.expect_almost_eq_const(%r, dense<[2.141722, 1.635186, -0.453076, -0.696778, 0.093217]> : tensor<5xf32>) : tensor<5xf32>
  return
}
