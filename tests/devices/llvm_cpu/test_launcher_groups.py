"""Dispatches between two barriers run as one pool job: every workgroup once, failures named.

A command buffer's consecutive dispatches with no barrier between them go to llvm-cpu's pool as
one job whose workgroups are those of all the dispatches (IREE's task command buffer issuing a
concurrent region); these tests record such command buffers through the HAL API.
"""
import numpy as np
import pytest

from llvm_cpu_helpers import build, emit_record
from rt.devices.llvm_cpu import _launcher, testing
from rt.runtime import hal
from rt.runtime.errors import DeviceError


def _prepare(device, obj):
    return device.prepare_executable([(obj.format, obj.data, obj.metadata)])


@pytest.fixture(scope="module")
def device():
    return hal.create_device("local-task://llvm-cpu?threads=2")


@pytest.fixture(scope="module")
def record(device):
    return _prepare(device, build(emit_record, name="record"))


def _submit(device, record_commands):
    cb = device.create_command_buffer()
    cb.begin()
    record_commands(cb)
    cb.end()
    device.queue_execute([cb]).wait(timeout=60)


def test_every_workgroup_of_every_dispatch_runs_once(device, record):
    grids = [(3, 5, 2), (7, 1, 1), (0, 4, 1), (1, 1, 9), (64, 33, 1)]
    outs = [np.zeros(max(x * y * z, 1), np.int32) for x, y, z in grids]
    buffers = [device.allocator.allocate_from(o) for o in outs]
    before = _launcher.concurrency_stats()

    def commands(cb):
        for grid, buffer in zip(grids, buffers):
            cb.dispatch(record, 0, grid, [], [buffer])

    _submit(device, commands)
    after = _launcher.concurrency_stats()
    assert (after[0] - before[0], after[1] - before[1]) == (1, len(grids))
    for (x, y, z), buffer, out in zip(grids, buffers, outs):
        got = buffer.to_numpy(np.int32, out.shape)
        if x * y * z == 0:
            np.testing.assert_array_equal(got, 0)
        else:
            assert np.all(got & 0xFFFFF == 1), (x, y, z)
            assert (got >> 20).max() < 2


def test_a_barrier_splits_the_job(device, record):
    outs = [np.zeros(6, np.int32) for _ in range(4)]
    buffers = [device.allocator.allocate_from(o) for o in outs]
    before = _launcher.concurrency_stats()

    def commands(cb):
        cb.dispatch(record, 0, (6, 1, 1), [], [buffers[0]])
        cb.dispatch(record, 0, (6, 1, 1), [], [buffers[1]])
        cb.execution_barrier()
        cb.dispatch(record, 0, (6, 1, 1), [], [buffers[2]])
        cb.execution_barrier()
        cb.dispatch(record, 0, (6, 1, 1), [], [buffers[3]])
        cb.dispatch(record, 0, (6, 1, 1), [], [buffers[0]])

    _submit(device, commands)
    after = _launcher.concurrency_stats()
    assert (after[0] - before[0], after[1] - before[1]) == (2, 4)
    visits = [b.to_numpy(np.int32, (6,)) & 0xFFFFF for b in buffers]
    np.testing.assert_array_equal(visits, [[2] * 6, [1] * 6, [1] * 6, [1] * 6])


def test_failing_dispatch_of_a_job_is_named(device, record):
    exe = _prepare(device, testing.conformance_executable())
    out = device.allocator.allocate_from(np.zeros(4, np.int32))
    fail_at = exe.lookup_function("fail_at")

    def commands(cb):
        cb.dispatch(record, 0, (4, 1, 1), [], [out])
        cb.dispatch(exe, fail_at, (2, 3, 1), [1, 2, 0, 7], [])

    with pytest.raises(DeviceError) as info:
        _submit(device, commands)
    text = str(info.value)
    assert "command 1 (dispatch of export 'fail_at'" in text
    assert "export 'fail_at'" in text and "workgroup (1, 2, 0) of (2, 3, 1) returned 7" in text


def test_one_by_one_when_concurrency_is_off(device, record):
    outs = [np.zeros(6, np.int32) for _ in range(3)]
    buffers = [device.allocator.allocate_from(o) for o in outs]
    before = _launcher.concurrency_stats()
    _launcher.set_concurrent_dispatches(False)
    try:
        _submit(device, lambda cb: [cb.dispatch(record, 0, (6, 1, 1), [], [b]) for b in buffers])
    finally:
        _launcher.set_concurrent_dispatches(True)
    assert _launcher.concurrency_stats() == before
    for b in buffers:
        np.testing.assert_array_equal(b.to_numpy(np.int32, (6,)) & 0xFFFFF, 1)
