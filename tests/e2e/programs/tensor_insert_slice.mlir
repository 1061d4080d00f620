// tensor.insert_slice into a filled destination, static and dynamic offsets, strided.
func.func @insert_2d() {
  %src = util.unfoldable_constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<3x4xi32>
  %dst = linalg.fill ins(%zero : i32) outs(%e : tensor<3x4xi32>) -> tensor<3x4xi32>
  %r = tensor.insert_slice %src into %dst[1, 2] [2, 2] [1, 1] : tensor<2x2xi32> into tensor<3x4xi32>
  check.expect_eq_const(%r, dense<[[0, 0, 0, 0], [0, 0, 1, 2], [0, 0, 3, 4]]> : tensor<3x4xi32>) : tensor<3x4xi32>
  return
}

func.func @insert_strided() {
  %src = util.unfoldable_constant dense<[5.0, 6.0, 7.0]> : tensor<3xf32>
  %dst = util.unfoldable_constant dense<-1.0> : tensor<6xf32>
  %r = tensor.insert_slice %src into %dst[1] [3] [2] : tensor<3xf32> into tensor<6xf32>
  check.expect_eq_const(%r, dense<[-1.0, 5.0, -1.0, 6.0, -1.0, 7.0]> : tensor<6xf32>) : tensor<6xf32>
  return
}

func.func @insert_dynamic_offset() {
  %src = util.unfoldable_constant dense<[8, 9]> : tensor<2xi32>
  %base = util.unfoldable_constant dense<[0, 1, 2, 3, 4]> : tensor<5xi32>
  %ten = arith.constant dense<10> : tensor<5xi32>
  %dst = arith.addi %base, %ten : tensor<5xi32>
  %off = util.unfoldable_constant 2 : index
  %r = tensor.insert_slice %src into %dst[%off] [2] [1] : tensor<2xi32> into tensor<5xi32>
  check.expect_eq_const(%r, dense<[10, 11, 8, 9, 14]> : tensor<5xi32>) : tensor<5xi32>
  return
}
