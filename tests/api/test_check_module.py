"""The ``check`` native module: direct calls, and bytecode calling it through imports."""
import numpy as np
import pytest

from rt.runtime import hal
from rt.runtime.errors import CheckError, InvalidArgumentError
from rt.runtime.modules.check import CheckModule


@pytest.fixture(scope="module")
def device():
    d = hal.create_device("local-sync://vmvx")
    yield d
    d.release()


@pytest.fixture(scope="module")
def check():
    return CheckModule()


def _view(device, array):
    return hal.BufferView.from_numpy(device, np.asarray(array))


def test_exports_use_iree_names_and_cconvs(check):
    assert {n: s.text for n, (_, s) in CheckModule.exports.items()} == {
        "expect_true": "0i_v", "expect_false": "0i_v", "expect_all_true": "0rr_v",
        "expect_eq": "0rrr_v", "expect_almost_eq": "0rrrff_v"}


def test_expect_true_false(check):
    check.expect_true(3)
    check.expect_false(0)
    with pytest.raises(CheckError, match=r"expect_true failed: the operand is 0"):
        check.expect_true(0)
    with pytest.raises(CheckError, match=r"expect_false failed: the operand is -2 \(true\)"):
        check.expect_false(-2)


def test_expect_eq_reports_first_mismatches(check, device):
    a = np.arange(12, dtype=np.int32).reshape(3, 4)
    check.expect_eq(device, _view(device, a), _view(device, a.copy()))
    b = a.copy()
    b[1, 2], b[2, 3] = 100, -5
    with pytest.raises(CheckError) as info:
        check.expect_eq(device, _view(device, a), _view(device, b))
    assert str(info.value) == ("check.expect_eq failed: lhs and rhs (3x4xi32): 2 of 12 elements differ; "
                               "first at [1, 2]: lhs=6 rhs=100; [2, 3]: lhs=11 rhs=-5")
    with pytest.raises(CheckError, match=r"lhs is 3x4xi32 but rhs is 4x3xi32; expected the same shape"):
        check.expect_eq(device, _view(device, a), _view(device, a.T.copy()))
    with pytest.raises(CheckError, match=r"lhs is 3x4xi32 but rhs is 3x4xf32"):
        check.expect_eq(device, _view(device, a), _view(device, a.astype(np.float32)))


def test_expect_eq_compares_bits_so_equal_nans_match(check, device):
    x = np.array([np.nan, 1.0], np.float32)
    check.expect_eq(device, _view(device, x), _view(device, x.copy()))
    with pytest.raises(CheckError, match=r"first at \[0\]: lhs=0.0 rhs=-0.0"):
        check.expect_eq(device, _view(device, np.zeros(1, np.float32)), _view(device, -np.zeros(1, np.float32)))


def test_expect_almost_eq_tolerances(check, device):
    lhs = np.array([1.0, 2.0, np.inf, np.nan], np.float32)
    rhs = np.array([1.0005, 2.0, np.inf, np.nan], np.float32)
    check.expect_almost_eq(device, _view(device, lhs), _view(device, rhs), 1e-3, 0.0)
    with pytest.raises(CheckError, match=r"\(atol=0.0001, rtol=0\).*1 of 4 elements differ; first at \[0\]"):
        check.expect_almost_eq(device, _view(device, lhs), _view(device, rhs), 1e-4, 0.0)
    check.expect_almost_eq(device, _view(device, np.float32([100.0])), _view(device, np.float32([101.0])), 0.0, 0.01)
    with pytest.raises(CheckError, match=r"first at \[0\]: lhs=nan rhs=1.0"):
        check.expect_almost_eq(device, _view(device, np.float32([np.nan])), _view(device, np.float32([1])), 1, 1)
    with pytest.raises(InvalidArgumentError, match=r"atol is -1.0; expected a tolerance >= 0"):
        check.expect_almost_eq(device, _view(device, lhs), _view(device, lhs), -1.0, 0.0)


def test_expect_all_true(check, device):
    check.expect_all_true(device, _view(device, np.ones((2, 2), np.int8)))
    with pytest.raises(CheckError, match=r"2 of 4 elements of 2x2xi1 are 0 \(false\), at \[0, 1\], \[1, 0\]"):
        check.expect_all_true(device, _view(device, np.array([[True, False], [False, True]])))


def test_null_or_wrong_refs_are_invalid_arguments(check, device):
    with pytest.raises(InvalidArgumentError, match=r"check.expect_eq: lhs must be a hal.buffer_view, got null"):
        check.expect_eq(device, None, _view(device, [1]))


def test_bytecode_failures_name_the_source_location(checks):
    checks.expect_eq(np.ones(3, np.float32), np.ones(3, np.float32))
    with pytest.raises(CheckError) as info:
        checks.expect_eq(np.ones(3, np.float32), np.float32([1, 2, 1]))
    assert str(info.value).startswith("check_test.mlir:4:3 in @expect_eq: check.expect_eq failed: lhs and rhs "
                                      "(3xf32): 1 of 3 elements differ; first at [1]: lhs=1.0 rhs=2.0")
    assert info.value.vm_stack == ("check_test.mlir:4:3 in @expect_eq",)
    with pytest.raises(CheckError, match=r"check_test.mlir:12:3 in @expect_true: check.expect_true failed"):
        checks.expect_true(0)
    with pytest.raises(CheckError, match=r"check_test.mlir:16:3 in @expect_all_true: .*at \[1\]"):
        checks.expect_all_true(np.int32([1, 0, 2]))
    checks.expect_almost_eq(np.ones(3, np.float32), np.ones(3, np.float32) + 1e-4)
