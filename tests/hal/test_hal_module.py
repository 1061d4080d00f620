"""The ``hal`` VM module: direct calls and bytecode calling it through its import table."""
import numpy as np
import pytest

from rt.runtime import hal
from rt.runtime.errors import DeviceError, InvalidArgumentError
from rt.runtime.hal.module import HalModule
from rt.runtime.vm import Context, Instance, Module, ModuleBuilder

from fake_executables import FAKE_DATA, FAKE_FORMAT, FAKE_LOADER


@pytest.fixture(params=["local-sync://vmvx", "local-task://vmvx"])
def device(request):
    dev = hal.create_device(request.param, loaders=[FAKE_LOADER])
    yield dev
    dev.release()


def test_every_import_has_the_iree_cconv():
    expected = {
        "allocator.allocate": "0rIiiI_r", "buffer_view.create": "0rIIiiCID_r",
        "command_buffer.dispatch": "0rrIiiiICiDCiirIID_v", "command_buffer.fill_buffer": "0rrIIiIiI_v",
        "command_buffer.copy_buffer": "0riirIrIII_v", "device.queue.alloca": "0rIrrIiiII_r",
        "device.queue.execute": "0rIrrrI_v", "device.queue.execute.indirect": "0rIrrrICrIID_v",
        "fence.await": "0iICrD_i", "fence.create": "0rI_r",
        "executable.create": "0rIrrr_r", "devices.get": "0i_r",
        "channel.create": "0rIIrrii_r", "channel.split": "0riiI_r",
        "channel.rank_and_count": "0r_ii",
        "command_buffer.collective": "0rriiiirrIIIII_v",
    }
    for name, cconv in expected.items():
        assert HalModule.exports[name][1].text == cconv
    assert HalModule.exports["buffer.set_encoding"][1].text == "0rr_v"  # rt's addition
    assert len(HalModule.exports) == 50


def test_buffer_view_imports(device):
    m = HalModule([device])
    buf = device.allocator.allocate_from(np.arange(8, dtype=np.float32))
    view = m.buffer_view_create(buf, 8, 16, 0x21000020, 1, [2, 2])
    assert (m.buffer_view_rank(view), m.buffer_view_dim(view, 1)) == (2, 2)
    assert m.buffer_view_element_type(view) == 0x21000020 and m.buffer_view_encoding_type(view) == 1
    np.testing.assert_array_equal(view.to_numpy(), [[2, 3], [4, 5]])
    m.buffer_view_assert(view, b"input 0", 0x21000020, 1, [2, 2])
    with pytest.raises(InvalidArgumentError, match=r"input 0: expected tensor<2x3xf32>, got 2x2xf32"):
        m.buffer_view_assert(view, b"input 0", 0x21000020, 1, [2, 3])
    with pytest.raises(InvalidArgumentError, match=r"needs 64 bytes but"):
        m.buffer_view_create(buf, 0, 32, 0x21000020, 1, [4, 4])
    with pytest.raises(InvalidArgumentError, match=r"index 2 out of range for rank-2"):
        m.buffer_view_dim(view, 2)


def test_fence_await_timeout_and_devices(device):
    m = HalModule([device])
    fence = m.fence_create(device, 0)
    assert m.fence_query(fence) == hal.StatusCode.DEFERRED
    assert m.fence_await(10, 0, [fence]) == hal.StatusCode.DEADLINE_EXCEEDED
    m.fence_signal(fence)
    assert m.fence_await(-1, 0, [fence]) == 0 and m.fence_query(fence) == 0
    failed = m.fence_create(device, 0)
    m.fence_fail(failed, 10)
    assert m.fence_query(failed) == hal.StatusCode.ABORTED
    with pytest.raises(DeviceError, match=r"status ABORTED"):
        m.fence_await(-1, 0, [fence, failed])
    assert m.devices_count() == 1 and m.devices_get(0) is device
    with pytest.raises(InvalidArgumentError, match=r"device index 1 out of range; the context has 1"):
        m.devices_get(1)


