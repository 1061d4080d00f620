// A small MLP in the shape of examples/mlp.mlir (matmul + bias + relu, then matmul + bias) with a
// softmax head: batch 2, 4 -> 3 -> 2. Hidden and logits are checked as well as probabilities.
func.func private @dense(%x: tensor<2x4xf32>, %w: tensor<4x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x3xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  %m = linalg.matmul ins(%x, %w : tensor<2x4xf32>, tensor<4x3xf32>) outs(%f : tensor<2x3xf32>) -> tensor<2x3xf32>
  %h = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%m, %b : tensor<2x3xf32>, tensor<3xf32>) outs(%e : tensor<2x3xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<2x3xf32>
  return %h : tensor<2x3xf32>
}

func.func private @mlp(%x: tensor<2x4xf32>, %w1: tensor<4x3xf32>, %b1: tensor<3xf32>, %w2: tensor<3x2xf32>, %b2: tensor<2xf32>)
    -> (tensor<2x3xf32>, tensor<2x2xf32>, tensor<2x2xf32>) {
  %h = call @dense(%x, %w1, %b1) : (tensor<2x4xf32>, tensor<4x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<2x2xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %m = linalg.matmul ins(%h, %w2 : tensor<2x3xf32>, tensor<3x2xf32>) outs(%f : tensor<2x2xf32>) -> tensor<2x2xf32>
  %logits = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                            iterator_types = ["parallel", "parallel"]}
      ins(%m, %b2 : tensor<2x2xf32>, tensor<2xf32>) outs(%e : tensor<2x2xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<2x2xf32>
  %er = tensor.empty() : tensor<2xf32>
  %mx0 = linalg.fill ins(%ninf : f32) outs(%er : tensor<2xf32>) -> tensor<2xf32>
  %mx = linalg.reduce ins(%logits : tensor<2x2xf32>) outs(%mx0 : tensor<2xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %r = arith.maximumf %in, %acc : f32
      linalg.yield %r : f32
    }
  %ex = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
                        iterator_types = ["parallel", "parallel"]}
      ins(%logits, %mx : tensor<2x2xf32>, tensor<2xf32>) outs(%e : tensor<2x2xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %d = arith.subf %a, %c : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<2x2xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%er : tensor<2xf32>) -> tensor<2xf32>
  %sum = linalg.reduce ins(%ex : tensor<2x2xf32>) outs(%s0 : tensor<2xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %r = arith.addf %in, %acc : f32
      linalg.yield %r : f32
    }
  %p = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%ex, %sum : tensor<2x2xf32>, tensor<2xf32>) outs(%e : tensor<2x2xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %r = arith.divf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<2x2xf32>
  return %h, %logits, %p : tensor<2x3xf32>, tensor<2x2xf32>, tensor<2x2xf32>
}

func.func @mlp_2x4x3x2() {
  %x = util.unfoldable_constant dense<[[1.0, -1.0, 2.0, 0.5], [0.0, 3.0, -2.0, 1.0]]> : tensor<2x4xf32>
  %w1 = util.unfoldable_constant dense<[[0.5, -1.0, 0.25], [1.0, 0.5, -0.5], [-0.5, 0.25, 1.0], [2.0, 0.0, -1.0]]> : tensor<4x3xf32>
  %b1 = util.unfoldable_constant dense<[0.1, -0.2, 0.3]> : tensor<3xf32>
  %w2 = util.unfoldable_constant dense<[[1.0, -1.0], [0.5, 2.0], [-1.5, 0.5]]> : tensor<3x2xf32>
  %b2 = util.unfoldable_constant dense<[0.25, -0.25]> : tensor<2xf32>
  %r:3 = call @mlp(%x, %w1, %b1, %w2, %b2) : (tensor<2x4xf32>, tensor<4x3xf32>, tensor<3xf32>, tensor<3x2xf32>, tensor<2xf32>)
      -> (tensor<2x3xf32>, tensor<2x2xf32>, tensor<2x2xf32>)
  check.expect_almost_eq_const(%r#0, dense<[[0.0, 0.0, 2.55], [6.1, 0.8, 0.0]]> : tensor<2x3xf32>) : tensor<2x3xf32>
  check.expect_almost_eq_const(%r#1, dense<[[-3.575, 1.025], [6.75, -4.75]]> : tensor<2x2xf32>) : tensor<2x2xf32>
  check.expect_almost_eq_const(%r#2, dense<[[0.0099518029, 0.99004817], [0.99998987, 1.0129990e-05]]> : tensor<2x2xf32>, atol 1.0e-06, rtol 1.0e-05) : tensor<2x2xf32>
  return
}
