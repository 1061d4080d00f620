// linalg.generic elementwise with three inputs, a captured scalar, and mixed input types.
func.func @three_inputs_fma() {
  %a = util.unfoldable_constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %b = util.unfoldable_constant dense<[[0.5, 0.5], [-1.0, 2.0]]> : tensor<2x2xf32>
  %c = util.unfoldable_constant dense<[[10.0, 20.0], [30.0, 40.0]]> : tensor<2x2xf32>
  %k = util.unfoldable_constant 2.0 : f32
  %e = tensor.empty() : tensor<2x2xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>,
                                        affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%a, %b, %c : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %p, %z : f32
    %r = arith.mulf %s, %k : f32
    linalg.yield %r : f32
  } -> tensor<2x2xf32>
  check.expect_almost_eq_const(%r, dense<[[21.0, 42.0], [54.0, 96.0]]> : tensor<2x2xf32>) : tensor<2x2xf32>
  return
}

func.func @mixed_types_scale_i8() {
  %q = util.unfoldable_constant dense<[-128, -1, 0, 1, 127]> : tensor<5xi8>
  %s = util.unfoldable_constant dense<[0.5, 0.5, 0.5, 0.25, 0.25]> : tensor<5xf32>
  %e = tensor.empty() : tensor<5xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%q, %s : tensor<5xi8>, tensor<5xf32>) outs(%e : tensor<5xf32>) {
  ^bb0(%x: i8, %y: f32, %o: f32):
    %xf = arith.sitofp %x : i8 to f32
    %r = arith.mulf %xf, %y : f32
    linalg.yield %r : f32
  } -> tensor<5xf32>
  check.expect_eq_const(%r, dense<[-64.0, -0.5, 0.0, 0.25, 31.75]> : tensor<5xf32>) : tensor<5xf32>
  return
}

func.func @reads_output_operand() {
  %x = util.unfoldable_constant dense<[1, 2, 3]> : tensor<3xi32>
  %acc = util.unfoldable_constant dense<[100, 200, 300]> : tensor<3xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%x : tensor<3xi32>) outs(%acc : tensor<3xi32>) {
  ^bb0(%v: i32, %o: i32):
    %r = arith.subi %o, %v : i32
    linalg.yield %r : i32
  } -> tensor<3xi32>
  check.expect_eq_const(%r, dense<[99, 198, 297]> : tensor<3xi32>) : tensor<3xi32>
  return
}
