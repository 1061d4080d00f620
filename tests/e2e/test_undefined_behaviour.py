"""The inputs MLIR leaves undefined give rt's one defined answer on llvm-cpu and on vmvx
(docs/ARCHITECTURE.md, "Undefined behaviour"):

* shifts by the bit width or more (the amount read unsigned): ``shli`` / ``shrui`` give 0,
  ``shrsi`` the sign fill;
* ``fptosi`` / ``fptoui`` out of the result's range saturate to its bounds, NaN gives 0;
* integer division or remainder by zero fails the call with a DeviceError naming it;
  signed INT_MIN / -1 wraps (quotient INT_MIN, remainder 0).
"""
import functools
import os
import sys

import numpy as np
import pytest

import rt

sys.path.insert(0, os.path.dirname(__file__))
from elementwise_op_table import DTYPE, N, WIDTH, Case  # noqa: E402

DEVICES = ("llvm-cpu", "vmvx")
SHIFTS = ("arith.shli", "arith.shrui", "arith.shrsi")
INTS = ("i8", "i16", "i32", "i64")
DIVISIONS = ("arith.divsi", "arith.divui", "arith.remsi", "arith.remui", "arith.floordivsi", "arith.ceildivsi",
             "arith.ceildivui")
#: op -> its result for INT_MIN / -1
INT_MIN_BY_MINUS_ONE = {"arith.divsi": "min", "arith.remsi": 0, "arith.floordivsi": "min", "arith.ceildivsi": "min"}


def _case(op, operands, result, body, *inputs):
    name = "_".join([op.split(".")[1], *operands, result])
    return Case(name, op, operands, (result,), body, None, inputs)


@functools.lru_cache(maxsize=None)
def _module(device, kind):
    """One module per device and test kind holding every case of ``CASES[kind]``."""
    source = "\n".join(case.mlir() for case in CASES[kind])
    return rt.load(rt.compile(source, devices=[device]), devices=[f"local-sync://{device}"])


def _run(device, kind, case):
    return getattr(_module(device, kind), case.name)(*case.inputs)


def _shift_amounts(t):
    w = WIDTH[t]
    raw = [w, w + 1, 2 * w, 31, 32, 33, 63, 64, 100, -1, (1 << (w - 1)) - 1, -(1 << (w - 1)), 0, 1]
    amounts = [a for a in raw if -(1 << (w - 1)) <= a < (1 << (w - 1))]
    return np.resize(np.array(amounts, np.int64), N).astype(DTYPE[t])


def _wrap(values, t):
    w = WIDTH[t]
    values = [v & ((1 << w) - 1) for v in values]
    return np.array([v - (1 << w) if v >> (w - 1) else v for v in values], np.int64).astype(DTYPE[t])


def _shift_want(op, x, amount, t):
    w, out = WIDTH[t], []
    for v, a in zip(x.tolist(), amount.tolist()):
        a &= (1 << w) - 1
        if a < w:
            out.append({"arith.shli": (v & ((1 << w) - 1)) << a, "arith.shrui": (v & ((1 << w) - 1)) >> a,
                        "arith.shrsi": v >> a}[op])
        else:
            out.append(-1 if op == "arith.shrsi" and v < 0 else 0)
    return _wrap(out, t)


_OUT_OF_RANGE = [np.nan, np.inf, -np.inf, 1e30, -1e30, 3e9, -3e9, 70000.0, -70000.0, 300.0, -300.0,
                 255.5, -128.5, 127.9, -0.9, 5e18, 2e19, -1.5, 42.7]


def _saturated(op, x, t):
    w = WIDTH[t]
    lo, hi = (0, (1 << w) - 1) if op == "arith.fptoui" else (-(1 << (w - 1)), (1 << (w - 1)) - 1)
    return _wrap([0 if np.isnan(v) else min(max(int(v) if np.isfinite(v) else (hi if v > 0 else lo), lo), hi)
                  for v in x.astype(np.float64)], t)


