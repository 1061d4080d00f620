// A private helper taking tensor, f32, i32 and index arguments and returning four results.
func.func private @scale_sum(%t: tensor<?xf32>, %scale: f32, %bias: i32, %n: index)
    -> (tensor<?xf32>, f32, i32, index) {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %t, %c0 : tensor<?xf32>
  %e = tensor.empty(%d) : tensor<?xf32>
  %scaled = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                            iterator_types = ["parallel"]}
      ins(%t : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.mulf %x, %scale : f32
    linalg.yield %y : f32
  } -> tensor<?xf32>
  %two = arith.constant 2.0 : f32
  %total = arith.mulf %scale, %two : f32
  %one = arith.constant 1 : i32
  %b1 = arith.addi %bias, %one : i32
  %dn = arith.muli %d, %n : index
  return %scaled, %total, %b1, %dn : tensor<?xf32>, f32, i32, index
}

func.func @call_multi_result() {
  %t = util.unfoldable_constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %dyn = tensor.cast %t : tensor<4xf32> to tensor<?xf32>
  %scale = util.unfoldable_constant 0.5 : f32
  %bias = util.unfoldable_constant 41 : i32
  %n = util.unfoldable_constant 3 : index
  %r:4 = call @scale_sum(%dyn, %scale, %bias, %n) : (tensor<?xf32>, f32, i32, index) -> (tensor<?xf32>, f32, i32, index)
  %st = tensor.cast %r#0 : tensor<?xf32> to tensor<4xf32>
  check.expect_almost_eq_const(%st, dense<[0.5, 1.0, 1.5, 2.0]> : tensor<4xf32>) : tensor<4xf32>
  %want_sum = arith.constant 1.0 : f32
  %sum_ok = arith.cmpf oeq, %r#1, %want_sum : f32
  check.expect_true(%sum_ok) : i1
  %want_bias = arith.constant 42 : i32
  %bias_ok = arith.cmpi eq, %r#2, %want_bias : i32
  check.expect_true(%bias_ok) : i1
  %want_n = arith.constant 12 : index
  %n_ok = arith.cmpi eq, %r#3, %want_n : index
  check.expect_true(%n_ok) : i1
  return
}
