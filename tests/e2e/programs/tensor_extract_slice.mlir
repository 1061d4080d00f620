// tensor.extract_slice: static offsets, strides, rank reduction and dynamic offsets/sizes.
func.func @slice_2d() {
  %x = util.unfoldable_constant dense<[[0, 1, 2, 3], [10, 11, 12, 13], [20, 21, 22, 23]]> : tensor<3x4xi32>
  %s = tensor.extract_slice %x[1, 1] [2, 3] [1, 1] : tensor<3x4xi32> to tensor<2x3xi32>
  check.expect_eq_const(%s, dense<[[11, 12, 13], [21, 22, 23]]> : tensor<2x3xi32>) : tensor<2x3xi32>
  return
}

func.func @slice_strided() {
  %x = util.unfoldable_constant dense<[[0, 1, 2, 3], [10, 11, 12, 13], [20, 21, 22, 23]]> : tensor<3x4xi32>
  %s = tensor.extract_slice %x[0, 1] [2, 2] [2, 2] : tensor<3x4xi32> to tensor<2x2xi32>
  check.expect_eq_const(%s, dense<[[1, 3], [21, 23]]> : tensor<2x2xi32>) : tensor<2x2xi32>
  return
}

func.func @slice_rank_reducing() {
  %x = util.unfoldable_constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %row = tensor.extract_slice %x[1, 0] [1, 3] [1, 1] : tensor<2x3xf32> to tensor<3xf32>
  check.expect_eq_const(%row, dense<[4.0, 5.0, 6.0]> : tensor<3xf32>) : tensor<3xf32>
  return
}

func.func @slice_dynamic() {
  %x = util.unfoldable_constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]> : tensor<10xi32>
  %off = util.unfoldable_constant 3 : index
  %len = util.unfoldable_constant 4 : index
  %s = tensor.extract_slice %x[%off] [%len] [1] : tensor<10xi32> to tensor<?xi32>
  %c = tensor.cast %s : tensor<?xi32> to tensor<4xi32>
  check.expect_eq_const(%c, dense<[3, 4, 5, 6]> : tensor<4xi32>) : tensor<4xi32>
  return
}
