// StableHLO control flow (while/if/case), dynamic slices and torch_index_select, converted by
// iree-stablehlo-to-iree-input. Expected values computed by hand.

func.func @loop() {
  %init = util.unfoldable_constant dense<1.0> : tensor<4xf32>
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.while(%i = %zero, %x = %init) : tensor<i32>, tensor<4xf32>
   cond {
    %c3 = stablehlo.constant dense<3> : tensor<i32>
    %lt = stablehlo.compare LT, %i, %c3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %next = stablehlo.add %i, %one : tensor<i32>
    %dbl = stablehlo.add %x, %x : tensor<4xf32>
    stablehlo.return %next, %dbl : tensor<i32>, tensor<4xf32>
  }
  check.expect_almost_eq_const(%r#1, dense<8.0> : tensor<4xf32>) : tensor<4xf32>
  check.expect_eq_const(%r#0, dense<3> : tensor<i32>) : tensor<i32>
  return
}
func.func @branches() {
  %p = util.unfoldable_constant dense<true> : tensor<i1>
  %a = util.unfoldable_constant dense<[1.0, 2.0]> : tensor<2xf32>
  %r = "stablehlo.if"(%p) ({
    %n = stablehlo.negate %a : tensor<2xf32>
    stablehlo.return %n : tensor<2xf32>
  }, {
    stablehlo.return %a : tensor<2xf32>
  }) : (tensor<i1>) -> tensor<2xf32>
  check.expect_almost_eq_const(%r, dense<[-1.0, -2.0]> : tensor<2xf32>) : tensor<2xf32>
  %idx = util.unfoldable_constant dense<1> : tensor<i32>
  %big = util.unfoldable_constant dense<7> : tensor<i32>
  %c1 = "stablehlo.case"(%idx) ({
    %v = stablehlo.constant dense<10.0> : tensor<f32>
    stablehlo.return %v : tensor<f32>
  }, {
    %v = stablehlo.constant dense<11.0> : tensor<f32>
    stablehlo.return %v : tensor<f32>
  }, {
    %v = stablehlo.constant dense<12.0> : tensor<f32>
    stablehlo.return %v : tensor<f32>
  }) : (tensor<i32>) -> tensor<f32>
  check.expect_almost_eq_const(%c1, dense<11.0> : tensor<f32>) : tensor<f32>
  %c7 = "stablehlo.case"(%big) ({
    %v = stablehlo.constant dense<10.0> : tensor<f32>
    stablehlo.return %v : tensor<f32>
  }, {
    %v = stablehlo.constant dense<12.0> : tensor<f32>
    stablehlo.return %v : tensor<f32>
  }) : (tensor<i32>) -> tensor<f32>
  check.expect_almost_eq_const(%c7, dense<12.0> : tensor<f32>) : tensor<f32>
  return
}
func.func @slices() {
  %x = util.unfoldable_constant dense<[[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]> : tensor<3x4xi32>
  %i = util.unfoldable_constant dense<2> : tensor<i32>
  %j = util.unfoldable_constant dense<-5> : tensor<i32>
  %s = stablehlo.dynamic_slice %x, %i, %j, sizes = [2, 2] : (tensor<3x4xi32>, tensor<i32>, tensor<i32>) -> tensor<2x2xi32>
  check.expect_eq_const(%s, dense<[[5, 6], [9, 10]]> : tensor<2x2xi32>) : tensor<2x2xi32>
  %u = util.unfoldable_constant dense<[[0, 0]]> : tensor<1x2xi32>
  %one = util.unfoldable_constant dense<1> : tensor<i32>
  %one2 = util.unfoldable_constant dense<9> : tensor<i32>
  %w = stablehlo.dynamic_update_slice %x, %u, %one, %one2 : (tensor<3x4xi32>, tensor<1x2xi32>, tensor<i32>, tensor<i32>) -> tensor<3x4xi32>
  check.expect_eq_const(%w, dense<[[1, 2, 3, 4], [5, 6, 0, 0], [9, 10, 11, 12]]> : tensor<3x4xi32>) : tensor<3x4xi32>
  %idx = util.unfoldable_constant dense<[2, 0]> : tensor<2xi32>
  %rows = "stablehlo.torch_index_select"(%x, %idx) {dim = 0 : i64, batch_dims = 0 : i64} : (tensor<3x4xi32>, tensor<2xi32>) -> tensor<2x4xi32>
  check.expect_eq_const(%rows, dense<[[9, 10, 11, 12], [1, 2, 3, 4]]> : tensor<2x4xi32>) : tensor<2x4xi32>
  %cols = "stablehlo.torch_index_select"(%x, %idx) {dim = 1 : i64, batch_dims = 0 : i64} : (tensor<3x4xi32>, tensor<2xi32>) -> tensor<3x2xi32>
  check.expect_eq_const(%cols, dense<[[3, 1], [7, 5], [11, 9]]> : tensor<3x2xi32>) : tensor<3x2xi32>
  return
}
