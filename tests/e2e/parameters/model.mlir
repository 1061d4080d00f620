// Globals initialized from named parameters (IREE's #flow.parameter.named), scoped and unscoped,
// constant and mutable, read at load time from the files given to rt.load(parameters=...).
util.global private @weight = #flow.parameter.named<"model"::"weight"> : tensor<2x3xf32>
util.global private @bias = #flow.parameter.named<"bias"> : tensor<3xf32>
util.global private @table = #flow.parameter.named<"model"::"table"> : tensor<4xi8>
util.global private mutable @counter = #flow.parameter.named<"model"::"counter"> : tensor<2xi32>

func.func @affine(%x: tensor<1x2xf32>) -> tensor<1x3xf32> {
  %w = util.global.load @weight : tensor<2x3xf32>
  %b = util.global.load @bias : tensor<3xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x3xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<1x3xf32>) -> tensor<1x3xf32>
  %p = linalg.matmul ins(%x, %w : tensor<1x2xf32>, tensor<2x3xf32>) outs(%acc : tensor<1x3xf32>) -> tensor<1x3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>,
                                        affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%p, %b : tensor<1x3xf32>, tensor<3xf32>) outs(%e : tensor<1x3xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<1x3xf32>
  return %r : tensor<1x3xf32>
}

func.func @doubled_table() -> tensor<4xi8> {
  %t = util.global.load @table : tensor<4xi8>
  %d = arith.addi %t, %t : tensor<4xi8>
  return %d : tensor<4xi8>
}

func.func @bump() -> tensor<2xi32> {
  %c = util.global.load @counter : tensor<2xi32>
  %one = arith.constant dense<1> : tensor<2xi32>
  %n = arith.addi %c, %one : tensor<2xi32>
  util.global.store %n, @counter : tensor<2xi32>
  return %n : tensor<2xi32>
}
