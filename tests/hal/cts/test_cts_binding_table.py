"""CTS: indirect bindings — a command buffer recorded once against binding-table slots, replayed
with a different table per submission (IREE's binding tables), and the table checks."""
import numpy as np
import pytest

from rt.runtime import hal
from rt.runtime.errors import DeviceError, InvalidArgumentError

ADD, SCALE = 1, 2  # export ordinals of the fake executable


def _add_cb(device, executable, n=64):
    """c = a + b over ``n`` f32, every operand a binding-table slot (0: a, 1: b, 2: c)."""
    cb = device.create_command_buffer(binding_capacity=3)
    cb.begin()
    cb.dispatch(executable, ADD, (1, 1, 1), [n],
                [hal.BufferRef(slot=k, offset=0, length=4 * n) for k in range(3)])
    cb.end()
    return cb


def test_one_recording_replayed_with_new_buffers_per_submission(device, executable):
    cb = _add_cb(device, executable)
    for k in range(3):
        a = device.allocator.allocate_from(np.full(64, k, np.float32))
        b = device.allocator.allocate_from(np.arange(64, dtype=np.float32))
        c = device.allocator.allocate_buffer(256)
        device.queue_execute([cb], binding_table=[a, (b, 0, 256), hal.BufferView(c, (64,), hal.ElementType.FLOAT_32)]).wait(timeout=10)
        np.testing.assert_array_equal(c.to_numpy(np.float32), np.arange(64, dtype=np.float32) + k)
    assert cb.command_count == 1 and cb.buffers == []  # nothing was re-recorded or retained


def test_slot_records_and_offsets_inside_the_entry(device, executable):
    cb = device.create_command_buffer(binding_capacity=1)
    cb.begin()
    cb.fill_buffer(hal.BufferRef(slot=0, offset=64, length=8), 0, 8, 0x11, 1)
    cb.copy_buffer(hal.BufferRef(slot=0, offset=64, length=8), 0, hal.BufferRef(slot=0, offset=128, length=8), 0, 8)
    cb.end()
    assert cb.commands[0] == hal.commands.FillCommand(hal.BufferRef(None, 0, 64, 8), 0x11, 1)
    buf = device.allocator.allocate_from(bytes(512))
    device.queue_execute([cb], binding_table=[(buf, 256, 256)]).wait(timeout=10)
    raw = buf.read()
    assert raw[320:328] == b"\x11" * 8 and raw[384:392] == b"\x11" * 8
    assert raw.count(0x11) == 16


def test_queue_alloca_buffer_in_the_table_is_resolved_when_it_runs(device, executable):
    cb = _add_cb(device, executable)
    a = device.allocator.allocate_from(np.ones(64, np.float32))
    b = device.allocator.allocate_from(np.ones(64, np.float32))
    c = device.queue_alloca(256)  # reserved now, live once the queue reaches the alloca
    done = device.queue_execute([cb], binding_table=[a, b, c])
    done.wait(timeout=10)
    np.testing.assert_array_equal(c.to_numpy(np.float32), np.full(64, 2, np.float32))


@pytest.mark.parametrize("case, message", [
    ("missing", r"reference 3 binding-table slots; pass binding_table="),
    ("short", r"references 3 binding-table slots but the table has 2 entries"),
    ("small", r"binding-table slot 2 of add_f32: binding 2 holds 128 bytes of .* uses 256 bytes"),
    ("usage", r"binding-table slot 0 .* lacks"),
    ("form", r"binding-table entry 1 must be a Buffer"),
    ("other_device", r"binding-table slot 0 .* lives on .*cannot reach"),
    ("misaligned", r"binding-table slot 1 of add_f32: binding 1 starts at byte 4 of its allocation"),
])
def test_bad_tables_are_rejected_at_submission(device, executable, device_factory, case, message):
    cb = _add_cb(device, executable)
    a = device.allocator.allocate_from(np.zeros(64, np.float32))
    b = device.allocator.allocate_from(np.zeros(65, np.float32))
    c = device.allocator.allocate_buffer(256)
    table = [a, b, c]
    if case == "missing":
        table = None
    elif case == "short":
        table = [a, b]
    elif case == "small":
        table = [a, b, (c, 0, 128)]
    elif case == "usage":
        table = [device.allocator.allocate_buffer(256, usage=hal.BufferUsage.TRANSFER), b, c]
    elif case == "form":
        table = [a, "b", c]
    elif case == "other_device":
        table = [device_factory().allocator.allocate_buffer(256), b, c]
    elif case == "misaligned":
        table = [a, (b, 4, 256), c]
    with pytest.raises(InvalidArgumentError, match=message):
        device.queue_execute([cb], binding_table=table)
    assert cb.submitted == 0


def test_slot_beyond_capacity_is_rejected_while_recording(device, executable):
    cb = device.create_command_buffer(binding_capacity=1)
    cb.begin()
    with pytest.raises(InvalidArgumentError, match=r"binding 0 uses binding-table slot 1 but the command "
                                                   r"buffer was created with binding_capacity 1"):
        cb.dispatch(executable, SCALE, (1, 1, 1), (2, 0), [hal.BufferRef(slot=1, length=4)])
    with pytest.raises(InvalidArgumentError, match=r"target uses binding-table slot 0 but .* binding_capacity 0"):
        direct = device.create_command_buffer()
        direct.begin()
        direct.fill_buffer(hal.BufferRef(slot=0, length=4), 0, 4, 1, 1)
    assert cb.command_count == 0


def test_released_table_buffer_fails_the_submission_naming_the_slot(device, executable):
    cb = _add_cb(device, executable)
    a, b, c = (device.allocator.allocate_buffer(256) for _ in range(3))
    gate = device.create_semaphore()
    done = device.queue_execute([cb], wait_fence=hal.Fence([(gate, 1)]), binding_table=[a, b, c])
    a.release()
    gate.signal(1)
    with pytest.raises(DeviceError, match=r"command 0 \(dispatch of export 'add_f32'.* uses binding-table "
                                          r"slot 0, whose buffer is not usable: .* is released"):
        done.wait(timeout=10)
