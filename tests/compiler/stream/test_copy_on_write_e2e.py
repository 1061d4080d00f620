"""End to end: in-place updates keep value semantics after copy-on-write, copy elision and refine-usage.

Each program is compiled with the whole pipeline and run; the results and the caller's input
arrays are compared with numpy. Also checks that a ``check.*_const`` failure points at the
check op's own line (convert-to-stream keeps its location when it expands the constant).
"""
import numpy as np
import pytest

import rt

UPDATE_ARGUMENT = """
func.func @update_arg(%a: tensor<6xf32>, %s: tensor<2xf32>) -> tensor<6xf32> {
  %u = tensor.insert_slice %s into %a[2] [2] [1] : tensor<2xf32> into tensor<6xf32>
  return %u : tensor<6xf32>
}
"""

UPDATE_THEN_READ = """
func.func @update_then_read(%a: tensor<4xf32>, %s: tensor<2xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %b = arith.addf %a, %a : tensor<4xf32>
  %u = tensor.insert_slice %s into %b[1] [2] [1] : tensor<2xf32> into tensor<4xf32>
  %v = arith.addf %b, %u : tensor<4xf32>
  return %u, %v : tensor<4xf32>, tensor<4xf32>
}
"""

CHECK_CONST = """
func.func @check_const() {
  %a = util.unfoldable_constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = arith.addf %a, %a : tensor<2xf32>
  check.expect_almost_eq_const(%b, dense<[2.0, 5.0]> : tensor<2xf32>) : tensor<2xf32>
  return
}
"""


def _load(text):
    return rt.load(rt.compile(text))


def test_update_of_an_argument_leaves_the_callers_array_alone():
    module = _load(UPDATE_ARGUMENT)
    a = np.arange(6, dtype=np.float32)
    s = np.array([10, 20], dtype=np.float32)
    result = np.asarray(module.update_arg(a, s))
    np.testing.assert_array_equal(result, [0, 1, 10, 20, 4, 5])
    np.testing.assert_array_equal(a, np.arange(6, dtype=np.float32))


def test_value_read_after_an_in_place_update_keeps_its_old_contents():
    module = _load(UPDATE_THEN_READ)
    a = np.array([1, 2, 3, 4], dtype=np.float32)
    s = np.array([-1, -2], dtype=np.float32)
    u, v = (np.asarray(x) for x in module.update_then_read(a, s))
    b = a + a
    expected_u = b.copy()
    expected_u[1:3] = s
    np.testing.assert_array_equal(u, expected_u)
    np.testing.assert_array_equal(v, b + expected_u)


def test_failed_const_check_names_the_check_line():
    module = _load(CHECK_CONST)
    with pytest.raises(rt.CheckError) as info:
        module.check_const()
    assert ":5:3" in str(info.value)
    assert "lhs=4.0 rhs=5.0" in str(info.value)
