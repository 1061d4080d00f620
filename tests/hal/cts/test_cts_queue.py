"""CTS: queue ordering across devices, failure propagation, timeouts, alloca/dealloca."""
import threading

import numpy as np
import pytest

from rt.runtime import hal
from rt.runtime.errors import (DeadlineExceededError, DeviceError, InvalidArgumentError,
                               ResourceExhaustedError)

FAIL = 3  # ordinal of the fake executable's failing export


def _dispatch_cb(device, executable, ordinal, counts, constants=(), bindings=()):
    cb = device.create_command_buffer()
    cb.begin()
    cb.dispatch(executable, ordinal, counts, constants, bindings)
    cb.end()
    return cb


def test_device_b_waits_on_device_a(device, device_factory):
    a, b = device, device_factory()
    gate = a.create_semaphore()
    src = a.allocator.allocate_from(np.zeros(4, np.int32))
    dst = b.allocator.allocate_from(np.full(4, -1, np.int32))
    a_done = a.queue_update(np.arange(4, dtype=np.int32), 0, src, 0, 16,
                            wait_fence=hal.Fence([(gate, 1)]))
    b_done = b.queue_copy(src, 0, dst, 0, 16, wait_fence=a_done)
    assert a_done.query() == hal.StatusCode.DEFERRED and b_done.query() == hal.StatusCode.DEFERRED
    assert list(dst.to_numpy(np.int32)) == [-1] * 4
    gate.signal(1)
    b_done.wait(timeout=10)
    assert list(dst.to_numpy(np.int32)) == [0, 1, 2, 3]


def test_submissions_run_in_submission_order(device):
    buf = device.allocator.allocate_from(bytes(4))
    gate = device.create_semaphore()
    first = device.queue_fill(buf, 0, 4, 1, 1, wait_fence=hal.Fence([(gate, 1)]))
    second = device.queue_fill(buf, 0, 4, 2, 1)
    assert second.query() == hal.StatusCode.DEFERRED  # blocked behind the first
    gate.signal(1)
    hal.Fence.join([first, second]).wait(timeout=10)
    assert buf.read() == b"\x02" * 4


def test_failing_dispatch_names_device_export_and_cause(device, executable):
    done = device.queue_execute([_dispatch_cb(device, executable, FAIL, (2, 1, 1))])
    with pytest.raises(DeviceError) as info:
        done.wait(timeout=10)
    text = str(info.value)
    assert device.label in text and "queue 0" in text
    assert "command 0 (dispatch of export 'fail'" in text
    assert "workgroup (1, 0, 0) stored out of bounds at byte 4096" in text
    assert done.query() == hal.StatusCode.ABORTED


def test_failure_propagates_to_dependents_on_other_devices(device, executable, device_factory):
    other = device_factory()
    failed = device.queue_execute([_dispatch_cb(device, executable, FAIL, (2, 1, 1))])
    buf = other.allocator.allocate_from(bytes(4))
    dependent = other.queue_fill(buf, 0, 4, 9, 1, wait_fence=failed)
    later = other.queue_barrier(wait_fence=dependent)
    with pytest.raises(DeviceError, match=r"not run: its wait fence failed.*'fail'.*out of bounds"):
        later.wait(timeout=10)
    assert buf.read() == bytes(4)


def test_failure_wakes_a_waiting_thread(device):
    sem = device.create_semaphore()
    caught = []

    def waiter():
        try:
            hal.Fence([(sem, 5), (device.create_semaphore(), 1)]).wait(timeout=30)
        except DeviceError as error:
            caught.append(str(error))

    thread = threading.Thread(target=waiter)
    thread.start()
    sem.fail(DeviceError("injected cause"))
    thread.join(timeout=30)
    assert not thread.is_alive() and caught and "injected cause" in caught[0]


def test_wait_timeout(device):
    gate = device.create_semaphore()
    done = device.queue_barrier(wait_fence=hal.Fence([(gate, 1)]))
    with pytest.raises(DeadlineExceededError, match=r"timed out after 0.05 s; still waiting on: semaphore"):
        done.wait(timeout=0.05)
    gate.signal(1)
    done.wait(timeout=10)
    assert done.query() == hal.StatusCode.OK


def test_alloca_dealloca_ordering(device):
    stats = device.allocator.query_statistics
    gate = device.create_semaphore()
    buf = device.queue_alloca(4096, wait_fence=hal.Fence([(gate, 1)]), signal_fence=hal.Fence([(gate, 2)]))
    assert buf.state is hal.AllocationState.RESERVED and stats().bytes_live == 0
    with pytest.raises(InvalidArgumentError, match=r"queue_alloca has not executed"):
        buf.ptr
    freed = device.queue_dealloca(buf, wait_fence=hal.Fence([(gate, 3)]))
    gate.signal(1)
    gate.wait(2, timeout=10)
    assert buf.state is hal.AllocationState.LIVE and stats().bytes_live == 4096
    buf.to_numpy(np.uint8)[:] = 1
    gate.signal(3)
    freed.wait(timeout=10)
    assert buf.state is hal.AllocationState.RELEASED and stats().bytes_live == 0
    assert stats().bytes_peak == 4096


def test_use_after_dealloca_fails_the_execution(device, executable):
    buf = device.queue_alloca(256)
    cb = _dispatch_cb(device, executable, 2, (1, 1, 1), [1, 1], [buf])
    device.queue_dealloca(buf).wait(timeout=10)
    with pytest.raises(DeviceError, match=r"command 0 \(dispatch of export 'scale_i32'.*is released"):
        device.queue_execute([cb]).wait(timeout=10)
    with pytest.raises(InvalidArgumentError, match=r"is released"):
        cb2 = device.create_command_buffer()
        cb2.begin()
        cb2.fill_buffer(buf, 0, 4, 0, 1)


def test_alloca_over_capacity_fails_its_fence(device_factory):
    dev = device_factory(heap_capacity=1024)
    done = dev.create_fence()
    buf = dev.queue_alloca(2048, signal_fence=done)
    # The waiter sees the root cause's class (issue 13): out of memory stays ResourceExhaustedError.
    with pytest.raises(ResourceExhaustedError, match=r"queue_alloca failed: .*heap capacity of 1024 bytes"):
        done.wait(timeout=10)
    assert done.query() == hal.StatusCode.RESOURCE_EXHAUSTED
    with pytest.raises(InvalidArgumentError, match=r"queue_alloca failed"):
        buf.ptr


def test_released_device_rejects_work_and_fails_pending(device_factory):
    dev = device_factory()
    gate = dev.create_semaphore()
    pending = dev.queue_barrier(wait_fence=hal.Fence([(gate, 1)]))
    dev.release()
    with pytest.raises(DeviceError, match=r"was released"):
        pending.wait(timeout=10)
    with pytest.raises(DeviceError, match=r"was released"):
        dev.queue_barrier()
