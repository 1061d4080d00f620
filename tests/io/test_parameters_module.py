"""The io_parameters VM module and the parameter index: IREE's load ABI, zero-copy mapping of
immutable .irpa data, copies otherwise, and errors naming the parameter, the file and what the
module expects. Also: the runtime imports without the safetensors package."""
import struct
import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest

from rt.parameters import parameter_index
from rt.runtime.errors import InvalidArgumentError, NotFoundError, UnimplementedError
from rt.runtime.hal import create_device
from rt.runtime.hal.buffer import BufferUsage
from rt.runtime.io.irpa import Splat, read_irpa, write_irpa
from rt.runtime.io.parameter_index import ParameterIndex
from rt.runtime.io.parameters_module import IoParametersModule

IMMUTABLE = int(BufferUsage.DEFAULT | BufferUsage.SHARING_IMMUTABLE)


@pytest.fixture(scope="module")
def device():
    dev = create_device("local-sync://vmvx")
    yield dev
    dev.release()


def _load(module, device, scope, keys_lengths, usage=IMMUTABLE):
    """Call io_parameters.load as compiled code does (key table, key data, spans)."""
    table, data, spans = b"", b"", b""
    for key, length in keys_lengths:
        table += struct.pack("<II", len(data), len(key))
        data += key.encode()
        spans += struct.pack("<QQQ", 0, 0, length)
    return module.load(device, -1, None, None, scope.encode() if scope else None, -1, 0, usage, table, data, spans)


def test_irpa_data_is_mapped_zero_copy_when_immutable(tmp_path, device):
    path = tmp_path / "m.irpa"
    write_irpa(path, {"w": np.arange(16, dtype=np.float32), "s": Splat(b"\x02\x00", 8)})
    index = ParameterIndex().add_file(path, "model")
    module = IoParametersModule(index)
    w, s = _load(module, device, "model", [("w", 64), ("s", 8)])
    entry, source = index.lookup("model", "w")
    assert source == str(path)
    assert w.ptr == np.frombuffer(entry.data, np.uint8).ctypes.data
    np.testing.assert_array_equal(w.host_bytes().view(np.float32), np.arange(16))
    np.testing.assert_array_equal(s.host_bytes(), [2, 0] * 4)
    (copy,) = _load(module, device, "model", [("w", 64)], usage=int(BufferUsage.DEFAULT))
    assert copy.ptr != w.ptr
    np.testing.assert_array_equal(copy.host_bytes().view(np.float32), np.arange(16))


def test_fences_are_waited_and_signaled(tmp_path, device):
    from rt.runtime.hal.fence import Fence

    write_irpa(tmp_path / "m.irpa", {"w": b"abcd"})
    module = IoParametersModule(ParameterIndex().add_file(tmp_path / "m.irpa"))
    wait, signal = Fence(), Fence()
    sem = device.create_semaphore(0)
    wait.insert(sem, 1)
    sem.signal(1)
    sig_sem = device.create_semaphore(0)
    signal.insert(sig_sem, 1)
    table = struct.pack("<II", 0, 1)
    (buffer,) = module.load(device, -1, wait, signal, None, -1, 0, IMMUTABLE, table, b"w", struct.pack("<QQQ", 0, 0, 4))
    assert signal.is_reached and bytes(buffer.host_bytes()) == b"abcd"
    failing = Fence()
    failing.insert(device.create_semaphore(0), 1)
    with pytest.raises(NotFoundError):
        module.load(device, -1, None, failing, None, -1, 0, IMMUTABLE, table, b"x", struct.pack("<QQQ", 0, 0, 4))
    assert failing.failure is not None


def test_missing_scope_key_and_sizes_are_named(tmp_path, device):
    path = tmp_path / "m.irpa"
    write_irpa(path, {"weight0": np.zeros(4, np.float32)})
    expected = {("model", "weight"): {"type": "tensor<4xf32>", "element": "f32", "shape": [4]},
                ("model", "weight0"): {"type": "tensor<8xf32>", "element": "f32", "shape": [8]}}
    module = IoParametersModule(parameter_index([f"model={path}"]), expected)
    with pytest.raises(NotFoundError) as info:
        _load(module, device, "model", [("weight", 16)])
    assert str(info.value) == (f'parameter "model"::"weight" (the module expects tensor<4xf32>) is not in {path} '
                               f'(1 parameter; nearest keys: weight0)')
    with pytest.raises(NotFoundError, match=r"no parameter file was given for scope 'other' \(scopes given: "
                                            r"'model'\); pass --parameters=other=FILE"):
        _load(module, device, "other", [("weight", 16)])
    with pytest.raises(NotFoundError, match="no parameter file was given for unscoped parameters"):
        _load(module, device, "", [("weight", 16)])
    with pytest.raises(InvalidArgumentError) as info:
        _load(module, device, "model", [("weight0", 32)])
    assert str(info.value) == (f'parameter "model"::"weight0" in {path} holds 16 bytes but the module expects '
                               f'tensor<8xf32> of 32 bytes')