def _program():
    """@fill(pattern) -> i32 and @add(n) -> i32 calling hal through bytecode."""
    mb = ModuleBuilder("app")
    imp = {name: mb.import_function("hal." + name, HalModule.exports[name][1].text) for name in (
        "devices.get", "device.allocator", "allocator.allocate", "command_buffer.create",
        "command_buffer.fill_buffer", "command_buffer.finalize", "command_buffer.dispatch",
        "fence.create", "device.queue.execute", "fence.await", "buffer.load", "executable.create",
        "command_buffer.execution_barrier")}
    fmt, data = mb.rodata("fmt", FAKE_FORMAT.encode()), mb.rodata("exe", FAKE_DATA)

    def prologue(fb):
        r = {k: fb.reg(t) for k, t in (("dev", "ref"), ("alloc", "ref"), ("buf", "ref"), ("cb", "ref"),
                                       ("fence", "ref"), ("null", "ref"), ("i0", "i32"), ("I0", "i64"),
                                       ("neg", "i64"), ("size", "i64"), ("modes", "i32"), ("cat", "i32"),
                                       ("mt", "i32"), ("usage", "i32"), ("st", "i32"), ("out", "i32"))}
        fb.const_i32(r["i0"], 0)
        fb.const_i64(r["I0"], 0)
        fb.const_i64(r["neg"], -1)
        fb.const_i64(r["size"], 64)
        fb.const_i32(r["modes"], 1)
        fb.const_i32(r["cat"], 3)
        fb.const_i32(r["mt"], int(hal.MemoryType.DEVICE_LOCAL))
        fb.const_i32(r["usage"], int(hal.BufferUsage.DEFAULT))
        fb.const_ref_zero(r["null"])
        fb.call_import(imp["devices.get"], [r["i0"]], [r["dev"]])
        fb.call_import(imp["device.allocator"], [r["dev"]], [r["alloc"]])
        fb.call_import(imp["allocator.allocate"], [r["alloc"], r["neg"], r["mt"], r["usage"], r["size"]], [r["buf"]])
        fb.call_import(imp["command_buffer.create"], [r["dev"], r["modes"], r["cat"], r["neg"], r["i0"]], [r["cb"]])
        return r

    def epilogue(fb, r, offset):
        fb.call_import(imp["command_buffer.finalize"], [r["cb"]], [])
        fb.call_import(imp["fence.create"], [r["dev"], r["I0"]], [r["fence"]])
        fb.call_import(imp["device.queue.execute"], [r["dev"], r["neg"], r["null"], r["fence"], r["cb"], r["I0"]], [])
        minus1 = fb.reg("i32")
        fb.const_i32(minus1, -1)
        fb.call_variadic(imp["fence.await"], [1], [minus1, r["I0"], r["fence"]], [r["st"]])
        off, four = fb.reg("i64"), fb.reg("i32")
        fb.const_i64(off, offset)
        fb.const_i32(four, 4)
        fb.call_import(imp["buffer.load"], [r["buf"], off, four], [r["out"]])
        fb.return_([r["out"]])

    fb = mb.function("fill", "0I_i", export=True)
    (pattern,) = fb.args
    r = prologue(fb)
    four = fb.reg("i32")
    fb.const_i32(four, 4)
    fb.call_import(imp["command_buffer.fill_buffer"], [r["cb"], r["buf"], r["I0"], r["size"], r["i0"], pattern, four, r["I0"]], [])
    epilogue(fb, r, 4)

    fb = mb.function("scale", "0ii_i", export=True)
    scale, export = fb.args
    r = prologue(fb)
    exe, fr, dr, one, bias = fb.reg("ref"), fb.reg("ref"), fb.reg("ref"), fb.reg("i32"), fb.reg("i32")
    fb.const_ref_rodata(fr, fmt)
    fb.const_ref_rodata(dr, data)
    fb.call_import(imp["executable.create"], [r["dev"], r["neg"], fr, dr, r["null"]], [exe])
    fb.const_i32(one, 1)
    fb.const_i32(bias, 3)
    four = fb.reg("i32")
    fb.const_i32(four, 4)
    fb.call_import(imp["command_buffer.fill_buffer"], [r["cb"], r["buf"], r["I0"], r["size"], r["i0"], r["I0"], four, r["I0"]], [])
    fb.call_import(imp["command_buffer.execution_barrier"], [r["cb"], r["i0"], r["i0"], r["I0"]], [])
    ordinal = fb.reg("i64")
    fb.ext_i32_i64_s(ordinal, export)
    fb.call_variadic(imp["command_buffer.dispatch"], [2, 1], [
        r["cb"], exe, ordinal, one, one, one, r["I0"], scale, bias,
        r["i0"], r["i0"], r["buf"], r["I0"], r["size"]], [])
    epilogue(fb, r, 8)
    return mb


@pytest.fixture
def program(device):
    ctx = Context(Instance(), [HalModule([device]), Module.from_bytes(_program().build())])
    return ctx


def test_bytecode_fills_through_hal(program):
    assert program.lookup_function("app.fill")(0x01020304) == 0x01020304


def test_bytecode_dispatches_through_hal(program):
    assert program.lookup_function("app.scale")(5, 2) == 3  # scale_i32: 0 * 5 + 3


def _failure_text(device):
    # The context stays out of the exception's reference cycles: rt.runtime.vm's VMBuffer
    # crashes the garbage collector when a context is collected as part of a cycle.
    ctx = Context(Instance(), [HalModule([device]), Module.from_bytes(_program().build())])
    try:
        ctx.lookup_function("app.scale")(5, 4)  # ordinal 4: fail_bound
    except DeviceError as error:
        return str(error)
    return "no error"


def test_bytecode_sees_dispatch_failure_with_cause(device):
    text = _failure_text(device)
    assert "dispatch of export 'fail_bound'" in text and "stored out of bounds" in text and "queue 0" in text


