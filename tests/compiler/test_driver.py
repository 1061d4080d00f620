"""compile_source / compile_file: the whole pipeline, dumps, devices and option errors."""
import json
import os

import pytest

from rt.compiler import compile_file, compile_source
from rt.compiler.passes.pipeline import pass_names
from rt.runtime import hal
from rt.runtime.errors import CompileError, InvalidArgumentError
from rt.runtime.hal.module import HalModule
from rt.runtime.vm import Context, Instance, Module

SCALAR = """func.func @mad(%a: i32, %b: i32, %c: i32) -> i32 {
  %0 = arith.muli %a, %b : i32
  %1 = arith.addi %0, %c : i32
  return %1 : i32
}
"""


def _run(vmfb, uri, name, *args):
    module = Module.from_bytes(vmfb)
    device = hal.create_device(uri)
    try:
        ctx = Context(Instance(), [HalModule([device]), module])
        return ctx.lookup_function(f"{module.name}.{name}")(*args)
    finally:
        device.release()


def test_pipeline_order_runs_target_devices_after_abi_before_global_optimization_and_vm_last():
    names = pass_names()
    assert names[0] == "verify" and names[-1] == "iree-vm-conversion"
    assert names.index("iree-abi-wrap-entry-points") < names.index("iree-hal-materialize-target-devices")
    assert names.index("iree-hal-materialize-target-devices") < names.index("iree-dispatch-creation-set-encoding")
    assert names.index("iree-hal-translate-executables") < names.index("iree-hal-convert-to-hal")


@pytest.mark.parametrize("target,uri", [("vmvx", "local-sync://vmvx"), ("llvm-cpu", "local-sync://llvm-cpu")])
def test_scalar_function_compiles_and_runs(target, uri):
    vmfb = compile_source(SCALAR, "mad.mlir", devices=[("__device_0", target)])
    assert _run(vmfb, uri, "mad", 3, 4, 5) == 17
    devices = json.loads(Module.from_bytes(vmfb).attributes["rt.devices"])
    assert [d["name"] for d in devices] == ["__device_0"] and devices[0]["targets"][0]["backend"] == target


def test_dump_after_all_writes_every_pass(tmp_path):
    compile_source(SCALAR, "mad.mlir", devices=["d=vmvx"], options={"dump_after": "all", "dump_dir": str(tmp_path)})
    files = sorted(os.listdir(tmp_path))
    assert len(files) == len(pass_names())
    assert files[-1].endswith("_iree-vm-conversion.mlir")
    text = (tmp_path / files[-1]).read_text()
    assert "vm.module @" in text and "// " in text and "mad" in text


def test_compile_file_writes_output(tmp_path):
    src = tmp_path / "mad.mlir"
    src.write_text(SCALAR)
    out = tmp_path / "mad.vmfb"
    data = compile_file(str(src), devices="__device_0=vmvx", output=str(out))
    assert out.read_bytes() == data and _run(data, "local-sync://vmvx", "mad", 2, 2, 2) == 6


def test_bad_device_target_is_rejected_before_compiling():
    with pytest.raises(InvalidArgumentError, match=r"'cuda' is not a compile target; expected vmvx, llvm-cpu"):
        compile_source(SCALAR, "mad.mlir", devices=[("__device_0", "cuda")])


def test_unknown_option_is_rejected():
    with pytest.raises(InvalidArgumentError, match=r"unknown compile option\(s\) fast; known: devices, data_tiling"):
        compile_source(SCALAR, "mad.mlir", options={"fast": True})


def test_parse_error_is_located():
    with pytest.raises(CompileError, match=r"broken\.mlir:2:"):
        compile_source("func.func @f() {\n  %x = arith.bogus\n}\n", "broken.mlir")