def _cases():
    shifts = [_case(op, (t, t), t, f"%y0 = {op} %x0, %x1 : {t}",
                    np.resize(np.array([-5, 7, -1, 1, 100, -100], np.int64), N).astype(DTYPE[t]), _shift_amounts(t))
              for op in SHIFTS for t in INTS]
    converts = [_case(op, (src,), t, f"%y0 = {op} %x0 : {src} to {t}", np.array(_OUT_OF_RANGE, dtype=DTYPE[src]))
                for op in ("arith.fptosi", "arith.fptoui") for src in ("f32", "f64") for t in INTS]
    divisor = np.ones(N, np.int64)
    divisor[N - 1] = 0
    by_zero = [_case(op, (t, t), t, f"%y0 = {op} %x0, %x1 : {t}", np.arange(N).astype(DTYPE[t]),
                     divisor.astype(DTYPE[t])) for op in DIVISIONS for t in ("i8", "i32", "i64")]
    int_min = [_case(op, (t, t), t, f"%y0 = {op} %x0, %x1 : {t}", np.full(N, -(1 << (WIDTH[t] - 1)), DTYPE[t]),
                     np.full(N, -1, DTYPE[t])) for op in INT_MIN_BY_MINUS_ONE for t in INTS]
    return {"shifts": shifts, "converts": converts, "by_zero": by_zero, "int_min": int_min}


CASES = _cases()


@pytest.mark.parametrize("device", DEVICES)
def test_shift_by_the_width_or_more(device):
    for case in CASES["shifts"]:
        x, amount = case.inputs
        np.testing.assert_array_equal(_run(device, "shifts", case), _shift_want(case.op, x, amount, case.results[0]),
                                      err_msg=case.name)


@pytest.mark.parametrize("device", DEVICES)
def test_float_to_int_saturates(device):
    for case in CASES["converts"]:
        np.testing.assert_array_equal(_run(device, "converts", case),
                                      _saturated(case.op, case.inputs[0], case.results[0]), err_msg=case.name)


@pytest.mark.parametrize("device", DEVICES)
def test_division_by_zero_fails_the_call(device):
    for case in CASES["by_zero"]:
        with pytest.raises(rt.DeviceError, match="division by zero"):
            _run(device, "by_zero", case)


@pytest.mark.parametrize("device", DEVICES)
def test_int_min_by_minus_one_wraps(device):
    for case in CASES["int_min"]:
        t = case.results[0]
        want = INT_MIN_BY_MINUS_ONE[case.op]
        want = -(1 << (WIDTH[t] - 1)) if want == "min" else want
        np.testing.assert_array_equal(_run(device, "int_min", case), np.full(N, want, DTYPE[t]), err_msg=case.name)


def test_host_scalar_shifts_give_the_devices_answer():
    """The same shifts on host scalars (VM registers, where vm.shl masks the amount): the
    compiler selects the devices' answer for amounts >= the width."""
    source = "\n".join(f"func.func @{op.split('.')[1]}_{t}(%x: {t}, %a: {t}) -> {t} {{\n"
                       f"  %y = {op} %x, %a : {t}\n  return %y : {t}\n}}" for op in SHIFTS for t in INTS)
    module = rt.load(rt.compile(source, devices=["vmvx"]), devices=["local-sync://vmvx"])
    for op in SHIFTS:
        for t in INTS:
            amounts = np.unique(_shift_amounts(t))
            x = np.resize(np.array([-5, 7, -1, 100], np.int64), amounts.size).astype(DTYPE[t])
            fn = getattr(module, f"{op.split('.')[1]}_{t}")
            got = np.array([fn(DTYPE[t](v), DTYPE[t](a)) for v, a in zip(x, amounts)], DTYPE[t])
            np.testing.assert_array_equal(got, _shift_want(op, x, amounts, t), err_msg=f"{op} {t}")