def _collective_program():
    """@gather(op, count) -> i32: fills bytes [0, 16) of a buffer with 7s, records collective
    ``op`` over ``count`` elements from [0, 16) into [16, 48) on the default channel (one
    rank) and returns the i32 at byte 16."""
    mb = ModuleBuilder("app")
    imp = {name: mb.import_function("hal." + name, HalModule.exports[name][1].text) for name in (
        "devices.get", "device.allocator", "allocator.allocate", "command_buffer.create",
        "command_buffer.fill_buffer", "command_buffer.execution_barrier", "command_buffer.collective",
        "command_buffer.finalize", "channel.create", "fence.create", "device.queue.execute",
        "fence.await", "buffer.load")}
    fb = mb.function("gather", "0iI_i", export=True)
    op, count = fb.args
    r = {k: fb.reg(t) for k, t in (("dev", "ref"), ("alloc", "ref"), ("buf", "ref"), ("cb", "ref"),
                                   ("ch", "ref"), ("fence", "ref"), ("null", "ref"), ("i0", "i32"),
                                   ("I0", "i64"), ("neg", "i64"), ("negi", "i32"), ("i4", "i32"),
                                   ("I16", "i64"), ("I32", "i64"), ("I48", "i64"), ("I7", "i64"),
                                   ("mt", "i32"), ("usage", "i32"), ("one", "i32"), ("cat", "i32"),
                                   ("st", "i32"), ("out", "i32"))}
    for name, value in (("i0", 0), ("negi", -1), ("i4", 4), ("one", 1), ("cat", 3),
                        ("mt", int(hal.MemoryType.DEVICE_LOCAL)), ("usage", int(hal.BufferUsage.DEFAULT))):
        fb.const_i32(r[name], value)
    for name, value in (("I0", 0), ("neg", -1), ("I16", 16), ("I32", 32), ("I48", 48), ("I7", 7)):
        fb.const_i64(r[name], value)
    fb.const_ref_zero(r["null"])
    fb.call_import(imp["devices.get"], [r["i0"]], [r["dev"]])
    fb.call_import(imp["device.allocator"], [r["dev"]], [r["alloc"]])
    fb.call_import(imp["allocator.allocate"], [r["alloc"], r["neg"], r["mt"], r["usage"], r["I48"]], [r["buf"]])
    fb.call_import(imp["channel.create"], [r["dev"], r["neg"], r["I0"], r["null"], r["null"], r["negi"], r["negi"]], [r["ch"]])
    fb.call_import(imp["command_buffer.create"], [r["dev"], r["one"], r["cat"], r["neg"], r["i0"]], [r["cb"]])
    fb.call_import(imp["command_buffer.fill_buffer"], [r["cb"], r["buf"], r["I0"], r["I16"], r["i0"], r["I7"], r["i4"], r["I0"]], [])
    fb.call_import(imp["command_buffer.execution_barrier"], [r["cb"], r["i0"], r["i0"], r["I0"]], [])
    fb.call_import(imp["command_buffer.collective"], [
        r["cb"], r["ch"], op, r["i0"], r["i0"], r["i0"], r["buf"], r["buf"], r["I0"], r["I16"], r["I16"],
        r["I32"], count], [])
    fb.call_import(imp["command_buffer.finalize"], [r["cb"]], [])
    fb.call_import(imp["fence.create"], [r["dev"], r["I0"]], [r["fence"]])
    fb.call_import(imp["device.queue.execute"], [r["dev"], r["neg"], r["null"], r["fence"], r["cb"], r["I0"]], [])
    fb.call_variadic(imp["fence.await"], [1], [r["negi"], r["I0"], r["fence"]], [r["st"]])
    fb.call_import(imp["buffer.load"], [r["buf"], r["I16"], r["i4"]], [r["out"]])
    fb.return_([r["out"]])
    return mb


class _PythonCollectiveHal(HalModule):
    """The hal module with ``command_buffer.collective`` through its Python method."""

    def native_functions(self):
        return {k: v for k, v in super().native_functions().items() if k != "command_buffer.collective"}


@pytest.mark.parametrize("module", [HalModule, _PythonCollectiveHal], ids=["c-entry", "python"])
def test_bytecode_records_collectives_through_hal(device, module):
    """The C entry of ``command_buffer.collective`` and the Python method record the same
    command and refuse the same bad ops and ranges, naming them."""
    assert ("command_buffer.collective" in module([device]).native_functions()) == (module is HalModule)
    ctx = Context(Instance(), [module([device]), Module.from_bytes(_collective_program().build())])
    gather = ctx.lookup_function("app.gather")
    all_gather_i32 = int(hal.collective.CollectiveOp(hal.collective.CollectiveKind.ALL_GATHER,
                                                     hal.collective.CollectiveReduction.NONE,
                                                     hal.collective.CollectiveElementType.SINT_32).pack())
    assert gather(all_gather_i32, 4) == 7 and gather(all_gather_i32, 4) == 7  # the second: a cached op
    with pytest.raises(InvalidArgumentError, match=r"op 0x00630000 has element type 99, expected one of"):
        gather(0x00630000, 4)
    with pytest.raises(InvalidArgumentError, match=r"send buffer range of 16 bytes is too small for "
                                                   r"all_gather : si32 of 5 elements over 1 ranks \(20 bytes\)"):
        gather(all_gather_i32, 5)
    with pytest.raises(InvalidArgumentError, match=r"all_reduce needs a reduction"):
        gather(all_gather_i32 | 1, 4)
