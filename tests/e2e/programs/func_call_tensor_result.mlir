// A private helper that takes only sizes and returns dynamic tensors it builds itself (the
// source generators of IREE's pack/unpack tests): its results cross the call as
// resource + size + dims although no tensor goes in.
func.func private @iota_2d(%h : index, %w : index) -> tensor<?x?xi32> {
  %e = tensor.empty(%h, %w) : tensor<?x?xi32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<?x?xi32>) {
    ^bb0(%b0 : i32):
      %i = linalg.index 0 : index
      %j = linalg.index 1 : index
      %r = arith.muli %i, %w : index
      %l = arith.addi %j, %r : index
      %c = arith.index_cast %l : index to i32
      linalg.yield %c : i32
  } -> tensor<?x?xi32>
  %0 = util.optimization_barrier %s : tensor<?x?xi32>
  return %0 : tensor<?x?xi32>
}

func.func private @two_results(%n : index) -> (tensor<?xf32>, tensor<2x?xf32>) {
  %c2 = arith.constant 2 : index
  %one = arith.constant 1.5 : f32
  %two = arith.constant -2.0 : f32
  %e0 = tensor.empty(%n) : tensor<?xf32>
  %a = linalg.fill ins(%one : f32) outs(%e0 : tensor<?xf32>) -> tensor<?xf32>
  %e1 = tensor.empty(%n) : tensor<2x?xf32>
  %b = linalg.fill ins(%two : f32) outs(%e1 : tensor<2x?xf32>) -> tensor<2x?xf32>
  return %a, %b : tensor<?xf32>, tensor<2x?xf32>
}

func.func @sizes_in_tensor_out() {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %g = call @iota_2d(%c2, %c3) : (index, index) -> tensor<?x?xi32>
  %c = tensor.cast %g : tensor<?x?xi32> to tensor<2x3xi32>
  check.expect_eq_const(%c, dense<[[0, 1, 2], [3, 4, 5]]> : tensor<2x3xi32>) : tensor<2x3xi32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d1 = tensor.dim %g, %c1 : tensor<?x?xi32>
  %d1_i32 = arith.index_cast %d1 : index to i32
  %three = arith.constant 3 : i32
  %same = arith.cmpi eq, %d1_i32, %three : i32
  check.expect_true(%same) : i1
  return
}

func.func @two_dynamic_results() {
  %c4 = arith.constant 4 : index
  %a, %b = call @two_results(%c4) : (index) -> (tensor<?xf32>, tensor<2x?xf32>)
  %ca = tensor.cast %a : tensor<?xf32> to tensor<4xf32>
  %cb = tensor.cast %b : tensor<2x?xf32> to tensor<2x4xf32>
  check.expect_almost_eq_const(%ca, dense<1.5> : tensor<4xf32>) : tensor<4xf32>
  check.expect_almost_eq_const(%cb, dense<-2.0> : tensor<2x4xf32>) : tensor<2x4xf32>
  return
}
