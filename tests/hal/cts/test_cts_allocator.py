"""CTS: allocator statistics, capacity, alignment, zero-copy views and release."""
import numpy as np
import pytest

from rt.runtime import hal
from rt.runtime.errors import InvalidArgumentError, ResourceExhaustedError

from conftest import open_device


def test_allocation_statistics(device):
    a = device.allocator.allocate_buffer(1000)
    b = device.allocator.allocate_buffer(24)
    stats = device.allocator.query_statistics()
    assert (stats.bytes_allocated, stats.bytes_live, stats.bytes_peak) == (1024, 1024, 1024)
    assert (stats.allocation_count, stats.free_count) == (2, 0)
    a.release()
    stats = device.allocator.query_statistics()
    assert (stats.bytes_live, stats.bytes_freed, stats.bytes_peak, stats.free_count) == (24, 1000, 1024, 1)
    assert b.byte_length == 24 and b.device is device


def test_buffers_are_64_byte_aligned_and_zero_copy(device):
    buf = device.allocator.allocate_buffer(256)
    assert buf.ptr % 64 == 0
    view = buf.to_numpy(np.float32, (8, 8))
    view[:] = np.arange(64, dtype=np.float32).reshape(8, 8)
    assert buf.to_numpy(np.float32, (64,))[9] == 9.0
    assert buf.load(4, 4) == np.float32(1.0).view(np.uint32)
    assert view.ctypes.data == buf.ptr


def test_allocate_from_numpy_and_buffer_view(device):
    x = np.arange(12, dtype=np.int32).reshape(3, 4)
    view = hal.BufferView.from_numpy(device, x)
    assert view.element_type == hal.ElementType.INT_32 == 0x10000020
    assert view.shape == (3, 4) and view.rank == 2 and view.dim(1) == 4
    np.testing.assert_array_equal(view.to_numpy(), x)


def test_subspan_shares_memory(device):
    buf = device.allocator.allocate_from(bytes(128))
    sub = buf.subspan(64, 32)
    sub.to_numpy(np.uint8)[:] = 7
    assert buf.read(60, 40) == b"\x00" * 4 + b"\x07" * 32 + b"\x00" * 4
    assert sub.ptr == buf.ptr + 64
    with pytest.raises(InvalidArgumentError, match=r"subspan .* exceeds"):
        buf.subspan(100, 64)


def test_capacity_limit(device_uri):
    dev = open_device(device_uri, heap_capacity="1K")
    try:
        held = dev.allocator.allocate_buffer(1000)
        with pytest.raises(ResourceExhaustedError, match=r"heap capacity of 1024 bytes"):
            dev.allocator.allocate_buffer(100)
        assert dev.allocator.query_statistics().capacity == 1024
        del held  # the last reference frees the allocation, as IREE's ref-counted buffers do
        assert dev.allocator.allocate_buffer(1000).byte_length == 1000
    finally:
        dev.release()


def test_dropped_buffer_is_freed_and_its_memory_reused(device):
    stats0 = device.allocator.query_statistics()
    buf = device.allocator.allocate_buffer(1 << 20)
    address = buf.ptr
    del buf
    stats1 = device.allocator.query_statistics()
    assert stats1.bytes_live == stats0.bytes_live
    assert stats1.free_count == stats0.free_count + 1
    assert device.allocator.allocate_buffer(1 << 20).ptr == address


def test_memory_seen_by_a_numpy_view_is_never_recycled(device):
    buf = device.allocator.allocate_buffer(4096)
    view = buf.to_numpy(np.float32)
    view[:] = 7.0
    del buf
    other = device.allocator.allocate_buffer(4096)
    other.to_numpy(np.float32)[:] = -1.0
    assert (view == 7.0).all()


def test_use_after_release(device):
    buf = device.allocator.allocate_buffer(64)
    view = buf.to_numpy(np.uint8)
    buf.release()
    assert buf.state is hal.AllocationState.RELEASED
    with pytest.raises(InvalidArgumentError, match=r"is released"):
        buf.ptr
    with pytest.raises(InvalidArgumentError, match=r"is released"):
        buf.to_numpy()
    with pytest.raises(InvalidArgumentError, match=r"already released"):
        buf.release()
    view[:] = 1  # a stale numpy view keeps its own memory alive: no crash
    assert int(view.sum()) == 64


@pytest.mark.parametrize("size", [-1, 2 ** 63, 1.5, "8"])
def test_bad_allocation_sizes(device, size):
    with pytest.raises(InvalidArgumentError, match=r"allocation size"):
        device.allocator.allocate_buffer(size)


def test_memory_is_reused_once_the_last_numpy_view_is_gone(device):
    buf = device.allocator.allocate_buffer(8192)
    address = buf.ptr
    view = buf.to_numpy(np.uint8)
    del buf
    assert device.allocator.allocate_buffer(8192).ptr != address  # the view still sees it
    del view
    assert device.allocator.allocate_buffer(8192).ptr == address


@pytest.mark.filterwarnings("error::pytest.PytestUnraisableExceptionWarning")  # errors in __del__
def test_cache_evicts_oldest_blocks_and_survives_trim(device):
    device.allocator.cache_bytes = 3 * 4096
    device.allocator.trim()
    buffers = [device.allocator.allocate_buffer(4096) for _ in range(4)]
    addresses = [b.ptr for b in buffers]
    del buffers  # four blocks freed into a three-block cache: the oldest is evicted
    held = [device.allocator.allocate_buffer(4096) for _ in range(3)]
    reused = {b.ptr for b in held}
    assert reused <= set(addresses) and len(reused) == 3
    assert device.allocator.trim() == 0  # everything cached was handed out again