def test_arrays_are_checked_like_typed_files(device):
    expected = {("", "w"): {"type": "tensor<2x3xf32>", "element": "f32", "shape": [2, 3]},
                ("", "q"): {"type": "tensor<3xi4>", "element": "i4", "shape": [3]},
                ("", "b"): {"type": "tensor<2xi8>", "element": "i8", "shape": [2]}}
    module = IoParametersModule(parameter_index({"": {"w": np.ones((3, 2), np.float32),
                                                      "q": np.array([1, -2, 3], ml_dtypes.int4),
                                                      "b": np.array([200, 1], np.uint8)}}), expected)
    with pytest.raises(InvalidArgumentError, match=r'parameter "w" in <array> is tensor<3x2xf32> \(numpy float32 '
                                                   r'\[3, 2\]\) but the module expects tensor<2x3xf32>'):
        _load(module, device, "", [("w", 24)])
    (packed,) = _load(module, device, "", [("q", 2)])
    assert list(packed.host_bytes()) == [0xE1, 0x03]  # i4 packed two per byte, element 0 low
    (unsigned,) = _load(module, device, "", [("b", 2)])  # signless i8 takes uint8 data
    assert list(unsigned.host_bytes()) == [200, 1]


def test_parameter_specs(tmp_path):
    write_irpa(tmp_path / "a.irpa", {"x": b"1"})
    write_irpa(tmp_path / "b=c.irpa", {"y": b"2"})
    index = parameter_index([tmp_path / "a.irpa", f"s={tmp_path / 'a.irpa'}", str(tmp_path / "b=c.irpa")])
    assert index.scopes == ["", "s"] and index.lookup("", "y")[1].endswith("b=c.irpa")
    index = parameter_index({"s": [tmp_path / "a.irpa"], "t": {"k": np.zeros(2)}})
    assert index.scopes == ["s", "t"]
    with pytest.raises(InvalidArgumentError, match=r"parameter \"x\" is in both"):
        parameter_index([tmp_path / "a.irpa", tmp_path / "a.irpa"])
    with pytest.raises(InvalidArgumentError, match="parameters must be a path"):
        parameter_index(42)
    with pytest.raises(NotFoundError, match="does not exist"):
        parameter_index(["s=missing.irpa"])
    (tmp_path / "x.bin").write_bytes(b"hello")
    with pytest.raises(InvalidArgumentError, match="neither an IREE parameter archive"):
        parameter_index([tmp_path / "x.bin"])


def test_safetensors_types_are_checked(tmp_path, device):
    from safetensors.numpy import save_file

    path = tmp_path / "m.safetensors"
    save_file({"w": np.arange(6, dtype=np.float32).reshape(2, 3), "h": np.ones(2, ml_dtypes.bfloat16),
               "i": np.array([5, 6], np.int64)}, str(path))
    expected = {("", "w"): {"type": "tensor<2x3xf32>", "element": "f32", "shape": [2, 3]},
                ("", "h"): {"type": "tensor<2xbf16>", "element": "bf16", "shape": [2]},
                ("", "i"): {"type": "tensor<2xi32>", "element": "i32", "shape": [2]}}
    module = IoParametersModule(parameter_index(path), expected)
    w, h = _load(module, device, "", [("w", 24), ("h", 4)])
    np.testing.assert_array_equal(w.host_bytes().view(np.float32), np.arange(6))
    assert bytes(h.host_bytes()) == np.ones(2, ml_dtypes.bfloat16).tobytes()
    with pytest.raises(InvalidArgumentError, match=rf'parameter "i" in {path} is tensor<2xi64> \(safetensors I64 '
                                                   r'\[2\]\) but the module expects tensor<2xi32>'):
        _load(module, device, "", [("i", 8)])
    bad = tmp_path / "bad.safetensors"
    bad.write_bytes(b"\x08\x00\x00\x00\x00\x00\x00\x00{garbage")
    with pytest.raises(InvalidArgumentError, match="not a valid .safetensors file"):
        parameter_index(bad)


def test_runtime_runs_without_the_safetensors_package(tmp_path):
    write_irpa(tmp_path / "m.irpa", {"w": b"abcd"})
    (tmp_path / "m.safetensors").write_bytes(b"")
    code = f"""
import sys
sys.modules["safetensors"] = None
import rt
from rt.parameters import parameter_index
from rt.runtime.errors import UnimplementedError
assert parameter_index({str(tmp_path / "m.irpa")!r}).lookup("", "w")[0].length == 4
try:
    parameter_index({str(tmp_path / "m.safetensors")!r})
except UnimplementedError as e:
    print(e)
assert "safetensors" not in [m for m in sys.modules if sys.modules[m] is not None]
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "needs the safetensors package (pip install safetensors==0.8.0)" in out.stdout
