"""Writable VM buffers: buffer.store.*, f16 storage, read-only and released traps, GC safety."""
import math
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from rt.runtime.errors import InvalidArgumentError, VMTrapError
from rt.runtime.vm import ModuleBuilder, VMBuffer

from vm_helpers import load, op_function

_STORES = [("i8", "i32", np.int8, -5), ("i16", "i32", np.int16, -30000), ("i32", "i32", np.int32, -70000),
           ("i64", "i64", np.int64, -(1 << 40)), ("f32", "f32", np.float32, 1.25), ("f64", "f64", np.float64, -2.5),
           ("f16", "f32", np.float16, 0.333251953125)]


def _store_function(suffix, reg_type):
    mb = ModuleBuilder("st")
    letter = {"i32": "i", "i64": "I", "f32": "f", "f64": "F"}[reg_type]
    fb = mb.function("put", f"0rI{letter}_v", export=True)
    buf, off, value = fb.args
    getattr(fb, f"buffer_store_{suffix}")(buf, off, value)
    fb.return_([])
    return load(mb).lookup_function("st.put")


@pytest.mark.parametrize("suffix,reg_type,dtype,value", _STORES)
def test_store_writes_the_element_and_nothing_else(suffix, reg_type, dtype, value):
    arr = np.zeros(4, dtype)
    put = _store_function(suffix, reg_type)
    put(VMBuffer(arr, "out", writable=True), 2 * arr.itemsize, value)
    want = np.zeros(4, dtype)
    want[2] = value
    np.testing.assert_array_equal(arr, want)


def test_narrow_stores_keep_the_low_bits():
    arr = np.zeros(2, np.uint8)
    _store_function("i8", "i32")(VMBuffer(arr, writable=True), 1, 0x1FF)
    assert arr.tolist() == [0, 0xFF]


@pytest.mark.parametrize("suffix,reg_type,dtype,value", _STORES[:1] + _STORES[4:5])
def test_stores_trap_on_read_only_and_out_of_bounds(suffix, reg_type, dtype, value):
    put = _store_function(suffix, reg_type)
    arr = np.zeros(4, dtype)
    with pytest.raises(VMTrapError, match="buffer.store: the buffer ro is read-only"):
        put(VMBuffer(arr, "ro"), 0, value)
    with pytest.raises(VMTrapError, match=r"buffer.store: \d bytes at offset 16 are out of bounds of a"):
        put(VMBuffer(arr, "rw", writable=True), 16, value)
    with pytest.raises(VMTrapError, match="offset -1 are out of bounds"):
        put(VMBuffer(arr, "rw", writable=True), -1, value)
    np.testing.assert_array_equal(arr, 0)


def test_from_address_buffer_and_release():
    arr = np.arange(4, dtype=np.int32)
    buf = VMBuffer.from_address(arr.ctypes.data, arr.nbytes, True, "binding 0", owner=arr)
    assert (len(buf), buf.writable, buf.owner is arr, buf.address) == (16, True, True, arr.ctypes.data)
    put = _store_function("i32", "i32")
    put(buf, 4, 42)
    assert arr.tolist() == [0, 42, 2, 3]
    assert np.frombuffer(buf.view, np.int32).tolist() == [0, 42, 2, 3]
    buf.release()
    assert (buf.released, len(buf), buf.owner) == (True, 0, None)
    with pytest.raises(VMTrapError, match="out of bounds of a 0-byte released buffer binding 0"):
        put(buf, 0, 1)
    assert arr.tolist() == [0, 42, 2, 3]


def test_buffer_construction_errors():
    with pytest.raises(InvalidArgumentError, match="writable"):
        VMBuffer(b"abc", "x", writable=True)
    with pytest.raises(InvalidArgumentError, match="C-contiguous"):
        VMBuffer(np.zeros((4, 4), np.float32)[:, 1], "x")
    with pytest.raises(InvalidArgumentError, match="NULL address"):
        VMBuffer.from_address(0, 8)
    with pytest.raises(InvalidArgumentError, match="length must be >= 0"):
        VMBuffer.from_address(16, -1)
    assert not VMBuffer(bytearray(3)).writable and VMBuffer.wrap(bytearray(3)).writable


