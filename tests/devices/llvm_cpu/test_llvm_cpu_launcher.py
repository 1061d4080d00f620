"""The workgroup launcher: argument checks, grids, threads, failures, concurrency, fork."""
import os
import threading

import numpy as np
import pytest

from llvm_cpu_helpers import bindings, build, emit_record, load
from rt.devices.llvm_cpu import _launcher, abi, testing
from rt.runtime.errors import DeviceError, InvalidArgumentError


@pytest.fixture(scope="module")
def record():
    return load(build(emit_record, name="record"))


@pytest.fixture(scope="module")
def conformance():
    return load(testing.conformance_executable())


@pytest.mark.parametrize("grid", [(1, 1, 1), (7, 1, 1), (3, 5, 2), (1, 1, 9), (64, 33, 1)])
@pytest.mark.parametrize("threads", [1, 2, 5])
def test_every_workgroup_runs_exactly_once(record, grid, threads):
    total = grid[0] * grid[1] * grid[2]
    out = np.zeros(total, np.int32)
    record.dispatch(0, grid, [], *bindings(out), threads=threads)
    assert np.all(out & 0xFFFFF == 1)
    workers = out >> 20
    assert workers.min() >= 0 and workers.max() < threads
    if threads == 1:
        assert np.all(workers == 0)


def test_zero_workgroups_is_a_no_op(record):
    out = np.zeros(4, np.int32)
    for grid in ((0, 1, 1), (4, 0, 1), (4, 1, 0)):
        record.dispatch(0, grid, [], *bindings(out), threads=2)
    np.testing.assert_array_equal(out, 0)


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_failure_names_export_workgroup_and_code(conformance, threads):
    with pytest.raises(DeviceError) as info:
        conformance.dispatch(2, (5, 2, 3), [3, 1, 2, 42], [], [], threads=threads)
    text = str(info.value)
    assert "export 'fail_at' (ordinal 2)" in text
    assert "workgroup (3, 1, 2) of (5, 2, 3) returned 42" in text
    assert "kernel-defined failure code" in text


def test_negative_failure_code_reported(conformance):
    with pytest.raises(DeviceError, match=r"workgroup \(0, 0, 0\) of \(1, 1, 1\) returned -3"):
        conformance.dispatch(2, (1, 1, 1), [0, 0, 0, 2**32 - 3], [], [])


def test_dispatch_after_failure_succeeds(conformance):
    with pytest.raises(DeviceError):
        conformance.dispatch(2, (4, 4, 1), [1, 1, 0, 9], [], [], threads=2)
    conformance.dispatch(2, (4, 4, 1), [9, 9, 0, 9], [], [], threads=2)
    a = np.ones(10, np.float32)
    out = np.zeros(10, np.float32)
    conformance.dispatch(1, (3, 1, 1), [10], *bindings(a, a, out), threads=2)
    np.testing.assert_array_equal(out, 2.0)


@pytest.mark.parametrize("args,message", [
    ((4, (1, 1, 1), [], [], []), r"dispatch ordinal: 4 is out of range, expected 0..3"),
    ((-1, (1, 1, 1), [], [], []), r"dispatch ordinal: -1 is out of range"),
    (("0", (1, 1, 1), [], [], []), r"dispatch ordinal: expected an integer, got str"),
    ((0, (1, 1), [], [], []), r"llvm-cpu dispatch of export 'empty': workgroup_count must be \(x, y, z\)"),
    ((0, (1, 1, 2**32), [], [], []), r"workgroup count 4294967296 does not fit in 32 bits"),
    ((0, (1, -1, 1), [], [], []), r"workgroup count \(1, -1, 1\) has a negative entry"),
    ((0, (1.0, 1, 1), [], [], []), r"workgroup count must be an integer, got 1.0"),
    ((0, (2**32 - 1,) * 3, [], [], []), r"has 2\*\*63 or more workgroups"),
    ((0, (1, 1, 1), [1], [], []), r"export 'empty': 1 push constants given, the export takes 0"),
    ((1, (1, 1, 1), [2**32], [1, 1, 1], [0, 0, 0]), r"push constant 0 4294967296 does not fit in 32 bits"),
    ((1, (1, 1, 1), [-2**31 - 1], [1, 1, 1], [0, 0, 0]), r"push constant 0 -2147483649 does not fit in 32 bits"),
    ((1, (1, 1, 1), [1], [1, 1], [4, 4]), r"export 'add_f32': 2 bindings given, the export takes 3"),
    ((1, (1, 1, 1), [1], [8, 0, 8], [4, 4, 4]), r"binding 1: null pointer with length 4"),
    ((1, (1, 1, 1), [1], [8, 8, -8], [4, 4, 4]), r"binding pointer: -8 is out of range"),
    ((1, (1, 1, 1), [1], [8, 8, 8], [4, 2**64, 4]), r"binding length: 18446744073709551616"),
])
def test_bad_arguments_rejected(conformance, args, message):
    with pytest.raises(InvalidArgumentError, match=message):
        conformance.dispatch(*args)


