// scf.for / scf.if / scf.while with tensor results, in every printed form MLIR accepts
// (a single result type after '->' with or without parentheses).

func.func @for_doubles_a_tensor() {
  %t = util.unfoldable_constant dense<[0.0, 1.0, 2.0, 3.0]> : tensor<4xf32>
  %n = util.unfoldable_constant 3 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %t) -> (tensor<4xf32>) {
    %s = arith.addf %acc, %acc : tensor<4xf32>
    scf.yield %s : tensor<4xf32>
  }
  check.expect_almost_eq_const(%r, dense<[0.0, 8.0, 16.0, 24.0]> : tensor<4xf32>) : tensor<4xf32>
  return
}

func.func @for_bare_result_type_adds_the_counter() {
  %n = util.unfoldable_constant 3 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %init = arith.constant dense<1.0> : tensor<4xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> tensor<4xf32> {
    %f = arith.index_cast %i : index to i32
    %g = arith.sitofp %f : i32 to f32
    %e = tensor.splat %g : tensor<4xf32>
    %s = arith.addf %acc, %e : tensor<4xf32>
    scf.yield %s : tensor<4xf32>
  }
  check.expect_almost_eq_const(%r, dense<4.0> : tensor<4xf32>) : tensor<4xf32>
  return
}

func.func @if_both_forms() {
  %t = util.unfoldable_constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %yes = util.unfoldable_constant true
  %no = util.unfoldable_constant false
  %a = scf.if %yes -> (tensor<3xf32>) {
    %s = arith.addf %t, %t : tensor<3xf32>
    scf.yield %s : tensor<3xf32>
  } else {
    scf.yield %t : tensor<3xf32>
  }
  %b = scf.if %no -> tensor<3xf32> {
    %s = arith.mulf %t, %t : tensor<3xf32>
    scf.yield %s : tensor<3xf32>
  } else {
    %s = arith.subf %t, %t : tensor<3xf32>
    scf.yield %s : tensor<3xf32>
  }
  check.expect_almost_eq_const(%a, dense<[2.0, 4.0, 6.0]> : tensor<3xf32>) : tensor<3xf32>
  check.expect_almost_eq_const(%b, dense<0.0> : tensor<3xf32>) : tensor<3xf32>
  return
}

func.func @while_with_a_tensor_and_a_counter() {
  %t = util.unfoldable_constant dense<[1, 2]> : tensor<2xi32>
  %n = util.unfoldable_constant 3 : i32
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r:2 = scf.while (%x = %t, %i = %c0) : (tensor<2xi32>, i32) -> (tensor<2xi32>, i32) {
    %go = arith.cmpi slt, %i, %n : i32
    scf.condition(%go) %x, %i : tensor<2xi32>, i32
  } do {
  ^bb0(%y: tensor<2xi32>, %j: i32):
    %s = arith.muli %y, %y : tensor<2xi32>
    %k = arith.addi %j, %c1 : i32
    scf.yield %s, %k : tensor<2xi32>, i32
  }
  check.expect_eq_const(%r#0, dense<[1, 256]> : tensor<2xi32>) : tensor<2xi32>
  %done = arith.cmpi eq, %r#1, %n : i32
  %done32 = arith.extui %done : i1 to i32
  check.expect_true(%done32) : i32
  return
}
