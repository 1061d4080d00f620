"""tensor.extract / tensor.insert on the host after a dispatch, compiled by the whole pipeline
(stream.resource.load/store -> hal.buffer.load/store -> the hal module's buffer.load/store) and
run on llvm-cpu and vmvx; the programs check their values with check.expect_*."""
import os

import pytest

import rt

PROGRAM = os.path.join(os.path.dirname(__file__), "host_element_access.mlir.in")
DEVICES = {"llvm-cpu": "local-task://llvm-cpu", "vmvx": "local-sync://vmvx"}


@pytest.fixture(scope="module", params=sorted(DEVICES))
def module(request):
    with open(PROGRAM, encoding="utf-8") as f:
        text = f.read()
    return rt.load(rt.compile(text, devices=[request.param]), devices=[DEVICES[request.param]])


@pytest.mark.parametrize("function", ["extract_f32", "extract_i64", "extract_f16", "insert_f64"])
def test_host_element_access_reads_and_writes_the_right_values(module, function):
    assert module[function]() in (None, ())


def test_a_wrong_expected_value_fails_its_check(module):
    with pytest.raises(rt.CheckError, match="@extract_i64_wrong"):
        module["extract_i64_wrong"]()
