// linalg.reduce: sum over dim 1, max over dim 0, i32 sum over both dims.
func.func @reduce_sum_dim1() {
  %x = util.unfoldable_constant dense<[[3.0, -1.0, 7.0, 2.0], [-5.0, 4.0, 4.0, 0.5], [1.0, 1.0, -2.0, 9.0]]> : tensor<3x4xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<3xf32>) -> tensor<3xf32>
  %r = linalg.reduce ins(%x : tensor<3x4xf32>) outs(%f : tensor<3xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  check.expect_almost_eq_const(%r, dense<[11.0, 3.5, 9.0]> : tensor<3xf32>) : tensor<3xf32>
  return
}

func.func @reduce_max_dim0() {
  %x = util.unfoldable_constant dense<[[3.0, -1.0, 7.0, 2.0], [-5.0, 4.0, 4.0, 0.5], [1.0, 1.0, -2.0, 9.0]]> : tensor<3x4xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.reduce ins(%x : tensor<3x4xf32>) outs(%f : tensor<4xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %m = arith.maximumf %in, %acc : f32
      linalg.yield %m : f32
    }
  check.expect_eq_const(%r, dense<[3.0, 4.0, 7.0, 9.0]> : tensor<4xf32>) : tensor<4xf32>
  return
}

func.func @reduce_all_i32() {
  %x = util.unfoldable_constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<i32>
  %f = linalg.fill ins(%zero : i32) outs(%e : tensor<i32>) -> tensor<i32>
  %r = linalg.reduce ins(%x : tensor<2x3xi32>) outs(%f : tensor<i32>) dimensions = [0, 1]
    (%in: i32, %acc: i32) {
      %s = arith.addi %in, %acc : i32
      linalg.yield %s : i32
    }
  check.expect_eq_const(%r, dense<21> : tensor<i32>) : tensor<i32>
  return
}
