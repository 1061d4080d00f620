// tensor.extract_slice of tensors computed in the same dispatch: strided slices of an index
// generator and of an elementwise producer (only the sliced elements are computed), a strided
// slice of a reduction (kept whole in scratch), a dynamic offset, and a 600x600 producer whose
// strided slice must not need the whole producer in workgroup scratch.
// Expected values computed with numpy.

// iota 40x30 -> slice [2, 3] [10, 8] [3, 2], stored as it is
func.func @strided_slice_of_iota() {
  %g_e = tensor.empty() : tensor<40x30xi32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      outs(%g_e : tensor<40x30xi32>) {
    ^bb0(%o : i32):
      %i = linalg.index 0 : index
      %j = linalg.index 1 : index
      %c30 = arith.constant 30 : index
      %r = arith.muli %i, %c30 : index
      %l = arith.addi %r, %j : index
      %v = arith.index_cast %l : index to i32
      linalg.yield %v : i32
  } -> tensor<40x30xi32>
  %s = tensor.extract_slice %g[2, 3] [10, 8] [3, 2] : tensor<40x30xi32> to tensor<10x8xi32>
  check.expect_eq_const(%s, dense<[[63, 65, 67, 69, 71, 73, 75, 77], [153, 155, 157, 159, 161, 163, 165, 167], [243, 245, 247, 249, 251, 253, 255, 257], [333, 335, 337, 339, 341, 343, 345, 347], [423, 425, 427, 429, 431, 433, 435, 437], [513, 515, 517, 519, 521, 523, 525, 527], [603, 605, 607, 609, 611, 613, 615, 617], [693, 695, 697, 699, 701, 703, 705, 707], [783, 785, 787, 789, 791, 793, 795, 797], [873, 875, 877, 879, 881, 883, 885, 887]]> : tensor<10x8xi32>) : tensor<10x8xi32>
  return
}

// 2x+1 -> slice [1, 0] [4, 5] [2, 2] -> + y: producer and consumer around the slice
func.func @strided_slice_between_elementwise() {
  %x = util.unfoldable_constant dense<[[31, -42, -33, -27, -32, 30, 36, 8, -47, -41, -17, -7], [12, -3, -24, -35, 19, 23, -47, -39, -5, -11, 38, 1], [-8, -7, 16, 8, -33, 23, 25, 45, 28, -22, -19, 14], [15, 19, 36, -21, 43, -50, -43, 47, 44, -21, -37, -19], [-46, 39, 16, 8, -26, -3, -31, 27, -3, -47, -25, 20], [1, -13, -25, -41, 10, 16, 2, 43, 42, -30, 10, 13], [-26, -21, -2, 24, -21, 22, 15, -29, -12, 32, 34, 15], [-50, 18, -28, 32, 41, -8, 45, 25, -18, 37, -12, -40], [9, 34, 15, -11, 40, -3, -12, -36, -29, 19, 29, -21]]> : tensor<9x12xi32>
  %y = util.unfoldable_constant dense<[[1, 3, -4, -3, 0], [0, -2, -2, -4, 1], [4, -4, 2, -4, -5], [2, -4, 2, -2, 0]]> : tensor<4x5xi32>
  %two = arith.constant dense<2> : tensor<9x12xi32>
  %one = arith.constant dense<1> : tensor<9x12xi32>
  %m = arith.muli %x, %two : tensor<9x12xi32>
  %p = arith.addi %m, %one : tensor<9x12xi32>
  %s = tensor.extract_slice %p[1, 0] [4, 5] [2, 2] : tensor<9x12xi32> to tensor<4x5xi32>
  %r = arith.addi %s, %y : tensor<4x5xi32>
  check.expect_eq_const(%r, dense<[[26, -44, 35, -96, -9], [31, 71, 85, -89, 90], [7, -53, 23, 1, 80], [-97, -59, 85, 89, -35]]> : tensor<4x5xi32>) : tensor<4x5xi32>
  return
}

// row sums of 12x7 -> slice [1] [5] [2] -> * 3: the reduction stays whole
func.func @strided_slice_of_reduction() {
  %z = util.unfoldable_constant dense<[[7.0, 7.0, -1.0, -6.0, -5.0, 6.0, 1.0], [-6.0, 6.0, 8.0, 8.0, 2.0, 8.0, 1.0], [0.0, 8.0, 1.0, 5.0, -3.0, 5.0, 8.0], [-9.0, 0.0, -3.0, -9.0, -8.0, -5.0, -6.0], [3.0, -6.0, 2.0, 6.0, -1.0, -7.0, -8.0], [-4.0, -2.0, -1.0, -4.0, 6.0, 1.0, 8.0], [7.0, 3.0, -9.0, -6.0, 4.0, 0.0, 7.0], [3.0, 5.0, -9.0, -4.0, 3.0, 2.0, -3.0], [-7.0, 1.0, -8.0, 3.0, 5.0, 3.0, -8.0], [0.0, -4.0, 0.0, 3.0, -6.0, -9.0, -1.0], [2.0, -7.0, 7.0, -1.0, 8.0, 0.0, 4.0], [4.0, -1.0, -2.0, 3.0, -9.0, 2.0, 0.0]]> : tensor<12x7xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<12xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<12xf32>) -> tensor<12xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%z : tensor<12x7xf32>) outs(%f : tensor<12xf32>) {
    ^bb0(%in : f32, %acc : f32):
      %a = arith.addf %in, %acc : f32
      linalg.yield %a : f32
  } -> tensor<12xf32>
  %s = tensor.extract_slice %sum[1] [5] [2] : tensor<12xf32> to tensor<5xf32>
  %three = arith.constant dense<3.0> : tensor<5xf32>
  %r = arith.mulf %s, %three : tensor<5xf32>
  check.expect_almost_eq_const(%r, dense<[81.0, -120.0, 12.0, -9.0, -51.0]> : tensor<5xf32>) : tensor<5xf32>
  return
}

