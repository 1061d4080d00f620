"""CTS: fill / copy / update through command buffers and queue operations."""
import numpy as np
import pytest

from rt.runtime import hal
from rt.runtime.errors import InvalidArgumentError


def _execute(device, record):
    cb = device.create_command_buffer()
    cb.begin()
    record(cb)
    cb.end()
    device.queue_execute([cb]).wait(timeout=10)
    return cb


@pytest.mark.parametrize("pattern,length,expected", [
    (0xAB, 1, [0xAB] * 8),
    (0x1234, 2, [0x34, 0x12] * 4),
    (0xDEADBEEF, 4, [0xEF, 0xBE, 0xAD, 0xDE] * 2),
])
def test_fill_patterns(device, pattern, length, expected):
    buf = device.allocator.allocate_from(bytes(16))
    _execute(device, lambda cb: cb.fill_buffer(buf, 4, 8, pattern, length))
    assert list(buf.read()) == [0] * 4 + expected + [0] * 4


def test_fill_large_odd_length(device):
    buf = device.allocator.allocate_from(bytes(4096 + 12))
    _execute(device, lambda cb: cb.fill_buffer(buf, 4, 4100, 0x01020304, 4))
    words = buf.to_numpy(np.uint32)
    assert words[0] == 0 and (words[1:1026] == 0x01020304).all() and words[1026] == 0


def test_copy_and_update(device):
    src = device.allocator.allocate_from(np.arange(16, dtype=np.uint8))
    dst = device.allocator.allocate_from(bytes(16))

    def record(cb):
        cb.copy_buffer(src, 2, dst, 0, 6)
        cb.update_buffer(b"xyzw", 1, dst, 8, 3)
        cb.execution_barrier()
        cb.copy_buffer(dst, 0, dst, 12, 4)

    cb = _execute(device, record)
    assert dst.read() == bytes([2, 3, 4, 5, 6, 7, 0, 0]) + b"yzw\x00" + bytes([2, 3, 4, 5])
    assert cb.command_count == 4


def test_command_buffer_replays(device):
    buf = device.allocator.allocate_from(np.zeros(4, np.int32))
    cb = device.create_command_buffer()
    cb.begin()
    cb.copy_buffer(buf, 0, buf, 4, 4)
    cb.update_buffer(np.array([5], np.int32), 0, buf, 0, 4)
    cb.end()
    for _ in range(3):
        device.queue_execute([cb]).wait(timeout=10)
    assert list(buf.to_numpy(np.int32)) == [5, 5, 0, 0]


def test_queue_fill_copy_update(device):
    a = device.allocator.allocate_from(bytes(32))
    b = device.allocator.allocate_from(bytes(32))
    device.queue_fill(a, 0, 32, 0x0102, 2)
    device.queue_update(b"hello", 0, a, 8, 5)
    device.queue_copy(a, 0, b, 16, 16).wait(timeout=10)
    assert b.read(16, 16) == b"\x02\x01" * 4 + b"hello" + b"\x01\x02\x01"


def test_cross_device_queue_copy(device, device_factory):
    other = device_factory()
    src = other.allocator.allocate_from(np.arange(8, dtype=np.float32))
    dst = device.allocator.allocate_buffer(32)
    device.queue_copy(src, 0, dst, 0, 32).wait(timeout=10)
    np.testing.assert_array_equal(dst.to_numpy(np.float32), np.arange(8, dtype=np.float32))


@pytest.mark.parametrize("args,match", [
    ((0, 16, 7, 3), r"pattern_length must be 1, 2 or 4"),
    ((2, 8, 7, 4), r"multiples of the 4-byte pattern"),
    ((0, 65, 7, 1), r"command 0\).*target \[0, 65\) exceeds"),
    ((-4, 4, 7, 1), r"out of range"),
    ((0, 2 ** 63, 7, 1), r"out of range"),
])
def test_fill_validation(device, args, match):
    buf = device.allocator.allocate_buffer(64)
    cb = device.create_command_buffer()
    cb.begin()
    with pytest.raises(InvalidArgumentError, match=match):
        cb.fill_buffer(buf, *args)


def test_copy_validation_names_command_index(device):
    a = device.allocator.allocate_buffer(64)
    cb = device.create_command_buffer()
    cb.begin()
    cb.fill_buffer(a, 0, 64, 0, 1)
    cb.execution_barrier()
    with pytest.raises(InvalidArgumentError, match=r"copy_buffer \(command 2\).*source \[32, 96\) exceeds"):
        cb.copy_buffer(a, 32, a, 0, 64)
    with pytest.raises(InvalidArgumentError, match=r"overlap"):
        cb.copy_buffer(a, 0, a, 16, 32)
    with pytest.raises(InvalidArgumentError, match=r"source range \[2, 10\) exceeds the 4-byte"):
        cb.update_buffer(b"abcd", 2, a, 0, 8)


def test_recording_state_is_checked(device):
    buf = device.allocator.allocate_buffer(16)
    cb = device.create_command_buffer()
    with pytest.raises(InvalidArgumentError, match=r"not recording"):
        cb.fill_buffer(buf, 0, 16, 0, 1)
    cb.begin()
    cb.fill_buffer(buf, 0, 16, 0, 1)
    with pytest.raises(InvalidArgumentError, match=r"finalize"):
        device.queue_execute([cb])
    cb.end()
    with pytest.raises(InvalidArgumentError, match=r"is finalized, not recording"):
        cb.fill_buffer(buf, 0, 16, 0, 1)


def test_one_shot_command_buffer(device):
    cb = device.create_command_buffer(mode=hal.CommandBufferMode.ONE_SHOT)
    cb.begin()
    cb.end()
    device.queue_execute([cb]).wait(timeout=10)
    with pytest.raises(InvalidArgumentError, match=r"ONE_SHOT"):
        device.queue_execute([cb])


def test_usage_bits_are_checked(device):
    buf = device.allocator.allocate_buffer(16, usage=hal.BufferUsage.TRANSFER_SOURCE)
    cb = device.create_command_buffer()
    cb.begin()
    with pytest.raises(InvalidArgumentError, match=r"lacks .*TRANSFER_TARGET"):
        cb.fill_buffer(buf, 0, 16, 0, 1)
