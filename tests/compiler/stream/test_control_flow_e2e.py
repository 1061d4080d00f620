"""End to end: tensors carried by scf.if / scf.for / scf.while and cf branches (convert-to-stream).

Each program is compiled with the whole pipeline for every device and run; results, and the
caller's arrays after an in-place update inside a loop or branch, are compared with numpy.
"""
import numpy as np
import pytest

import rt

DEVICES = {"llvm-cpu": "local-task://llvm-cpu", "vmvx": "local-sync://vmvx"}

PROGRAM = """
func.func @select_branch(%a: tensor<4xf32>, %b: tensor<4xf32>, %c: i1) -> tensor<4xf32> {
  %r = scf.if %c -> (tensor<4xf32>) {
    %s = arith.addf %a, %b : tensor<4xf32>
    scf.yield %s : tensor<4xf32>
  } else {
    %m = arith.mulf %a, %b : tensor<4xf32>
    scf.yield %m : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

func.func @grow(%a: tensor<?xf32>, %c: i1) -> tensor<?xf32> {
  %r = scf.if %c -> (tensor<?xf32>) {
    %cat = tensor.concat dim(0) %a, %a : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
    scf.yield %cat : tensor<?xf32>
  } else {
    scf.yield %a : tensor<?xf32>
  }
  %d = arith.addf %r, %r : tensor<?xf32>
  return %d : tensor<?xf32>
}

func.func @alternate(%a: tensor<2x?xf32>, %n: index) -> (tensor<2x?xf32>, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %a, %k = %c0) -> (tensor<2x?xf32>, index) {
    %rem = arith.remui %i, %c2 : index
    %even = arith.cmpi eq, %rem, %c0 : index
    %next = scf.if %even -> (tensor<2x?xf32>) {
      %s = arith.addf %acc, %a : tensor<2x?xf32>
      scf.yield %s : tensor<2x?xf32>
    } else {
      %m = arith.mulf %acc, %acc : tensor<2x?xf32>
      scf.yield %m : tensor<2x?xf32>
    }
    %k1 = arith.addi %k, %c2 : index
    scf.yield %next, %k1 : tensor<2x?xf32>, index
  }
  return %r#0, %r#1 : tensor<2x?xf32>, index
}

func.func @double_while(%a: tensor<4xf32>, %n: i32) -> tensor<4xf32> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r:2 = scf.while (%t = %a, %i = %c0) : (tensor<4xf32>, i32) -> (tensor<4xf32>, i32) {
    %lt = arith.cmpi slt, %i, %n : i32
    scf.condition(%lt) %t, %i : tensor<4xf32>, i32
  } do {
  ^bb0(%t2: tensor<4xf32>, %i2: i32):
    %s = arith.addf %t2, %t2 : tensor<4xf32>
    %i3 = arith.addi %i2, %c1 : i32
    scf.yield %s, %i3 : tensor<4xf32>, i32
  }
  return %r#0 : tensor<4xf32>
}

func.func @pick(%a: tensor<?xf32>, %b: tensor<?xf32>, %c: i1) -> tensor<?xf32> {
  cf.cond_br %c, ^bb1(%a : tensor<?xf32>), ^bb2
^bb2:
  %m = arith.mulf %b, %b : tensor<?xf32>
  cf.br ^bb1(%m : tensor<?xf32>)
^bb1(%r: tensor<?xf32>):
  %s = arith.addf %r, %r : tensor<?xf32>
  return %s : tensor<?xf32>
}

func.func @insert_in_loop(%a: tensor<6xf32>, %s: tensor<2xf32>, %n: index) -> (tensor<6xf32>, tensor<6xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %a) -> (tensor<6xf32>) {
    %u = tensor.insert_slice %s into %acc[%i] [2] [1] : tensor<2xf32> into tensor<6xf32>
    scf.yield %u : tensor<6xf32>
  }
  %v = arith.addf %a, %r : tensor<6xf32>
  return %r, %v : tensor<6xf32>, tensor<6xf32>
}

func.func private @twice(%x: tensor<3xi32>) -> tensor<3xi32> {
  %r = arith.addi %x, %x : tensor<3xi32>
  return %r : tensor<3xi32>
}

func.func @call_in_loop() {
  %x = util.unfoldable_constant dense<[1, -2, 3]> : tensor<3xi32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %x) -> (tensor<3xi32>) {
    %t = func.call @twice(%acc) : (tensor<3xi32>) -> tensor<3xi32>
    scf.yield %t : tensor<3xi32>
  }
  check.expect_eq_const(%r, dense<[16, -32, 48]> : tensor<3xi32>) : tensor<3xi32>
  return
}

func.func @check_in_branch(%c: i1) {
  %a = util.unfoldable_constant dense<[1.0, 2.0]> : tensor<2xf32>
  scf.if %c {
    %d = arith.addf %a, %a : tensor<2xf32>
    check.expect_almost_eq_const(%d, dense<[2.0, 5.0]> : tensor<2xf32>) : tensor<2xf32>
  }
  return
}
"""


