"""Issue 5: binding a two-device module's device globals at run time.

``--device=URI`` flags (``rt.load(devices=[...])``) bind to the module's device globals in the
order of its ``rt.devices`` attribute; with none (or fewer) given, rt picks a local device per
remaining target; a device that cannot load its global's targets is a clear error.
"""
import json
import re
import subprocess
import sys

import numpy as np
import pytest

import rt
from rt.runtime.errors import InvalidArgumentError
from rt.runtime.vm import Module

VMVX, LLVM = "local-task://vmvx", "local-task://llvm-cpu"
SPLIT_ARGS = ["--input=60x100xf32=0.5", "--input=100x36xf32=0.25", "--input=36xf32=-1"]


def _args():
    return np.full((60, 100), 0.5, np.float32), np.full((100, 36), 0.25, np.float32), np.full(36, -1, np.float32)


def _devices_attribute(vmfb):
    return [(d["name"], [t["backend"] for t in d["targets"]])
            for d in json.loads(Module.from_bytes(vmfb).attributes["rt.devices"])]


def test_module_lists_its_devices_in_declaration_order(compiled):
    assert _devices_attribute(compiled("split_vmvx_llvm")) == [("dev_a", ["vmvx"]), ("dev_b", ["llvm-cpu"])]
    assert _devices_attribute(compiled("split", ["a=llvm-cpu", "b=vmvx"])) == [("a", ["llvm-cpu"]),
                                                                               ("b", ["vmvx"])]


def test_given_devices_bind_in_order(compiled):
    with rt.load(compiled("split_vmvx_llvm"), devices=["local-sync://vmvx", LLVM]) as m:
        assert [(d.driver_name, d.device_name) for d in m.devices] == [("local-sync", "vmvx"),
                                                                      ("local-task", "llvm-cpu")]
        np.testing.assert_allclose(m.split(*_args()), np.full((60, 36), 11.5, np.float32), rtol=1e-5)


def test_devices_are_picked_per_target_when_none_or_some_are_given(compiled):
    with rt.load(compiled("split_vmvx_llvm")) as m:
        assert [d.uri for d in m.devices] == [VMVX, LLVM]
        np.testing.assert_allclose(m.split(*_args()), np.full((60, 36), 11.5, np.float32), rtol=1e-5)
    with rt.load(compiled("split_vmvx_llvm"), devices=["local-sync://vmvx"]) as m:
        assert [d.uri for d in m.devices] == ["local-sync://vmvx", LLVM]
    with rt.load(compiled("split_vmvx_llvm"), devices=["vmvx", "local-sync"]) as m:
        assert [d.uri for d in m.devices] == [VMVX, "local-sync://llvm-cpu"]


def test_devices_in_the_wrong_order_are_rejected(compiled):
    with pytest.raises(InvalidArgumentError, match=r"device 0 \(dev_a\) of module \w+ targets vmvx "
                                                   r"\(formats vmvx-bytecode\), which local-task://llvm-cpu#\d+ "
                                                   r"cannot load; use e.g. local-task://vmvx"):
        rt.load(compiled("split_vmvx_llvm"), devices=[LLVM, VMVX])
    with pytest.raises(InvalidArgumentError, match=r"declares 2 device\(s\) \(dev_a, dev_b\) but 3 were given"):
        rt.load(compiled("split_vmvx_llvm"), devices=[VMVX, LLVM, LLVM])


def _run(tmp_path, *flags):
    return subprocess.run([sys.executable, "-m", "rt", "run", "split.vmfb", "--function=split",
                           *SPLIT_ARGS, *flags], cwd=tmp_path, capture_output=True, text=True, timeout=300)


def test_cli_binds_device_flags_in_order_and_picks_the_rest(compiled, tmp_path):
    (tmp_path / "split.vmfb").write_bytes(compiled("split_vmvx_llvm"))
    first_row = "60x36xf32=[" + " ".join(["11.5"] * 36) + "]"
    for flags in ([], ["--device=local-sync://vmvx"], [f"--device={VMVX}", "--device=local-sync://llvm-cpu"]):
        out = _run(tmp_path, *flags)
        assert out.returncode == 0, out.stderr
        lines = out.stdout.splitlines()
        assert lines[:2] == ["EXEC @split", "result[0]: hal.buffer_view"] and len(lines) == 3
        assert lines[2].startswith(first_row)
        assert set(re.findall(r"[-\d.]+\d", lines[2].partition("=")[2])) == {"11.5"}
    out = _run(tmp_path, f"--device={LLVM}", f"--device={VMVX}")
    assert out.returncode == 1 and out.stdout == ""
    assert out.stderr.startswith("rt run: device 0 (dev_a) of module") and "cannot load" in out.stderr


def test_one_device_bound_twice_gets_its_own_trace_sink_back_on_close(compiled):
    from rt.runtime.hal import create_device

    device = create_device("local-task://llvm-cpu")
    own = rt.Tracer()
    device.set_trace_sink(own)
    m = rt.load(compiled("split", ["a=llvm-cpu", "b=llvm-cpu"]), devices=[device, device],
                tracer=rt.Tracer())
    m.close()
    assert device.set_trace_sink(None) is own
    device.release()
