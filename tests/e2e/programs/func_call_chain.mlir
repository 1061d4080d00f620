// Private helpers calling each other: two tensor results of different element types (i32, i64).
func.func private @square(%x: tensor<3xi32>) -> tensor<3xi32> {
  %r = arith.muli %x, %x : tensor<3xi32>
  return %r : tensor<3xi32>
}

func.func private @square_and_widen(%x: tensor<3xi32>) -> (tensor<3xi32>, tensor<3xi64>) {
  %sq = call @square(%x) : (tensor<3xi32>) -> tensor<3xi32>
  %w = arith.extsi %sq : tensor<3xi32> to tensor<3xi64>
  %big = arith.constant dense<4294967296> : tensor<3xi64>
  %r = arith.addi %w, %big : tensor<3xi64>
  return %sq, %r : tensor<3xi32>, tensor<3xi64>
}

func.func @call_chain() {
  %x = util.unfoldable_constant dense<[-3, 5, 46341]> : tensor<3xi32>
  %r:2 = call @square_and_widen(%x) : (tensor<3xi32>) -> (tensor<3xi32>, tensor<3xi64>)
  check.expect_eq_const(%r#0, dense<[9, 25, -2147479015]> : tensor<3xi32>) : tensor<3xi32>
  check.expect_eq_const(%r#1, dense<[4294967305, 4294967321, 2147488281]> : tensor<3xi64>) : tensor<3xi64>
  return
}

func.func @call_twice() {
  %x = util.unfoldable_constant dense<[2, -2, 3]> : tensor<3xi32>
  %a = call @square(%x) : (tensor<3xi32>) -> tensor<3xi32>
  %b = call @square(%a) : (tensor<3xi32>) -> tensor<3xi32>
  check.expect_eq_const(%b, dense<[16, 16, 81]> : tensor<3xi32>) : tensor<3xi32>
  return
}