@pytest.fixture(scope="module", params=sorted(DEVICES))
def module(request):
    return rt.load(rt.compile(PROGRAM, devices=[request.param]), devices=[DEVICES[request.param]])


@pytest.mark.parametrize("cond", [True, False])
def test_scf_if_picks_the_branch_result(module, cond):
    a = np.array([1, 2, 3, 4], np.float32)
    b = np.array([10, 20, 30, 40], np.float32)
    np.testing.assert_array_equal(np.asarray(module.select_branch(a, b, cond)), a + b if cond else a * b)


@pytest.mark.parametrize("cond", [True, False])
def test_scf_if_branches_may_yield_different_sizes(module, cond):
    a = np.array([1, 2, 3], np.float32)
    grown = np.concatenate([a, a]) if cond else a
    np.testing.assert_array_equal(np.asarray(module.grow(a, cond)), grown + grown)


@pytest.mark.parametrize("n", [0, 1, 3])
def test_scf_for_carries_a_dynamic_tensor_through_nested_scf_if(module, n):
    a = np.array([[1, 2], [3, 4]], np.float32)
    expected = a.copy()
    for i in range(n):
        expected = expected + a if i % 2 == 0 else expected * expected
    r, k = module.alternate(a, n)
    np.testing.assert_array_equal(np.asarray(r), expected)
    assert k == 2 * n


@pytest.mark.parametrize("n", [0, 3])
def test_scf_while_carries_a_tensor(module, n):
    a = np.array([1, 2, 3, 4], np.float32)
    np.testing.assert_array_equal(np.asarray(module.double_while(a, n)), a * 2.0**n)


@pytest.mark.parametrize("cond", [True, False])
def test_cf_branches_pass_tensors_to_a_block(module, cond):
    a = np.array([1, 2, 3], np.float32)
    b = np.array([4, 5, 6], np.float32)
    picked = a if cond else b * b
    np.testing.assert_array_equal(np.asarray(module.pick(a, b, cond)), picked + picked)


def test_in_place_updates_in_a_loop_keep_value_semantics(module):
    a = np.arange(6, dtype=np.float32)
    s = np.array([-1, -2], np.float32)
    r, v = (np.asarray(x) for x in module.insert_in_loop(a, s, 3))
    expected = a.copy()
    for i in range(3):
        expected[i:i + 2] = s
    np.testing.assert_array_equal(r, expected)
    np.testing.assert_array_equal(v, a + expected)
    np.testing.assert_array_equal(a, np.arange(6, dtype=np.float32))


def test_private_call_inside_a_loop(module):
    assert module.call_in_loop() in (None, ())


def test_check_inside_a_branch_runs_only_when_taken(module):
    assert module.check_in_branch(False) in (None, ())
    with pytest.raises(rt.CheckError) as info:
        module.check_in_branch(True)
    assert "lhs=4.0 rhs=5.0" in str(info.value)


def test_other_region_ops_carrying_tensors_are_a_located_error():
    text = """func.func @sw(%a: tensor<4xf32>, %i: index) -> tensor<4xf32> {
  %r = scf.index_switch %i -> tensor<4xf32>
  case 0 {
    %s = arith.addf %a, %a : tensor<4xf32>
    scf.yield %s : tensor<4xf32>
  }
  default {
    scf.yield %a : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
"""
    with pytest.raises(rt.CompileError) as info:
        rt.compile(text)
    assert ":2:8:" in str(info.value)
    assert "'scf.index_switch' on tensors cannot be converted to the stream dialect" in str(info.value)
