// StableHLO on dynamically shaped tensors (sizes known only at run time), converted by
// iree-stablehlo-to-iree-input: result sizes come from tensor.dim of the operands.

func.func @dynamic_dot_reduce_transpose() {
  %a = flow.tensor.dynamic_constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32> -> tensor<?x?xf32>
  %b = flow.tensor.dynamic_constant dense<[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]> : tensor<3x2xf32> -> tensor<?x?xf32>
  %mm = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %mm_static = tensor.cast %mm : tensor<?x?xf32> to tensor<2x2xf32>
  check.expect_almost_eq_const(%mm_static, dense<[[4.0, 5.0], [10.0, 11.0]]> : tensor<2x2xf32>) : tensor<2x2xf32>
  %bt = stablehlo.dot_general %b, %a, contracting_dims = [0] x [1] : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %bt_static = tensor.cast %bt : tensor<?x?xf32> to tensor<2x2xf32>
  check.expect_almost_eq_const(%bt_static, dense<[[4.0, 10.0], [5.0, 11.0]]> : tensor<2x2xf32>) : tensor<2x2xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %rows = stablehlo.reduce(%a init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
  %rows_static = tensor.cast %rows : tensor<?xf32> to tensor<2xf32>
  check.expect_almost_eq_const(%rows_static, dense<[6.0, 15.0]> : tensor<2xf32>) : tensor<2xf32>
  %t = stablehlo.transpose %a, dims = [1, 0] : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %t_static = tensor.cast %t : tensor<?x?xf32> to tensor<3x2xf32>
  check.expect_almost_eq_const(%t_static, dense<[[1.0, 4.0], [2.0, 5.0], [3.0, 6.0]]> : tensor<3x2xf32>) : tensor<3x2xf32>
  return
}

func.func @dynamic_index_select() {
  %x = flow.tensor.dynamic_constant dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi32> -> tensor<?x?xi32>
  %i = flow.tensor.dynamic_constant dense<[2, 2, 0]> : tensor<3xi32> -> tensor<?xi32>
  %s = "stablehlo.torch_index_select"(%x, %i) {dim = -2 : i64, batch_dims = 0 : i64} : (tensor<?x?xi32>, tensor<?xi32>) -> tensor<?x?xi32>
  %s_static = tensor.cast %s : tensor<?x?xi32> to tensor<3x2xi32>
  check.expect_eq_const(%s_static, dense<[[5, 6], [5, 6], [1, 2]]> : tensor<3x2xi32>) : tensor<3x2xi32>
  return
}
