"""The local-task thread topology (IREE's --task_topology_* flags as URI parameters): threads
default to the CPUs the process may use, ``max_threads`` caps them, ``cpu_ids`` pins the
llvm-cpu workers in order (and sets the thread count); nothing is pinned by default."""
import os
import threading

import numpy as np
import pytest

from llvm_cpu_helpers import bindings, build, emit_record, load
from rt.devices.llvm_cpu import _launcher
from rt.runtime import hal
from rt.runtime.errors import InvalidArgumentError

ALLOWED = sorted(os.sched_getaffinity(0))


@pytest.fixture
def unpin():
    yield
    _launcher.pin_workers([])


def _threads(uri):
    device = hal.create_device(uri)
    try:
        return device.threads
    finally:
        device.release()


def test_threads_default_to_the_cpus_the_process_may_use(unpin):
    assert _threads("local-task://llvm-cpu") == len(ALLOWED)
    assert _threads("local-task://vmvx?max_threads=1") == 1
    assert _threads("local-task://llvm-cpu?threads=3&max_threads=1") == 3
    assert _threads(f"local-task://llvm-cpu?cpu_ids={ALLOWED[0]}") == 1


def test_nothing_is_pinned_by_default():
    out = np.zeros(64, np.int32)
    load(build(emit_record, name="record")).dispatch(0, (64, 1, 1), [], *bindings(out), threads=3)
    assert all(cpus == set(ALLOWED) for cpus in _launcher.worker_cpus())


def test_workers_started_from_a_bound_thread_take_the_process_cpus():
    """A dispatch from a thread bound to one CPU (a rank's queue thread under rt.load(...,
    bind="core")) starts workers on every CPU the process may use, not on that one."""
    out = np.zeros(64, np.int32)
    library = load(build(emit_record, name="record"))
    threads = _launcher.worker_count() + 3  # more than exist: new workers start

    def run():
        os.sched_setaffinity(0, {ALLOWED[-1]})
        library.dispatch(0, (64, 1, 1), [], *bindings(out), threads=threads)
    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    np.testing.assert_array_equal(out & 0xFFFFF, 1)
    assert _launcher.worker_count() >= threads - 1
    assert all(cpus == set(ALLOWED) for cpus in _launcher.worker_cpus())


def test_cpu_ids_pin_the_workers_in_order(unpin):
    ids = ALLOWED[:2]
    device = hal.create_device(f"local-task://llvm-cpu?cpu_ids={','.join(map(str, ids))}")
    device.release()
    out = np.zeros(64, np.int32)
    load(build(emit_record, name="record")).dispatch(0, (64, 1, 1), [], *bindings(out), threads=3)
    np.testing.assert_array_equal(out & 0xFFFFF, 1)
    pinned = _launcher.worker_cpus()
    assert pinned[:2] == [{ids[1 % len(ids)]}, {ids[2 % len(ids)]}]
    _launcher.pin_workers([])
    assert all(cpus == set(ALLOWED) for cpus in _launcher.worker_cpus())


@pytest.mark.parametrize("query, message", [
    ("cpu_ids=0,0", "must list distinct CPUs"),
    (f"cpu_ids={max(ALLOWED) + 1}", "must list distinct CPUs this process may use"),
    ("cpu_ids=a", "cpu_ids='a'"),
    ("max_threads=0", r"max_threads='0' must be an integer in \[1, 256\]"),
])
def test_bad_topology_rejected(query, message):
    with pytest.raises(InvalidArgumentError, match=message):
        hal.create_device(f"local-task://llvm-cpu?{query}")
