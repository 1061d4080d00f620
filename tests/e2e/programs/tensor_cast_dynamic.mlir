// tensor.cast between static and dynamic shapes around elementwise ops and a dynamic reduction.
func.func @cast_roundtrip_elementwise() {
  %x = util.unfoldable_constant dense<[[1.0, -2.0, 3.0], [-4.0, 5.0, -6.0]]> : tensor<2x3xf32>
  %d = tensor.cast %x : tensor<2x3xf32> to tensor<?x?xf32>
  %a = math.absf %d : tensor<?x?xf32>
  %p = tensor.cast %a : tensor<?x?xf32> to tensor<2x?xf32>
  %s = tensor.cast %p : tensor<2x?xf32> to tensor<2x3xf32>
  check.expect_eq_const(%s, dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>) : tensor<2x3xf32>
  return
}

func.func @dynamic_row_sum() {
  %x = util.unfoldable_constant dense<[[1, 2, 3, 4, 5], [6, 7, 8, 9, 10], [-1, -1, -1, -1, -1]]> : tensor<3x5xi32>
  %d = tensor.cast %x : tensor<3x5xi32> to tensor<?x?xi32>
  %c0 = arith.constant 0 : index
  %n = tensor.dim %d, %c0 : tensor<?x?xi32>
  %zero = arith.constant 0 : i32
  %e = tensor.empty(%n) : tensor<?xi32>
  %acc = linalg.fill ins(%zero : i32) outs(%e : tensor<?xi32>) -> tensor<?xi32>
  %sum = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%d : tensor<?x?xi32>) outs(%acc : tensor<?xi32>) {
  ^bb0(%v: i32, %a: i32):
    %s = arith.addi %v, %a : i32
    linalg.yield %s : i32
  } -> tensor<?xi32>
  %r = tensor.cast %sum : tensor<?xi32> to tensor<3xi32>
  check.expect_eq_const(%r, dense<[15, 40, -5]> : tensor<3xi32>) : tensor<3xi32>
  return
}
