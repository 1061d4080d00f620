// Row-wise softmax on a dynamically shaped tensor<?x?xf32>: max-reduce, sub+exp, sum-reduce, divide.
func.func private @softmax_rows(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %n = tensor.dim %x, %c1 : tensor<?x?xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %er = tensor.empty(%m) : tensor<?xf32>
  %mx0 = linalg.fill ins(%ninf : f32) outs(%er : tensor<?xf32>) -> tensor<?xf32>
  %mx = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                        iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x?xf32>) outs(%mx0 : tensor<?xf32>) {
  ^bb0(%v: f32, %a: f32):
    %r = arith.maximumf %v, %a : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %ex = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
                        iterator_types = ["parallel", "parallel"]}
      ins(%x, %mx : tensor<?x?xf32>, tensor<?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%v: f32, %mv: f32, %o: f32):
    %d = arith.subf %v, %mv : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<?x?xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%er : tensor<?xf32>) -> tensor<?xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%ex : tensor<?x?xf32>) outs(%s0 : tensor<?xf32>) {
  ^bb0(%v: f32, %a: f32):
    %r = arith.addf %v, %a : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%ex, %sum : tensor<?x?xf32>, tensor<?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %r = arith.divf %v, %s : f32
    linalg.yield %r : f32
  } -> tensor<?x?xf32>
  return %p : tensor<?x?xf32>
}

func.func @softmax_2x3() {
  %x = util.unfoldable_constant dense<[[1.0, 2.0, 3.0], [1.0, 1.0, 1.0]]> : tensor<2x3xf32>
  %d = tensor.cast %x : tensor<2x3xf32> to tensor<?x?xf32>
  %p = call @softmax_rows(%d) : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %s = tensor.cast %p : tensor<?x?xf32> to tensor<2x3xf32>
  check.expect_almost_eq_const(%s, dense<[[0.09003057, 0.24472847, 0.66524096], [0.33333334, 0.33333334, 0.33333334]]> : tensor<2x3xf32>) : tensor<2x3xf32>
  return
}

func.func @softmax_1x4_large_logits() {
  %x = util.unfoldable_constant dense<[[1000.0, 1000.0, 999.0, -1000.0]]> : tensor<1x4xf32>
  %d = tensor.cast %x : tensor<1x4xf32> to tensor<?x?xf32>
  %p = call @softmax_rows(%d) : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %s = tensor.cast %p : tensor<?x?xf32> to tensor<1x4xf32>
  check.expect_almost_eq_const(%s, dense<[[0.42231882, 0.42231882, 0.15536241, 0.0]]> : tensor<1x4xf32>) : tensor<1x4xf32>
  return
}