def test_f16_load_widens_exactly_and_store_rounds_to_nearest_even():
    bits = np.array([0x0000, 0x8000, 0x0001, 0x03FF, 0x0400, 0x3C00, 0x7BFF, 0x7C00, 0xFC00, 0x3555, 0xC001],
                    np.uint16)
    mb = ModuleBuilder("h")
    fb = mb.function("get", "0rI_F", export=True)
    buf, off = fb.args
    v = fb.reg("f64")
    fb.buffer_load_f16(v, buf, off)
    fb.return_([v])
    get = load(mb).lookup_function("h.get")
    halves = bits.view(np.float16)
    for k in range(len(bits)):
        assert get(VMBuffer(bits), 2 * k) == float(halves[k])
    values = np.array([0.0, -0.0, 1e-8, 3e-8, 5.96e-8, 6.1e-5, 1.0 + 2 ** -11, 1.0 + 3 * 2 ** -11, 65504.0,
                       65519.99, 65520.0, -1e9, 0.1, 2.0 / 3, math.pi, 1e-5], np.float64)
    out = np.zeros(len(values), np.float16)
    put = _store_function("f16", "f64")
    for k, x in enumerate(values):
        put(VMBuffer(out, writable=True), 2 * k, float(x))
    with np.errstate(over="ignore"):
        want = values.astype(np.float16)
    np.testing.assert_array_equal(out.view(np.uint16), want.view(np.uint16))
    put(VMBuffer(out, writable=True), 0, float("nan"))
    assert np.isnan(out[0])


def test_trunc_f32_f16_rounds_like_numpy():
    f = op_function("trunc_f32_f16", ["f32"], "f32")
    for x in np.float32([1.0001, -3.14159, 1e-6, 7e4, 0.099975586]):
        with np.errstate(over="ignore"):
            want = float(np.float16(x))
        assert f(float(x)) == want


_MATH = [("sin", np.sin), ("cos", np.cos), ("atan", np.arctan), ("exp2", np.exp2), ("expm1", np.expm1),
         ("log2", np.log2), ("log10", np.log10), ("log1p", np.log1p), ("roundeven", np.rint),
         ("rsqrt", lambda x: 1 / np.sqrt(x)), ("erf", np.vectorize(math.erf))]


@pytest.mark.parametrize("name,ref", _MATH)
def test_math_ops_match_numpy(name, ref):
    xs = np.array([0.5, 1.5, 2.5, 3.75, 10.0], np.float64)
    f64 = op_function(f"{name}_f64", ["f64"], "f64")
    f32 = op_function(f"{name}_f32", ["f32"], "f32")
    for x in xs:
        assert f64(float(x)) == pytest.approx(float(ref(x)), rel=1e-15, abs=1e-300)
        assert f32(float(x)) == pytest.approx(float(ref(np.float32(x))), rel=2e-7)


def test_atan2():
    assert op_function("atan2_f64", ["f64", "f64"], "f64")(1.0, -2.0) == math.atan2(1.0, -2.0)
    assert op_function("atan2_f32", ["f32", "f32"], "f32")(1.0, -2.0) == pytest.approx(math.atan2(1, -2), rel=1e-7)


_GC_PROGRAM = """
import gc
from rt.runtime.vm import Context, Instance, Module, ModuleBuilder, NativeModule, native_function


class Boom(NativeModule):
    name = "boom"

    @native_function("take", "0r_v")
    def take(self, buf):
        raise KeyError("boom")


def run():
    mb = ModuleBuilder("app")
    take = mb.import_function("boom.take", "0r_v")
    ro = mb.rodata("blob", b"0123456789")
    fb = mb.function("f", "0v_v", export=True)
    r = fb.reg("ref")
    fb.const_ref_rodata(r, ro)
    fb.call_import(take, [r], [])
    fb.return_([])
    ctx = Context(Instance(), [Boom(), Module.from_bytes(mb.build())])
    try:
        ctx.lookup_function("app.f")()
    except KeyError as e:
        ctx.keep = [e, ctx]
        return e


for i in range(3):
    err = run()
    del err
    assert gc.collect() > 0
print("collected")
"""


def test_gc_collects_a_context_cycle_holding_rodata_buffers():
    # Regression: the rodata VMBuffer held a buffer export of the module's memoryview; the
    # garbage collector cleared that memoryview inside the cycle ("memoryview has 1 exported
    # buffer") and the VMBuffer's release then crashed the process.
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(_GC_PROGRAM)], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "collected"
    assert "BufferError" not in proc.stderr and "exported buffer" not in proc.stderr
