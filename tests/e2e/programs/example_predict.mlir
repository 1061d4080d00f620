// The bundled example examples/predict.mlir (@predict: 2x10 dense layer + softmax) as a check
// test, with the input 1x2xf32=0.5,-1 and the expected output given in examples/README.md.
func.func private @predict(%x: tensor<1x2xf32>) -> tensor<1x10xf32> {
  %w = arith.constant dense<[[0.1, -0.2, 0.3, -0.4, 0.5, -0.6, 0.7, -0.8, 0.9, -1.0],
                             [1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1]]> : tensor<2x10xf32>
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<1x10xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x10xf32>) -> tensor<1x10xf32>
  %logits = linalg.matmul ins(%x, %w : tensor<1x2xf32>, tensor<2x10xf32>) outs(%f : tensor<1x10xf32>) -> tensor<1x10xf32>
  %e0 = tensor.empty() : tensor<f32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %max = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%logits : tensor<1x10xf32>) outs(%m0 : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.maximumf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %ex = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%logits, %max : tensor<1x10xf32>, tensor<f32>) outs(%e : tensor<1x10xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<1x10xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %sum = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%ex : tensor<1x10xf32>) outs(%s0 : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %p = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%ex, %sum : tensor<1x10xf32>, tensor<f32>) outs(%e : tensor<1x10xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %r = arith.divf %a, %s : f32
    linalg.yield %r : f32
  } -> tensor<1x10xf32>
  return %p : tensor<1x10xf32>
}

func.func @predict_readme_input() {
  %x = util.unfoldable_constant dense<[[0.5, -1.0]]> : tensor<1x2xf32>
  %p = call @predict(%x) : (tensor<1x2xf32>) -> tensor<1x10xf32>
  check.expect_almost_eq_const(%p, dense<[[0.0632146, 0.0601316, 0.0853308, 0.0664557, 0.115185, 0.0734449, 0.155483, 0.0811692, 0.20988, 0.0897058]]> : tensor<1x10xf32>, atol 1.0e-06, rtol 1.0e-05) : tensor<1x10xf32>
  return
}
