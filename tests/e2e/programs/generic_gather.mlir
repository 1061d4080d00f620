// tensor.extract at data-dependent indices inside linalg.generic (gather-like bodies) and
// scalars a dispatch computes from loaded tensor values (a causal attention mask).

#row = affine_map<(d0, d1) -> (d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#scalar2 = affine_map<(d0, d1) -> ()>

// Embedding lookup: out[i, j] = table[ids[i], j].
func.func @embedding_rows() {
  %table = util.unfoldable_constant dense<[[0.0, 0.5, 1.0], [10.0, 10.5, 11.0], [20.0, 20.5, 21.0], [30.0, 30.5, 31.0]]> : tensor<4x3xf32>
  %ids = util.unfoldable_constant dense<[3, 0, 2, 2, 1]> : tensor<5xi32>
  %empty = tensor.empty() : tensor<5x3xf32>
  %res = linalg.generic {indexing_maps = [#row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<5xi32>) outs(%empty : tensor<5x3xf32>) {
  ^bb0(%id: i32, %out: f32):
    %r = arith.index_cast %id : i32 to index
    %c = linalg.index 1 : index
    %v = tensor.extract %table[%r, %c] : tensor<4x3xf32>
    linalg.yield %v : f32
  } -> tensor<5x3xf32>
  check.expect_eq_const(%res, dense<[[30.0, 30.5, 31.0], [0.0, 0.5, 1.0], [20.0, 20.5, 21.0], [20.0, 20.5, 21.0], [10.0, 10.5, 11.0]]> : tensor<5x3xf32>) : tensor<5x3xf32>
  return
}

// A gather whose result feeds an elementwise consumer (fused into one dispatch).
func.func @gather_then_add() {
  %table = util.unfoldable_constant dense<[7, -8, 9, 100]> : tensor<4xi8>
  %ids = util.unfoldable_constant dense<[[3, 1], [0, 2]]> : tensor<2x2xi64>
  %bias = util.unfoldable_constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>
  %empty = tensor.empty() : tensor<2x2xi8>
  %g = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<2x2xi64>) outs(%empty : tensor<2x2xi8>) {
  ^bb0(%id: i64, %out: i8):
    %k = arith.index_cast %id : i64 to index
    %v = tensor.extract %table[%k] : tensor<4xi8>
    linalg.yield %v : i8
  } -> tensor<2x2xi8>
  %sum = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%g, %bias : tensor<2x2xi8>, tensor<2x2xi8>) outs(%empty : tensor<2x2xi8>) {
  ^bb0(%a: i8, %b: i8, %out: i8):
    %s = arith.addi %a, %b : i8
    linalg.yield %s : i8
  } -> tensor<2x2xi8>
  check.expect_eq_const(%sum, dense<[[101, -6], [10, 13]]> : tensor<2x2xi8>) : tensor<2x2xi8>
  return
}

// Gather from a table the same program computes (table = a * 2), indices from a reduction.
func.func @gather_from_computed_table() {
  %a = util.unfoldable_constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]> : tensor<6xf32>
  %e6 = tensor.empty() : tensor<6xf32>
  %table = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%a : tensor<6xf32>) outs(%e6 : tensor<6xf32>) {
  ^bb0(%x: f32, %out: f32):
    %y = arith.addf %x, %x : f32
    linalg.yield %y : f32
  } -> tensor<6xf32>
  %ids = util.unfoldable_constant dense<[5, 0, 3]> : tensor<3xi64>
  %e3 = tensor.empty() : tensor<3xf32>
  %res = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%ids : tensor<3xi64>) outs(%e3 : tensor<3xf32>) {
  ^bb0(%id: i64, %out: f32):
    %k = arith.index_cast %id : i64 to index
    %v = tensor.extract %table[%k] : tensor<6xf32>
    linalg.yield %v : f32
  } -> tensor<3xf32>
  check.expect_eq_const(%res, dense<[12.0, 2.0, 8.0]> : tensor<3xf32>) : tensor<3xf32>
  return
}

// Causal mask with a valid length read from a rank-0 tensor inside the body:
// out[i, j] = s[i, j] if j <= i and j < len else -1e9.
func.func @causal_mask_with_length() {
  %s = util.unfoldable_constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0], [13.0, 14.0, 15.0, 16.0]]> : tensor<4x4xf32>
  %len = util.unfoldable_constant dense<3> : tensor<i32>
  %empty = tensor.empty() : tensor<4x4xf32>
  %neg = arith.constant -1.0e9 : f32
  %res = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<4x4xf32>) outs(%empty : tensor<4x4xf32>) {
  ^bb0(%x: f32, %out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %n = tensor.extract %len[] : tensor<i32>
    %ni = arith.index_cast %n : i32 to index
    %causal = arith.cmpi ule, %j, %i : index
    %valid = arith.cmpi ult, %j, %ni : index
    %keep = arith.andi %causal, %valid : i1
    %v = arith.select %keep, %x, %neg : f32
    linalg.yield %v : f32
  } -> tensor<4x4xf32>
  check.expect_eq_const(%res, dense<[[1.0, -1.0e9, -1.0e9, -1.0e9], [5.0, 6.0, -1.0e9, -1.0e9], [9.0, 10.0, 11.0, -1.0e9], [13.0, 14.0, 15.0, -1.0e9]]> : tensor<4x4xf32>) : tensor<4x4xf32>
  return
}

// A gather with a dynamic table and a reduction over gathered values:
// out[i] = sum_k table[ids[i, k]].
func.func @gather_sum_dynamic() {
  %t0 = util.unfoldable_constant dense<[1.0, 10.0, 100.0, 1000.0, 10000.0]> : tensor<5xf32>
  %table = tensor.cast %t0 : tensor<5xf32> to tensor<?xf32>
  %ids = util.unfoldable_constant dense<[[0, 1, 2], [4, 4, 3]]> : tensor<2x3xi32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2xf32>) -> tensor<2xf32>
  %res = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%ids : tensor<2x3xi32>) outs(%init : tensor<2xf32>) {
  ^bb0(%id: i32, %acc: f32):
    %k = arith.index_cast %id : i32 to index
    %v = tensor.extract %table[%k] : tensor<?xf32>
    %s = arith.addf %acc, %v : f32
    linalg.yield %s : f32
  } -> tensor<2xf32>
  check.expect_eq_const(%res, dense<[111.0, 21000.0]> : tensor<2xf32>) : tensor<2xf32>
  return
}
