"""rt.load and LoadedModule: numpy in/out, scalars, argument checks, devices, async, DeviceArray."""
import json
import subprocess
import sys

import numpy as np
import pytest

import rt
from rt import testing
from rt.runtime import hal
from rt.runtime.errors import InvalidArgumentError, ModuleFormatError, NotFoundError
from rt.runtime.vm import ModuleBuilder


def test_tensor_in_tensor_out_and_results_never_alias_inputs(basic):
    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    y = basic.identity(x)
    np.testing.assert_array_equal(y, x)
    assert y.dtype == np.float32 and not np.shares_memory(x, y)
    x[0, 0] = 42.0
    assert y[0, 0] == 0.0


def test_new_view_of_the_same_buffer(basic):
    r = basic.reshape(np.arange(6, dtype=np.float32).reshape(2, 3))
    np.testing.assert_array_equal(r, np.arange(6, dtype=np.float32).reshape(3, 2))


def test_scalars_and_multiple_results(basic):
    assert basic.add_i32(2, 3) == 5
    assert basic.add_i32(np.int32(-7), 2) == -5
    assert basic.scale(1.5, 4) == (3.0, 5)
    assert basic.is_positive(2.0) is True and basic.is_positive(-1) is False
    assert basic.device_count() == 1
    assert basic["add_i32"](1, 1) == 2


@pytest.mark.parametrize("call, message", [
    (lambda m: m.identity(np.zeros((4, 7), np.float32)),
     r"input 0 of @identity: expected tensor<\?x4xf32>, got 4x7xf32"),
    (lambda m: m.identity(np.zeros((4, 4), np.float64)),
     r"input 0 of @identity: expected tensor<\?x4xf32>, got 4x4xf64"),
    (lambda m: m.identity(np.zeros(4, np.float32)), r"expected tensor<\?x4xf32>, got 4xf32"),
    (lambda m: m.identity(), r"@identity takes 1 input\(s\) \(x: tensor<\?x4xf32>\), got 0"),
    (lambda m: m.add_i32(1.5, 2), r"input 0 of @add_i32: expected i32, got float 1.5"),
    (lambda m: m.add_i32(1, np.ones(2)), r"input 1 of @add_i32: expected i32, got ndarray"),
    (lambda m: m.scale("x", 1), r"input 0 of @scale: expected f32, got str 'x'"),
    (lambda m: m.add_i32(1, 2 ** 40), r"does not fit i32"),
    (lambda m: m.identity([[1.5, 2, 3, 4]] * 2 + [["a"] * 4]), r"input 0 of @identity: expected"),
])
def test_bad_arguments_name_the_argument_and_declared_type(basic, call, message):
    with pytest.raises(InvalidArgumentError, match=message):
        call(basic)


def test_python_lists_are_converted_to_the_declared_dtype(basic):
    y = basic.identity([[1, 2, 3, 4]])
    assert y.dtype == np.float32 and y.tolist() == [[1, 2, 3, 4]]


def test_unknown_function_lists_exports(basic):
    with pytest.raises(AttributeError, match=r"no exported function 'nope'; exports: add_i32, device_count"):
        basic.nope
    with pytest.raises(NotFoundError, match=r"exports: add_i32"):
        basic["__init"]
    assert basic.functions == ["add_i32", "device_count", "identity", "is_positive", "reshape", "scale"]
    assert "tensor<?x4xf32>" in repr(basic.identity)


def test_dispatching_module_results_and_device_arrays(adder):
    a, b = np.arange(100, dtype=np.float32), np.full(100, 0.5, np.float32)
    np.testing.assert_array_equal(adder.add(a, b), a + b)
    d = adder.add(a, b, to_host=False)
    assert isinstance(d, rt.DeviceArray) and d.shape == (100,) and d.dtype == np.float32
    assert d.device is adder.devices[0]
    np.testing.assert_array_equal(adder.add(d, d), 2 * (a + b))
    np.testing.assert_array_equal(np.asarray(d), a + b)
    up = adder.to_device(np.ones(100, np.float32))
    np.testing.assert_array_equal(adder.add(up, a), a + 1)
    assert adder.add(np.zeros(0, np.float32), np.zeros(0, np.float32)).shape == (0,)


def test_fresh_results_are_not_copied_but_aliasing_ones_are(adder, basic):
    out = adder.add(np.ones(64, np.float32), np.ones(64, np.float32))
    assert not out.flags.owndata and out.base is not None
    assert basic.identity(np.ones((1, 4), np.float32)).flags.owndata


def test_llvm_cpu_executables_get_their_embedded_metadata():
    with rt.load(testing.add_module("llvm-cpu")) as m:
        assert m.devices[0].uri == "local-task://llvm-cpu"
        a = np.arange(1000, dtype=np.float32)
        np.testing.assert_array_equal(m.add(a, a), 2 * a)


