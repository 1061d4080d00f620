"""CTS: every accepted form of dispatch arguments records the same typed command, and every
argument that is rejected gets an error naming the command (nothing recorded)."""
import numpy as np
import pytest

from rt.runtime import hal
from rt.runtime.errors import InvalidArgumentError

ADD, SCALE = 1, 2  # export ordinals of the fake executable


@pytest.fixture
def buffers(device):
    a = device.allocator.allocate_from(np.arange(64, dtype=np.float32))
    b = device.allocator.allocate_from(np.ones(64, np.float32))
    c = device.allocator.allocate_buffer(256)
    return a, b, c


def _recording(device, executable, buffers):
    """A recording command buffer that already holds one plain (fast path) dispatch."""
    a, b, c = buffers
    cb = device.create_command_buffer()
    cb.begin()
    cb.dispatch(executable, ADD, (1, 1, 1), [64], [(a, 0, 256), (b, 0, 256), (c, 0, 256)])
    return cb


def test_fast_and_checked_forms_record_the_same_command(device, executable, buffers):
    a, b, c = buffers
    cb = _recording(device, executable, buffers)
    cb.dispatch(executable, ADD, [np.int32(1), 1, 1], (np.uint32(64),),
                [a, hal.BufferView(b, (64,), hal.ElementType.FLOAT_32), [c, 0, None]])
    cb.end()
    assert cb.commands[0] == cb.commands[1]
    first = cb.commands[0]
    assert (first.executable, first.ordinal) == (executable, ADD)
    assert (first.workgroup_count, first.constants) == ((1, 1, 1), (64,))
    assert first.bindings == tuple(hal.BufferRef(x, 0, 0, 256) for x in (a, b, c))
    assert cb.buffers == [a, b, c]


def test_fast_path_result_runs(device, executable, buffers):
    a, b, c = buffers
    cb = _recording(device, executable, buffers)
    cb.end()
    device.queue_execute([cb]).wait(timeout=10)
    np.testing.assert_array_equal(c.to_numpy(np.float32), np.arange(64, dtype=np.float32) + 1)


def test_negative_push_constant_is_stored_as_uint32(device, executable, buffers):
    a, _, _ = buffers
    cb = _recording(device, executable, buffers)
    cb.dispatch(executable, SCALE, (1, 1, 1), (3, -1), [(a, 0, 256)])
    assert cb.commands[-1].constants == (3, (1 << 32) - 1)


@pytest.mark.parametrize("case, message", [
    ("ordinal", "export ordinal 9 out of range"),
    ("count", "workgroup count (1, -1, 1) has a negative entry"),
    ("big_count", "does not fit in 32 bits"),
    ("float_count", "workgroup count must be an integer"),
    ("constants", "1 push constants given, the export takes 2"),
    ("big_constant", "push constant 0 4294967296 does not fit in 32 bits"),
    ("bindings", "0 bindings given, the export takes 1"),
    ("range", "binding 0 [0, 260) exceeds buffer"),
    ("negative_offset", "binding 0 offset -4 is out of range"),
    ("released", "binding 0 buffer"),
    ("usage", "lacks"),
    ("bool_offset", "binding 0 offset must be an integer byte count, got True"),
])
def test_rejected_dispatch_records_nothing(device, executable, buffers, case, message):
    a, _, _ = buffers
    cb = _recording(device, executable, buffers)
    recorded, used = list(cb.commands), list(cb.buffers)
    ordinal, counts, constants, binding = SCALE, (1, 1, 1), (2, 0), (a, 0, 256)
    bindings = None
    if case == "ordinal":
        ordinal = 9
    elif case == "count":
        counts = (1, -1, 1)
    elif case == "big_count":
        counts = (1 << 32, 1, 1)
    elif case == "float_count":
        counts = (1.0, 1, 1)
    elif case == "constants":
        constants = (2,)
    elif case == "big_constant":
        constants = (1 << 32, 0)
    elif case == "bindings":
        bindings = ()
    elif case == "range":
        binding = (a, 0, 260)
    elif case == "negative_offset":
        binding = (a, -4, 4)
    elif case == "released":
        spare = device.allocator.allocate_buffer(64)
        spare.release()
        binding = (spare, 0, 64)
    elif case == "usage":
        binding = (device.allocator.allocate_buffer(64, usage=hal.BufferUsage.TRANSFER), 0, 64)
    elif case == "bool_offset":
        binding = (a, True, 4)
    with pytest.raises(InvalidArgumentError, match=message.replace("(", r"\(").replace(")", r"\)")
                       .replace("[", r"\[")) as info:
        cb.dispatch(executable, ordinal, counts, constants,
                    [binding] if bindings is None else bindings)
    assert "command_buffer.dispatch (command 1)" in str(info.value)
    assert cb.commands == recorded and cb.buffers == used


def test_misaligned_binding_is_rejected(device, executable, buffers):
    a, _, _ = buffers
    alignment = device.limits.min_buffer_offset_alignment
    if alignment <= 4:
        pytest.skip(f"{device.label} accepts {alignment}-byte binding offsets")
    cb = _recording(device, executable, buffers)
    with pytest.raises(InvalidArgumentError, match=f"not a multiple of {alignment}"):
        cb.dispatch(executable, SCALE, (1, 1, 1), (2, 0), [(a, 4, 4)])
    assert cb.command_count == 1


def test_dispatch_after_end_is_rejected(device, executable, buffers):
    a, _, _ = buffers
    cb = _recording(device, executable, buffers)
    cb.end()
    with pytest.raises(InvalidArgumentError, match="is finalized, not recording"):
        cb.dispatch(executable, SCALE, (1, 1, 1), (2, 0), [(a, 0, 256)])
    assert cb.command_count == 1
