// linalg.generic with two outputs: parallel (sum and difference; f32 and i32) and reduction (argmax).
func.func @sum_and_difference() {
  %a = util.unfoldable_constant dense<[5.0, 1.5, -2.0]> : tensor<3xf32>
  %b = util.unfoldable_constant dense<[1.0, 2.5, -3.0]> : tensor<3xf32>
  %e = tensor.empty() : tensor<3xf32>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                         iterator_types = ["parallel"]}
      ins(%a, %b : tensor<3xf32>, tensor<3xf32>) outs(%e, %e : tensor<3xf32>, tensor<3xf32>) {
  ^bb0(%x: f32, %y: f32, %o0: f32, %o1: f32):
    %s = arith.addf %x, %y : f32
    %d = arith.subf %x, %y : f32
    linalg.yield %s, %d : f32, f32
  } -> (tensor<3xf32>, tensor<3xf32>)
  check.expect_eq_const(%r#0, dense<[6.0, 4.0, -5.0]> : tensor<3xf32>) : tensor<3xf32>
  check.expect_eq_const(%r#1, dense<[4.0, -1.0, 1.0]> : tensor<3xf32>) : tensor<3xf32>
  return
}

func.func @value_and_rounded_int() {
  %a = util.unfoldable_constant dense<[[1.25, -2.75], [3.5, 0.0]]> : tensor<2x2xf32>
  %ef = tensor.empty() : tensor<2x2xf32>
  %ei = tensor.empty() : tensor<2x2xi32>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i, j)>],
                         iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<2x2xf32>) outs(%ef, %ei : tensor<2x2xf32>, tensor<2x2xi32>) {
  ^bb0(%x: f32, %o0: f32, %o1: i32):
    %n = arith.negf %x : f32
    %fl = math.floor %x : f32
    %i = arith.fptosi %fl : f32 to i32
    linalg.yield %n, %i : f32, i32
  } -> (tensor<2x2xf32>, tensor<2x2xi32>)
  check.expect_eq_const(%r#0, dense<[[-1.25, -3.5], [2.75, -0.0]]> : tensor<2x2xf32>) : tensor<2x2xf32>
  check.expect_eq_const(%r#1, dense<[[1, -3], [3, 0]]> : tensor<2x2xi32>) : tensor<2x2xi32>
  return
}

func.func @argmax_rows() {
  %x = util.unfoldable_constant dense<[[3.0, -1.0, 7.0, 2.0], [-5.0, 4.0, 4.0, 0.5], [1.0, 1.0, -2.0, 9.0]]> : tensor<3x4xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0 : i32
  %ev = tensor.empty() : tensor<3xf32>
  %ei = tensor.empty() : tensor<3xi32>
  %v0 = linalg.fill ins(%ninf : f32) outs(%ev : tensor<3xf32>) -> tensor<3xf32>
  %i0 = linalg.fill ins(%zero : i32) outs(%ei : tensor<3xi32>) -> tensor<3xi32>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<3x4xf32>) outs(%v0, %i0 : tensor<3xf32>, tensor<3xi32>) {
  ^bb0(%v: f32, %best: f32, %idx: i32):
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i32
    %gt = arith.cmpf ogt, %v, %best : f32
    %nb = arith.select %gt, %v, %best : f32
    %ni = arith.select %gt, %ji, %idx : i32
    linalg.yield %nb, %ni : f32, i32
  } -> (tensor<3xf32>, tensor<3xi32>)
  check.expect_eq_const(%r#0, dense<[7.0, 4.0, 9.0]> : tensor<3xf32>) : tensor<3xf32>
  check.expect_eq_const(%r#1, dense<[2, 1, 3]> : tensor<3xi32>) : tensor<3xi32>
  return
}
