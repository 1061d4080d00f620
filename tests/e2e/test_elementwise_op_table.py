"""Every op of rt's ``math`` and ``arith`` dialects, on every element type it takes, as a one-op
elementwise dispatch on llvm-cpu and vmvx, against numpy (exact for integers and i1, a few ulp
for floats). The ops come from the dialect objects, so an op added to a dialect without a table
entry (or an exclusion with its reason) fails ``test_every_dialect_op_is_in_the_table``.

The cases of one group (the first operand's element type) share a module per device, so the
table costs a few compiles; a group that fails to compile is retried case by case to name the
op. The table is ``elementwise_op_table.py``.
"""
import functools
import os
import sys

import numpy as np
import pytest

import rt
from rt.compiler.dialects import arith, math

sys.path.insert(0, os.path.dirname(__file__))
import elementwise_op_table as table  # noqa: E402

CASES = {case.name: case for case in table.cases()}
DEVICES = ("llvm-cpu", "vmvx")


def _group(case):
    return case.op.split(".")[0] + "_" + case.operands[0]


@functools.lru_cache(maxsize=None)
def _module(device, names):
    """The loaded module holding the functions of ``names``, or the compile error."""
    source = "\n".join(CASES[name].mlir() for name in names)
    try:
        return rt.load(rt.compile(source, devices=[device]), devices=[f"local-sync://{device}"])
    except rt.RtError as error:
        return error


def _loaded(device, case):
    group = tuple(sorted(n for n, c in CASES.items() if _group(c) == _group(case)))
    module = _module(device, group)
    if isinstance(module, Exception):
        module = _module(device, (case.name,))
    if isinstance(module, Exception):
        pytest.fail(f"{case.op} ({case.name}) on {device} does not compile: {module}")
    return module


def test_every_dialect_op_is_in_the_table():
    ops = {op.name for dialect in (math.build_dialect(), arith.build_dialect()) for op in dialect.operations}
    covered = {case.op for case in CASES.values()}
    assert ops - covered - set(table.EXCLUDED) == set()
    assert set(table.EXCLUDED) <= ops and not covered & set(table.EXCLUDED)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("device", DEVICES)
def test_op(device, name):
    case = CASES[name]
    got = getattr(_loaded(device, case), case.name)(*case.inputs)
    got = list(got) if isinstance(got, (list, tuple)) else [got]
    for k, (value, want, result_type) in enumerate(zip(got, case.reference(*case.inputs), case.results)):
        value = np.asarray(value)
        where = f"{case.op} result {k} ({case.name}) on {device}"
        if result_type in table.FLOATS:
            with np.errstate(over="ignore"):
                want = np.asarray(want).astype(table.DTYPE[result_type]).astype(np.float64)
            tol = table.TOLERANCE[result_type]
            np.testing.assert_allclose(value.astype(np.float64), want, rtol=tol, atol=tol, err_msg=where)
        else:
            want = np.asarray(want).astype(table.DTYPE[result_type])
            assert value.dtype == want.dtype, where
            np.testing.assert_array_equal(value, want, err_msg=where)