// iota 6x5 -> slice at a run-time offset [%o, 1] [3, 2] [2, 2]
func.func @dynamic_offset_slice_of_iota() {
  %g_e = tensor.empty() : tensor<6x5xi32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      outs(%g_e : tensor<6x5xi32>) {
    ^bb0(%o : i32):
      %i = linalg.index 0 : index
      %j = linalg.index 1 : index
      %c5 = arith.constant 5 : index
      %r = arith.muli %i, %c5 : index
      %l = arith.addi %r, %j : index
      %v = arith.index_cast %l : index to i32
      linalg.yield %v : i32
  } -> tensor<6x5xi32>
  %o = util.unfoldable_constant 1 : index
  %s = tensor.extract_slice %g[%o, 1] [3, 2] [2, 2] : tensor<6x5xi32> to tensor<3x2xi32>
  check.expect_eq_const(%s, dense<[[6, 8], [16, 18], [26, 28]]> : tensor<3x2xi32>) : tensor<3x2xi32>
  return
}

// iota 600x600 (1.4 MB) -> slice [3, 3] [149, 148] [4, 4], checked by its row sums
func.func @strided_slice_of_large_iota() {
  %g_e = tensor.empty() : tensor<600x600xi32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      outs(%g_e : tensor<600x600xi32>) {
    ^bb0(%o : i32):
      %i = linalg.index 0 : index
      %j = linalg.index 1 : index
      %c600 = arith.constant 600 : index
      %r = arith.muli %i, %c600 : index
      %l = arith.addi %r, %j : index
      %v = arith.index_cast %l : index to i32
      linalg.yield %v : i32
  } -> tensor<600x600xi32>
  %s = tensor.extract_slice %g[3, 3] [149, 148] [4, 4] : tensor<600x600xi32> to tensor<149x148xi32>
  %zero = arith.constant 0 : i32
  %e2 = tensor.empty() : tensor<149xi32>
  %f = linalg.fill ins(%zero : i32) outs(%e2 : tensor<149xi32>) -> tensor<149xi32>
  %rows = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%s : tensor<149x148xi32>) outs(%f : tensor<149xi32>) {
    ^bb0(%in : i32, %acc : i32):
      %a = arith.addi %in, %acc : i32
      linalg.yield %a : i32
  } -> tensor<149xi32>
  check.expect_eq_const(%rows, dense<[310356, 665556, 1020756, 1375956, 1731156, 2086356, 2441556, 2796756, 3151956, 3507156, 3862356, 4217556, 4572756, 4927956, 5283156, 5638356, 5993556, 6348756, 6703956, 7059156, 7414356, 7769556, 8124756, 8479956, 8835156, 9190356, 9545556, 9900756, 10255956, 10611156, 10966356, 11321556, 11676756, 12031956, 12387156, 12742356, 13097556, 13452756, 13807956, 14163156, 14518356, 14873556, 15228756, 15583956, 15939156, 16294356, 16649556, 17004756, 17359956, 17715156, 18070356, 18425556, 18780756, 19135956, 19491156, 19846356, 20201556, 20556756, 20911956, 21267156, 21622356, 21977556, 22332756, 22687956, 23043156, 23398356, 23753556, 24108756, 24463956, 24819156, 25174356, 25529556, 25884756, 26239956, 26595156, 26950356, 27305556, 27660756, 28015956, 28371156, 28726356, 29081556, 29436756, 29791956, 30147156, 30502356, 30857556, 31212756, 31567956, 31923156, 32278356, 32633556, 32988756, 33343956, 33699156, 34054356, 34409556, 34764756, 35119956, 35475156, 35830356, 36185556, 36540756, 36895956, 37251156, 37606356, 37961556, 38316756, 38671956, 39027156, 39382356, 39737556, 40092756, 40447956, 40803156, 41158356, 41513556, 41868756, 42223956, 42579156, 42934356, 43289556, 43644756, 43999956, 44355156, 44710356, 45065556, 45420756, 45775956, 46131156, 46486356, 46841556, 47196756, 47551956, 47907156, 48262356, 48617556, 48972756, 49327956, 49683156, 50038356, 50393556, 50748756, 51103956, 51459156, 51814356, 52169556, 52524756, 52879956]> : tensor<149xi32>) : tensor<149xi32>
  return
}
