"""Issue 23 item 6: ``rt.load(..., devices={"name": ...})`` binds a module's devices by the names
it declares (IREE's open request #18414), and each argument goes to the device it is declared on."""
from pathlib import Path

import numpy as np
import pytest

import rt
from rt.runtime.errors import InvalidArgumentError

PIPELINE = Path(__file__).parents[2] / "examples" / "multi_device" / "pipeline.mlir"


@pytest.fixture(scope="module")
def pipeline_vmfb():
    return rt.compile(PIPELINE.read_text(), devices=["stage0=llvm-cpu", "stage1=llvm-cpu"])


def _inputs():
    rng = np.random.default_rng(0)
    x0, x1 = (rng.integers(-2, 3, (16, 64)).astype(np.float32) for _ in range(2))
    return x0, x1, rng.integers(-2, 3, (64, 64)).astype(np.float32), rng.integers(-2, 3, (64, 32)).astype(np.float32)


def _expected(x0, x1, w1, w2):
    return [np.maximum(x @ w1, 0) @ w2 for x in (x0, x1)]


def test_devices_bind_by_name_in_any_order(pipeline_vmfb):
    args = _inputs()
    with rt.load(pipeline_vmfb, devices={"stage1": "local-sync://llvm-cpu", "@stage0": "local-task://llvm-cpu"}) as m:
        assert [d.uri for d in m.devices] == ["local-task://llvm-cpu", "local-sync://llvm-cpu"]
        for got, want in zip(m.pipeline(*args), _expected(*args)):
            np.testing.assert_array_equal(got, want)


def test_an_unnamed_device_is_picked_and_a_given_device_object_is_used(pipeline_vmfb):
    device = rt.runtime.hal.create_device("local-sync://llvm-cpu")
    try:
        with rt.load(pipeline_vmfb, devices={"stage1": device}) as m:
            assert m.devices[1] is device and m.devices[0].uri == "local-task://llvm-cpu"
            np.testing.assert_array_equal(m.pipeline(*_inputs())[1], _expected(*_inputs())[1])
    finally:
        device.release()


def test_an_mlir_module_is_compiled_for_the_named_devices():
    with rt.load(str(PIPELINE), devices={"stage0": "local-task://llvm-cpu", "stage1": "local-task://vmvx"}) as m:
        assert [d.device_name for d in m.devices] == ["llvm-cpu", "vmvx"]
        for got, want in zip(m.pipeline(*_inputs()), _expected(*_inputs())):
            np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("devices, message", [
    ({"gpu9": "local-task://llvm-cpu"}, r"devices\['gpu9'\]: module \w+ has no device 'gpu9'; its devices: stage0, stage1"),
    ({"stage0": None}, r"devices\['stage0'\] must be a device URI or a Device, got None"),
    ({"stage0": "local-task://vmvx"}, r"device 0 \(stage0\) of module \w+ targets llvm-cpu .* cannot load")])
def test_bad_names_and_devices_are_clear(pipeline_vmfb, devices, message):
    with pytest.raises(InvalidArgumentError, match=message):
        rt.load(pipeline_vmfb, devices=devices)
