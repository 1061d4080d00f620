"""hal.buffer.load/store (from stream.resource.load/store) compiled to the hal module's 1/2/4-byte
buffer.load/store and run on a real device buffer: every element type, bytes checked with numpy."""
import numpy as np
import pytest

from rt.compiler.dialects import make_context
from rt.compiler.frontend import parse_module
from rt.compiler.passes import parse_pass_spec
from rt.compiler.passes.vm.conversion import vmfb_bytes
from rt.runtime import hal
from rt.runtime.errors import CompileError, InvalidArgumentError
from rt.runtime.hal.module import HalModule
from rt.runtime.vm import Context, Instance, Module

PROGRAM = """
util.func public @store(%b: !hal.buffer, %i8: i8, %i16: i16, %i32: i32, %i64: i64, %ix: index,
                        %f16: f16, %f32: f32, %f64: f64, %i1: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c24 = arith.constant 24 : index
  %c28 = arith.constant 28 : index
  %c32 = arith.constant 32 : index
  %c40 = arith.constant 40 : index
  hal.buffer.store<%b : !hal.buffer>[%c0] value(%i8 : i8)
  hal.buffer.store<%b : !hal.buffer>[%c2] value(%i16 : i16)
  hal.buffer.store<%b : !hal.buffer>[%c4] value(%i32 : i32)
  hal.buffer.store<%b : !hal.buffer>[%c8] value(%i64 : i64)
  hal.buffer.store<%b : !hal.buffer>[%c16] value(%ix : index)
  hal.buffer.store<%b : !hal.buffer>[%c24] value(%f16 : f16)
  hal.buffer.store<%b : !hal.buffer>[%c28] value(%f32 : f32)
  hal.buffer.store<%b : !hal.buffer>[%c32] value(%f64 : f64)
  hal.buffer.store<%b : !hal.buffer>[%c40] value(%i1 : i1)
  util.return
}
util.func public @load(%b: !hal.buffer) -> (i32, i32, i32, i64, index, f32, f32, f64, i32) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c24 = arith.constant 24 : index
  %c28 = arith.constant 28 : index
  %c32 = arith.constant 32 : index
  %c40 = arith.constant 40 : index
  %0 = hal.buffer.load<%b : !hal.buffer>[%c0] : i8
  %1 = hal.buffer.load<%b : !hal.buffer>[%c2] : i16
  %2 = hal.buffer.load<%b : !hal.buffer>[%c4] : i32
  %3 = hal.buffer.load<%b : !hal.buffer>[%c8] : i64
  %4 = hal.buffer.load<%b : !hal.buffer>[%c16] : index
  %5 = hal.buffer.load<%b : !hal.buffer>[%c24] : f16
  %6 = hal.buffer.load<%b : !hal.buffer>[%c28] : f32
  %7 = hal.buffer.load<%b : !hal.buffer>[%c32] : f64
  %8 = hal.buffer.load<%b : !hal.buffer>[%c40] : i1
  %s8 = arith.extsi %0 : i8 to i32
  %s16 = arith.extsi %1 : i16 to i32
  %w16 = arith.extf %5 : f16 to f32
  %b1 = arith.extui %8 : i1 to i32
  util.return %s8, %s16, %2, %3, %4, %w16, %6, %7, %b1 : i32, i32, i32, i64, index, f32, f32, f64, i32
}
"""

LAYOUT = [("i8", 0, np.int8), ("i16", 2, np.int16), ("i32", 4, np.int32), ("i64", 8, np.int64),
          ("index", 16, np.int64), ("f16", 24, np.float16), ("f32", 28, np.float32),
          ("f64", 32, np.float64), ("i1", 40, np.uint8)]


@pytest.fixture(scope="module")
def setup():
    mctx = make_context()
    module = parse_module(PROGRAM, "access.mlir", mctx)
    parse_pass_spec("iree-vm-conversion").run(module, mctx)
    device = hal.create_device("local-sync://vmvx")
    ctx = Context(Instance(), [HalModule([device]), Module.from_bytes(vmfb_bytes(module))])
    yield device, ctx
    device.release()


def _buffer(device, nbytes=48):
    return device.allocator.allocate_from(np.zeros(nbytes, np.uint8))


def _bytes(buffer):
    return np.frombuffer(bytes(buffer.host_bytes()), np.uint8)


def test_stores_write_little_endian_bytes_of_every_type(setup):
    device, ctx = setup
    buf = _buffer(device)
    values = [-100, -30000, -123456789, -(1 << 40) - 5, (1 << 33) + 7, -1.5, 3.25, -2.0 ** -30, 1]
    ctx.lookup_function("module.store")(buf, *values)
    data = _bytes(buf)
    for (_, offset, dtype), value in zip(LAYOUT, values):
        got = data[offset:offset + np.dtype(dtype).itemsize].view(dtype)[0]
        assert got == dtype(value), (dtype, got, value)


def test_loads_read_back_every_type(setup):
    device, ctx = setup
    buf = _buffer(device)
    values = [-100, -30000, -123456789, -(1 << 40) - 5, (1 << 33) + 7, -1.5, 3.25, -2.0 ** -30, 1]
    ctx.lookup_function("module.store")(buf, *values)
    assert ctx.lookup_function("module.load")(buf) == tuple(values)


def test_f16_subnormal_and_high_word_survive_the_round_trip(setup):
    device, ctx = setup
    buf = _buffer(device)
    tiny = float(np.float16(6e-8))
    values = [1, 2, 3, np.iinfo(np.int64).min, np.iinfo(np.int64).max, tiny, 0.0, 1e300, 0]
    ctx.lookup_function("module.store")(buf, *values)
    out = ctx.lookup_function("module.load")(buf)
    assert out[3:6] == (np.iinfo(np.int64).min, np.iinfo(np.int64).max, tiny) and out[7] == 1e300


def test_out_of_bounds_load_is_an_error(setup):
    device, ctx = setup
    with pytest.raises(InvalidArgumentError, match="buffer.load"):
        ctx.lookup_function("module.load")(_buffer(device, 40))


def test_unsupported_element_type_is_a_located_error():
    text = ("util.func public @f(%b: !hal.buffer) -> i32 {\n  %c0 = arith.constant 0 : index\n"
            "  %x = hal.buffer.load<%b : !hal.buffer>[%c0] : i128\n  %y = arith.trunci %x : i128 to i32\n"
            "  util.return %y : i32\n}\n")
    mctx = make_context()
    module = parse_module(text, "bad.mlir", mctx)
    with pytest.raises(CompileError, match=r"bad\.mlir:3:\d+: error: .*i128"):
        parse_pass_spec("iree-vm-conversion").run(module, mctx)
