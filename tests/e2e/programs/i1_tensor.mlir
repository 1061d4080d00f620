// i1 tensors: logic ops, i1 -> i32 extension, i1 constants and reductions with ori.
func.func @i1_logic() {
  %a = util.unfoldable_constant dense<[true, true, false, false]> : tensor<4xi1>
  %b = util.unfoldable_constant dense<[true, false, true, false]> : tensor<4xi1>
  %and = arith.andi %a, %b : tensor<4xi1>
  %or = arith.ori %a, %b : tensor<4xi1>
  %xor = arith.xori %a, %b : tensor<4xi1>
  check.expect_eq_const(%and, dense<[true, false, false, false]> : tensor<4xi1>) : tensor<4xi1>
  check.expect_eq_const(%or, dense<[true, true, true, false]> : tensor<4xi1>) : tensor<4xi1>
  check.expect_eq_const(%xor, dense<[false, true, true, false]> : tensor<4xi1>) : tensor<4xi1>
  return
}

func.func @i1_extend() {
  %a = util.unfoldable_constant dense<[true, false, true]> : tensor<3xi1>
  %u = arith.extui %a : tensor<3xi1> to tensor<3xi32>
  %s = arith.extsi %a : tensor<3xi1> to tensor<3xi32>
  check.expect_eq_const(%u, dense<[1, 0, 1]> : tensor<3xi32>) : tensor<3xi32>
  check.expect_eq_const(%s, dense<[-1, 0, -1]> : tensor<3xi32>) : tensor<3xi32>
  return
}

func.func @i1_any_all() {
  %x = util.unfoldable_constant dense<[[false, true, false], [true, true, true]]> : tensor<2x3xi1>
  %false = arith.constant false
  %true = arith.constant true
  %e = tensor.empty() : tensor<2xi1>
  %any0 = linalg.fill ins(%false : i1) outs(%e : tensor<2xi1>) -> tensor<2xi1>
  %all0 = linalg.fill ins(%true : i1) outs(%e : tensor<2xi1>) -> tensor<2xi1>
  %any = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<2x3xi1>) outs(%any0 : tensor<2xi1>) {
  ^bb0(%v: i1, %a: i1):
    %r = arith.ori %v, %a : i1
    linalg.yield %r : i1
  } -> tensor<2xi1>
  %all = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<2x3xi1>) outs(%all0 : tensor<2xi1>) {
  ^bb0(%v: i1, %a: i1):
    %r = arith.andi %v, %a : i1
    linalg.yield %r : i1
  } -> tensor<2xi1>
  check.expect_eq_const(%any, dense<[true, true]> : tensor<2xi1>) : tensor<2xi1>
  check.expect_eq_const(%all, dense<[false, true]> : tensor<2xi1>) : tensor<2xi1>
  return
}