def test_devices_bind_in_the_order_of_the_module_attribute():
    mb = ModuleBuilder("two", attributes={"rt.devices": testing.devices_attribute("llvm-cpu", "vmvx")})
    hal_count = mb.import_function("hal.devices.count", "0v_i")
    fb = mb.function("count", "0v_i", export=True)
    r = fb.reg("i32")
    fb.call_import(hal_count, [], [r])
    fb.return_([r])
    vmfb = mb.build()
    with rt.load(vmfb) as m:
        assert [d.uri for d in m.devices] == ["local-task://llvm-cpu", "local-task://vmvx"] and m.count() == 2
    with rt.load(vmfb, devices=["local-sync://llvm-cpu"]) as m:
        assert [d.uri for d in m.devices] == ["local-sync://llvm-cpu", "local-task://vmvx"]
    with pytest.raises(InvalidArgumentError, match=r"device 1 \(__device_1\) of module two targets vmvx"):
        rt.load(vmfb, devices=["local-sync://llvm-cpu", "local-sync://llvm-cpu"])


def test_async_calls_return_futures(adder):
    futures = [adder.add.async_(np.full(10, k, np.float32), np.ones(10, np.float32)) for k in range(4)]
    for k, f in enumerate(futures):
        np.testing.assert_array_equal(f.result(timeout=30), np.full(10, k + 1, np.float32))
    with pytest.raises(InvalidArgumentError, match=r"input 0 of @add"):
        adder.add.async_(np.zeros(3, np.int32), np.zeros(3, np.float32)).result(timeout=30)


def test_device_array_moves_between_devices():
    with rt.load(testing.add_module()) as m1, rt.load(testing.add_module(), devices=["local-sync://vmvx"]) as m2:
        d = m1.add(np.ones(5, np.float32), np.ones(5, np.float32), to_host=False)
        out = m2.add(d, np.ones(5, np.float32), to_host=False)
        assert out.device is m2.devices[0] and out.device is not d.device
        np.testing.assert_array_equal(out.to_host(), np.full(5, 3, np.float32))


def test_explicit_devices_bind_in_order_and_are_checked():
    device = hal.create_device("local-sync://vmvx")
    try:
        with rt.load(testing.add_module(), devices=[device]) as m:
            assert m.devices == (device,)
            np.testing.assert_array_equal(m.add(np.ones(3, np.float32), np.ones(3, np.float32)), [2, 2, 2])
        with rt.load(testing.add_module(), devices="local-sync") as m:
            assert m.devices[0].uri == "local-sync://vmvx"
    finally:
        device.release()
    with pytest.raises(InvalidArgumentError, match=r"device 0 \(__device_0\) of module adder targets vmvx .* "
                                                    r"cannot load; use e.g. local-task://vmvx"):
        rt.load(testing.add_module(), devices=["local-sync://llvm-cpu"])
    with pytest.raises(InvalidArgumentError, match=r"declares 1 device\(s\) \(__device_0\) but 2 were given"):
        rt.load(testing.add_module(), devices=["local-sync://vmvx", "local-sync://vmvx"])
    with pytest.raises(InvalidArgumentError, match=r"not of the form driver://device"):
        rt.load(testing.add_module(), devices=["nonsense"])


def test_bad_modules_and_sources():
    with pytest.raises(ModuleFormatError):
        rt.load(b"not a vmfb at all")
    with pytest.raises(NotFoundError, match=r"does not exist"):
        rt.load("/nonexistent/model.vmfb")
    with pytest.raises(InvalidArgumentError, match=r"compile MLIR text with rt.compile"):
        rt.load("func.func @f() {\n return\n}")
    with pytest.raises(InvalidArgumentError, match=r"takes .vmfb bytes or a path"):
        rt.load(42)
    mb = ModuleBuilder("bad", attributes={"rt.devices": json.dumps({"name": 1})})
    mb.function("f", "0v_v", export=True).return_([])
    with pytest.raises(ModuleFormatError, match=r"attribute rt.devices must be a list"):
        rt.load(mb.build())


def test_module_without_reflection_uses_the_cconv():
    mb = ModuleBuilder("plain")
    fb = mb.function("twice", "0I_I", export=True)
    r = fb.reg("i64")
    fb.add_i64(r, fb.args[0], fb.args[0])
    fb.return_([r])
    with rt.load(mb.build()) as m:
        assert m.devices == () and m.twice(21) == 42
        with pytest.raises(InvalidArgumentError, match=r"input 0 of @twice: expected i64, got float"):
            m.twice(1.5)


def test_loading_a_vmfb_never_imports_the_compiler(tmp_path):
    path = tmp_path / "basic.vmfb"
    path.write_bytes(testing.basic_module())
    code = ("import sys, numpy as np, rt; m = rt.load(sys.argv[1]); print(m.add_i32(2, 3)); "
            "print(sorted(k for k in sys.modules if k.startswith(('xdsl', 'rt.compiler'))))")
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:2] == ["5", "[]"]