@pytest.mark.parametrize("threads", [0, -2, abi.MAX_WORKERS + 2, "2"])
def test_bad_thread_count_rejected(conformance, threads):
    with pytest.raises(InvalidArgumentError, match="threads"):
        conformance.dispatch(0, (1, 1, 1), [], [], [], threads=threads)


def test_numpy_integers_accepted(conformance):
    a = np.arange(6, dtype=np.float32)
    out = np.zeros(6, np.float32)
    ptrs, lens = bindings(a, a, out)
    conformance.dispatch(np.int64(1), np.array([2, 1, 1]), np.array([6], np.uint32),
                         [np.uint64(p) for p in ptrs], np.array(lens), threads=np.int32(2))
    np.testing.assert_array_equal(out, 2 * a)


def test_concurrent_dispatches_from_python_threads(conformance):
    """Two callers share one pool: the one that finds it busy runs inline; both are right."""
    errors = []

    def worker(seed):
        rng = np.random.default_rng(seed)
        try:
            for _ in range(40):
                a = rng.standard_normal(5000).astype(np.float32)
                out = np.zeros_like(a)
                conformance.dispatch(1, (16, 1, 1), [a.size], *bindings(a, a, out), threads=2)
                if not np.array_equal(out, a + a):
                    errors.append("wrong result")
        except Exception as e:  # reported below with its message
            errors.append(repr(e))

    threads = [threading.Thread(target=worker, args=(s,)) for s in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_pool_survives_fork(record):
    out = np.zeros(64, np.int32)
    record.dispatch(0, (64, 1, 1), [], *bindings(out), threads=2)
    pid = os.fork()
    if pid == 0:
        child = np.zeros(64, np.int32)
        try:
            record.dispatch(0, (64, 1, 1), [], *bindings(child), threads=2)
            os._exit(0 if np.all(child & 0xFFFFF == 1) else 3)
        except BaseException:
            os._exit(4)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    assert np.all(out & 0xFFFFF == 1)


def test_pool_grows_on_demand(record):
    out = np.zeros(32, np.int32)
    record.dispatch(0, (32, 1, 1), [], *bindings(out), threads=4)
    assert _launcher.worker_count() >= 3
    assert np.all(out & 0xFFFFF == 1)


def test_spin_wait_setting_keeps_results_right(record):
    try:
        _launcher.set_spin_wait(0)
        out = np.zeros(100, np.int32)
        for _ in range(5):
            record.dispatch(0, (100, 1, 1), [], *bindings(out), threads=2)
        assert np.all(out & 0xFFFFF == 5)
    finally:
        _launcher.set_spin_wait(50_000)


def test_abi_layouts():
    assert abi.DISPATCH_STATE_V0.size == 56
    assert [abi.DISPATCH_STATE_V0.offset(f.name) for f in abi.DISPATCH_STATE_V0.fields] == [
        0, 12, 24, 28, 32, 40, 48]
    assert abi.WORKGROUP_STATE_V0.size == 20
    assert abi.EXPORT_ATTRS_V0.size == 20
    assert abi.LIBRARY_V0.size == 48 and abi.LIBRARY_V0.offset("name") == 8
    assert abi.status_message(abi.STATUS_OUT_OF_RANGE).startswith("a binding is too small")
    assert abi.status_message(77) == "kernel-defined failure code"
