"""rt.abi (reflection parsing, dtype rules) and rt.runtime.hal.host_upload.upload (zero-copy vs copy)."""
import json

import numpy as np
import pytest

from rt.abi import FunctionABI, dtype_accepted, type_text
from rt.runtime.hal.host_upload import upload
from rt.runtime import hal
from rt.runtime.errors import InvalidArgumentError, ModuleFormatError
from rt.runtime.vm import Module, ModuleBuilder
from rt.testing import reflection, scalar, tensor


def _function(cconv, refl):
    mb = ModuleBuilder("m")
    fb = mb.function("f", cconv, export=True, reflection=refl)
    regs = [fb.reg({"r": "ref", "i": "i32", "I": "i64", "f": "f32", "F": "f64"}[c]) for c in cconv.split("_")[1]
            if c != "v"]
    for r in regs:
        if r.type == "ref":
            fb.const_ref_zero(r)
        else:
            getattr(fb, f"const_{r.type}_zero")(r)
    fb.return_(regs)
    return Module.from_bytes(mb.build()).lookup_function("f")


def test_reflection_is_parsed():
    fdef = _function("0rI_r", reflection("func @f(%a: tensor<?x8xf32>, %n: index) -> tensor<4xi8>",
                                         [tensor("a", (None, 8), "f32"), scalar("n", "index")],
                                         [tensor("", (4,), "i8")], "f.mlir:1:1"))
    abi = FunctionABI.from_function(fdef)
    assert [a.kind for a in abi.args] == ["tensor", "scalar"] and abi.args[0].shape == (None, 8)
    assert abi.results[0].element == "i8" and abi.source == "f.mlir:1:1" and abi.typed
    abi.check_tensor(0, (3, 8), np.float32)
    with pytest.raises(InvalidArgumentError, match=r"input 0 of @f: expected tensor<\?x8xf32>, got 3x7xf32"):
        abi.check_tensor(0, (3, 7), np.float32)
    with pytest.raises(InvalidArgumentError, match=r"input 1 of @f: expected index, got a 3xf32 array"):
        abi.check_tensor(1, (3,), np.float32)
    assert abi.check_scalar(1, np.int64(7)) == 7


def test_abi_derived_from_the_cconv_without_reflection():
    abi = FunctionABI.from_function(_function("0rif_r", {}))
    assert [a.kind for a in abi.args] == ["ref", "scalar", "scalar"]
    assert [a.element for a in abi.args[1:]] == ["i32", "f32"] and not abi.typed


@pytest.mark.parametrize("abi_text, message", [
    ("{not json", r"is not JSON"),
    (json.dumps({"args": []}), r"expected \{\"args\""),
    (json.dumps({"args": [{"kind": "blob", "type": "x", "dtype": "f32"}], "results": []}), r"kind 'blob'"),
    (json.dumps({"args": [tensor("a", (-1,), "f32")], "results": []}), r"'shape' must be a list"),
    (json.dumps({"args": [scalar("a", "i32")], "results": []}), r"do not match the cconv"),
])
def test_malformed_reflection_is_a_module_format_error(abi_text, message):
    fdef = _function("0r_v", {"rt.abi": abi_text})
    with pytest.raises(ModuleFormatError, match=message):
        FunctionABI.from_function(fdef)


def test_dtype_rules():
    assert dtype_accepted("i32", np.int32) and dtype_accepted("i32", np.uint32)
    assert not dtype_accepted("i32", np.int64) and not dtype_accepted("si32", np.uint32)
    assert dtype_accepted("i1", np.bool_) and dtype_accepted("index", np.int64)
    assert dtype_accepted("f16", np.float16) and not dtype_accepted("f32", np.float64)
    assert type_text((None, 3), "f32") == "?x3xf32"


@pytest.fixture(scope="module")
def device():
    d = hal.create_device("local-sync://vmvx")
    yield d
    d.release()


def _aligned(n, dtype, offset=0):
    raw = np.zeros(n * np.dtype(dtype).itemsize + 128, np.uint8)
    start = (-raw.ctypes.data) % 64 + offset
    return raw[start:start + n * np.dtype(dtype).itemsize].view(dtype)


def test_aligned_writeable_arrays_upload_without_a_copy(device):
    a = _aligned(16, np.float32)
    a[:] = np.arange(16)
    view = upload(device, a.reshape(4, 4), hal.ElementType.FLOAT_32)
    assert view.buffer.ptr == a.ctypes.data and view.shape == (4, 4)
    a[0] = 99.0
    assert view.to_numpy()[0, 0] == 99.0


def test_element_aligned_arrays_upload_without_a_copy(device):
    a = _aligned(16, np.float32, offset=4)  # 4-byte aligned, not 64: kernels need element alignment
    view = upload(device, a, hal.ElementType.FLOAT_32)
    assert view.buffer.ptr == a.ctypes.data


@pytest.mark.parametrize("make", [
    lambda: _aligned(80, np.uint8, offset=2)[:64].view(np.float32),  # not element-aligned
    lambda: _aligned(32, np.float32)[::2],
    lambda: np.frombuffer(bytes(64), np.float32),
])
def test_unaligned_strided_or_readonly_arrays_are_copied(device, make):
    a = make()
    view = upload(device, a, hal.ElementType.FLOAT_32)
    assert view.buffer.ptr != a.ctypes.data
    np.testing.assert_array_equal(view.to_numpy(), a)
