// Function symbols as MLIR allows them: dots and dollars in bare names (IREE's own test
// @pack_pad_transpose_1x9_into_2x1x8x4_issue_12546.mlir is named after its file), for
// exported test functions and for private helpers called by name.
func.func private @helper.scale$2(%x : tensor<3xi32>) -> tensor<3xi32> {
  %two = arith.constant dense<2> : tensor<3xi32>
  %r = arith.muli %x, %two : tensor<3xi32>
  return %r : tensor<3xi32>
}

func.func @named_like_a_file.mlir() {
  %a = util.unfoldable_constant dense<[1, -2, 3]> : tensor<3xi32>
  %r = call @helper.scale$2(%a) : (tensor<3xi32>) -> tensor<3xi32>
  check.expect_eq_const(%r, dense<[2, -4, 6]> : tensor<3xi32>) : tensor<3xi32>
  return
}

func.func @dots.and$dollars.f32() {
  %a = util.unfoldable_constant dense<[0.5, 1.5]> : tensor<2xf32>
  %b = arith.addf %a, %a : tensor<2xf32>
  check.expect_almost_eq_const(%b, dense<[1.0, 3.0]> : tensor<2xf32>) : tensor<2xf32>
  return
}
