"""Integer division by zero is a located error on both devices (issue 13): vmvx traps, and an
llvm-cpu workgroup that divided by zero (in a vector lane or the scalar tail) returns
STATUS_DIVISION_BY_ZERO, so neither returns a made-up quotient. The module stays usable.
(``rt run`` naming the op's location: test_failure_locations.py.)"""
import numpy as np
import pytest

import rt
from rt.runtime.errors import DeviceError

OPS = ("divsi", "remsi", "divui", "remui", "floordivsi", "ceildivsi", "ceildivui")


def _program(t):
    return "\n".join(f"""func.func @{op}(%a: tensor<37x{t}>, %b: tensor<37x{t}>) -> tensor<37x{t}> {{
  %q = arith.{op} %a, %b : tensor<37x{t}>
  return %q : tensor<37x{t}>
}}""" for op in OPS)


@pytest.mark.parametrize("device", ["vmvx", "llvm-cpu"])
@pytest.mark.parametrize("t", ["i32", "i64"])
def test_integer_division_by_zero_fails_the_call_and_the_module_stays_usable(device, t):
    dtype = {"i32": np.int32, "i64": np.int64}[t]
    a = np.arange(7, 44).astype(dtype)
    ok = np.full(37, 3, dtype)
    want = {"divsi": a // ok, "remsi": a % ok, "divui": a // ok, "remui": a % ok,
            "floordivsi": a // ok, "ceildivsi": -(-a // ok), "ceildivui": -(-a // ok)}
    with rt.load(rt.compile(_program(t), devices=[device])) as m:
        for op in OPS:
            for zero_at in (0, 36):  # a vector lane, the last (tail) element
                b = ok.copy()
                b[zero_at] = 0
                with pytest.raises(DeviceError, match="integer division by zero"):
                    m[op](a, b)
            np.testing.assert_array_equal(m[op](a, ok), want[op], err_msg=op)


@pytest.mark.parametrize("device", ["vmvx", "llvm-cpu"])
@pytest.mark.parametrize("t", ["i32", "i64"])
def test_signed_min_divided_by_minus_one_wraps_on_both_devices(device, t):
    """MLIR leaves it undefined; both devices give the wrapped quotient MIN and remainder 0
    (i64 runs vmvx's scalar bytecode, i32 its microkernels)."""
    dtype = {"i32": np.int32, "i64": np.int64}[t]
    low = np.iinfo(dtype).min
    a = np.full(37, low, dtype)
    a[1] = 7
    b = np.full(37, -1, dtype)
    with rt.load(rt.compile(_program(t), devices=[device])) as m:
        np.testing.assert_array_equal(m.divsi(a, b), np.where(a == low, low, -a))
        np.testing.assert_array_equal(m.remsi(a, b), np.zeros(37, dtype))
        np.testing.assert_array_equal(m.floordivsi(a, b), np.where(a == low, low, -a))
        np.testing.assert_array_equal(m.ceildivsi(a, b), np.where(a == low, low, -a))
