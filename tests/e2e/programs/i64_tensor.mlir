// i64 tensors: arithmetic beyond 32 bits, a reduction, comparison and select.
func.func @i64_elementwise() {
  %a = util.unfoldable_constant dense<[4294967296, -4294967296, 9007199254740993, 3]> : tensor<4xi64>
  %b = util.unfoldable_constant dense<[3, 7, 1, -9223372036854775807]> : tensor<4xi64>
  %s = arith.addi %a, %b : tensor<4xi64>
  %m = arith.muli %a, %b : tensor<4xi64>
  %d = arith.divsi %a, %b : tensor<4xi64>
  check.expect_eq_const(%s, dense<[4294967299, -4294967289, 9007199254740994, -9223372036854775804]> : tensor<4xi64>) : tensor<4xi64>
  check.expect_eq_const(%m, dense<[12884901888, -30064771072, 9007199254740993, -9223372036854775805]> : tensor<4xi64>) : tensor<4xi64>
  check.expect_eq_const(%d, dense<[1431655765, -613566756, 9007199254740993, 0]> : tensor<4xi64>) : tensor<4xi64>
  return
}

func.func @i64_sum() {
  %x = util.unfoldable_constant dense<[[4000000000, 4000000000, 4000000000], [-1, -2, -3]]> : tensor<2x3xi64>
  %zero = arith.constant 0 : i64
  %e = tensor.empty() : tensor<2xi64>
  %acc = linalg.fill ins(%zero : i64) outs(%e : tensor<2xi64>) -> tensor<2xi64>
  %sum = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<2x3xi64>) outs(%acc : tensor<2xi64>) {
  ^bb0(%v: i64, %a: i64):
    %s = arith.addi %v, %a : i64
    linalg.yield %s : i64
  } -> tensor<2xi64>
  check.expect_eq_const(%sum, dense<[12000000000, -6]> : tensor<2xi64>) : tensor<2xi64>
  return
}

func.func @i64_cmp_select() {
  %a = util.unfoldable_constant dense<[4294967296, -1, 5]> : tensor<3xi64>
  %b = util.unfoldable_constant dense<[4294967295, 0, 5]> : tensor<3xi64>
  %gt = arith.cmpi sgt, %a, %b : tensor<3xi64>
  %r = arith.select %gt, %a, %b : tensor<3xi1>, tensor<3xi64>
  check.expect_eq_const(%r, dense<[4294967296, 0, 5]> : tensor<3xi64>) : tensor<3xi64>
  return
}
