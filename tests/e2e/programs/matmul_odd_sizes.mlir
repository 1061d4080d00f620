// linalg.matmul 37x53 @ 53x29 on iota-built operands A[i,k] = i + 2k, B[k,n] = k - n (f32).
// Every partial sum is an integer below 2^24, so the result is exact: it is compared with the
// closed form C[i,n] = 1378 i - 53 i n + 96460 - 2756 n (sum_k k = 1378, sum_k k^2 = 48230).
func.func @matmul_37x53x29() {
  %ea = tensor.empty() : tensor<37x53xf32>
  %a = linalg.generic {indexing_maps = [affine_map<(i, k) -> (i, k)>], iterator_types = ["parallel", "parallel"]}
      outs(%ea : tensor<37x53xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %k = linalg.index 1 : index
    %k2 = arith.addi %k, %k : index
    %s = arith.addi %i, %k2 : index
    %si = arith.index_cast %s : index to i32
    %v = arith.sitofp %si : i32 to f32
    linalg.yield %v : f32
  } -> tensor<37x53xf32>
  %eb = tensor.empty() : tensor<53x29xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(k, n) -> (k, n)>], iterator_types = ["parallel", "parallel"]}
      outs(%eb : tensor<53x29xf32>) {
  ^bb0(%o: f32):
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %ki = arith.index_cast %k : index to i32
    %ni = arith.index_cast %n : index to i32
    %d = arith.subi %ki, %ni : i32
    %v = arith.sitofp %d : i32 to f32
    linalg.yield %v : f32
  } -> tensor<53x29xf32>
  %zero = arith.constant 0.0 : f32
  %ec = tensor.empty() : tensor<37x29xf32>
  %f = linalg.fill ins(%zero : f32) outs(%ec : tensor<37x29xf32>) -> tensor<37x29xf32>
  %c = linalg.matmul ins(%a, %b : tensor<37x53xf32>, tensor<53x29xf32>) outs(%f : tensor<37x29xf32>) -> tensor<37x29xf32>
  %want = linalg.generic {indexing_maps = [affine_map<(i, n) -> (i, n)>], iterator_types = ["parallel", "parallel"]}
      outs(%ec : tensor<37x29xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %n = linalg.index 1 : index
    %ii = arith.index_cast %i : index to i32
    %ni = arith.index_cast %n : index to i32
    %c1378 = arith.constant 1378 : i32
    %c53 = arith.constant 53 : i32
    %c96460 = arith.constant 96460 : i32
    %c2756 = arith.constant 2756 : i32
    %t0 = arith.muli %ii, %c1378 : i32
    %in = arith.muli %ii, %ni : i32
    %t1 = arith.muli %in, %c53 : i32
    %t2 = arith.muli %ni, %c2756 : i32
    %u0 = arith.subi %t0, %t1 : i32
    %u1 = arith.addi %u0, %c96460 : i32
    %u2 = arith.subi %u1, %t2 : i32
    %v = arith.sitofp %u2 : i32 to f32
    linalg.yield %v : f32
  } -> tensor<37x29xf32>
  check.expect_eq(%c, %want) : tensor<37x29xf32>
  %top = tensor.extract_slice %c[0, 0] [2, 2] [1, 1] : tensor<37x29xf32> to tensor<2x2xf32>
  %bottom = tensor.extract_slice %c[35, 27] [2, 2] [1, 1] : tensor<37x29xf32> to tensor<2x2xf32>
  check.expect_eq_const(%top, dense<[[96460.0, 93704.0], [97838.0, 95029.0]]> : tensor<2x2xf32>) : tensor<2x2xf32>
  check.expect_eq_const(%bottom, dense<[[20193.0, 15582.0], [20140.0, 15476.0]]> : tensor<2x2xf32>) : tensor<2x2xf32>
  return
}
