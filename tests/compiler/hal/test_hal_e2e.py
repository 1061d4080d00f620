"""hal + vm phases end to end: stream-level modules -> .vmfb -> run on local devices, checked with numpy.

add_vmvx_binary.mlir.in: hand-written hal.executable whose binary is rt.devices.vmvx.testing's
elementwise add (stored as a blob), host code at stream level. add_stream.mlir.in: a stream
executable with a linalg.generic body, translated by the real code generators.
"""
import json
import os

import numpy as np
import pytest

from rt.compiler.dialects import make_context
from rt.compiler.frontend import parse_module
from rt.compiler.passes import PassPipeline, parse_pass_spec
from rt.compiler.passes.vm.conversion import vmfb_bytes
from rt.runtime import hal
from rt.runtime.errors import CompileError, InvalidArgumentError
from rt.runtime.hal.buffer_view import BufferView
from rt.runtime.hal.module import HalModule
from rt.runtime.vm import Context, Instance, Module

HERE = os.path.dirname(__file__)
HAL_PASSES = ("iree-hal-materialize-interfaces", "iree-hal-translate-executables", "iree-hal-convert-to-hal",
              "iree-hal-serialize-executables", "iree-vm-conversion")
F32 = 0x21000020


def _compile(text, filename="add.mlir", passes=HAL_PASSES):
    ctx = make_context()
    module = parse_module(text, filename, ctx)
    PassPipeline([parse_pass_spec(p) for p in passes]).run(module, ctx)
    return vmfb_bytes(module)


def _view(device, array):
    buf = device.allocator.allocate_from(array)
    return BufferView.create(buf, 0, array.nbytes, F32, 1, list(array.shape))


def _vmvx_binary_module(target="vmvx"):
    from rt.devices.vmvx import testing

    fmt, data, metadata = testing.elementwise_add_f32()
    with open(os.path.join(HERE, "add_vmvx_binary.mlir.in"), encoding="utf-8") as f:
        text = f.read()
    metadata = json.dumps(metadata).replace('"', "\\22")
    return text.replace("METADATA", metadata).replace("HEX", data.hex().upper()).replace("SIZE", str(len(data)))


def _run_add(vmfb, uri, n):
    device = hal.create_device(uri)
    try:
        ctx = Context(Instance(), [HalModule([device]), Module.from_bytes(vmfb)])
        a = np.arange(n, dtype=np.float32)
        b = np.full(n, 0.5, np.float32)
        out = ctx.lookup_function("module.add")(_view(device, a), _view(device, b))
        result = out.to_numpy().copy()
        assert out.shape == [n] or tuple(out.shape) == (n,)
        return result, a + b
    finally:
        device.release()


@pytest.mark.parametrize("uri", ["local-sync://vmvx", "local-task://vmvx"])
@pytest.mark.parametrize("n", [1, 64, 1000])
def test_vmvx_binary_dispatch_adds(uri, n):
    vmfb = _compile(_vmvx_binary_module(), passes=HAL_PASSES[2:])
    got, want = _run_add(vmfb, uri, n)
    np.testing.assert_array_equal(got, want)


def test_module_records_devices_and_embeds_the_executable():
    m = Module.from_bytes(_compile(_vmvx_binary_module(), passes=HAL_PASSES[2:]))
    assert '"name": "__device_0"' in m.attributes["rt.devices"] and '"backend": "vmvx"' in m.attributes["rt.devices"]
    assert [(e.name, e.format) for e in m.executables] == [("ex_vmvx_bytecode", "vmvx-bytecode")]
    assert sorted(m.exports) == ["__init", "add"]
    assert {i.name for i in m.imports} >= {"hal.devices.get", "hal.executable.create", "hal.command_buffer.dispatch",
                                            "hal.device.queue.execute", "hal.fence.await", "hal.buffer_view.create"}


def test_wrong_input_shape_is_reported_by_the_assert():
    vmfb = _compile(_vmvx_binary_module(), passes=HAL_PASSES[2:])
    device = hal.create_device("local-sync://vmvx")
    try:
        ctx = Context(Instance(), [HalModule([device]), Module.from_bytes(vmfb)])
        a = np.zeros(4, np.float32)
        b = np.zeros(5, np.float32)
        with pytest.raises(InvalidArgumentError, match=r"input1: expected tensor<4xf32>, got 5xf32"):
            ctx.lookup_function("module.add")(_view(device, a), _view(device, b))
    finally:
        device.release()


def _stream_module(target):
    with open(os.path.join(HERE, "add_stream.mlir.in"), encoding="utf-8") as f:
        text = f.read()
    return text.replace('#hal.executable.target<"llvm-cpu", "llvm-cpu-object-x86_64">', target)


@pytest.mark.parametrize("n", [7, 10000])
def test_llvm_cpu_translated_add(n):
    vmfb = _compile(_stream_module('#hal.executable.target<"llvm-cpu", "llvm-cpu-object-x86_64">'))
    got, want = _run_add(vmfb, "local-sync://llvm-cpu", n)
    np.testing.assert_array_equal(got, want)


def test_vmvx_translated_add():
    pytest.importorskip("rt.compiler.targets.vmvx", reason="the vmvx code generator is not in the tree yet")
    vmfb = _compile(_stream_module('#hal.executable.target<"vmvx", "vmvx-bytecode">'))
    got, want = _run_add(vmfb, "local-sync://vmvx", 1000)
    np.testing.assert_array_equal(got, want)


def test_llvm_cpu_translation_produces_a_loadable_binary_with_a_grid():
    ctx = make_context()
    module = parse_module(_stream_module('#hal.executable.target<"llvm-cpu", "llvm-cpu-object-x86_64">'), "a.mlir", ctx)
    PassPipeline([parse_pass_spec(p) for p in HAL_PASSES[:2]]).run(module, ctx)
    binaries = [op for op in module.walk() if op.name == "hal.executable.binary"]
    assert len(binaries) == 1 and binaries[0].format.data == "llvm-cpu-object-x86_64"
    data, metadata = binaries[0].contents()
    assert data[:4] == b"\x7fELF" and "sha256" in metadata
    export = next(op for op in module.walk() if op.name == "hal.executable.export")
    names = [op.name for op in export.workgroup_count.blocks[0].ops]
    assert "arith.ceildivui" in names and names[-1] == "hal.return"


def test_dispatch_of_unknown_executable_is_a_located_error():
    text = _vmvx_binary_module().replace("@ex::@add_dispatch_0", "@nope::@add_dispatch_0")
    with pytest.raises(CompileError, match=r"add\.mlir:\d+:\d+: error: .*@nope, which is not a hal.executable"):
        _compile(text, passes=HAL_PASSES[2:])
