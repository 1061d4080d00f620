"""CTS: dispatch of a hand-built executable, record-time validation, threads per driver."""
import re

import numpy as np
import pytest

from rt.runtime import hal
from rt.runtime.errors import InvalidArgumentError, NotFoundError

from fake_executables import make_fake_executable

ADD, SCALE = 1, 2  # export ordinals of the fake executable


def _record(device, fn):
    cb = device.create_command_buffer()
    cb.begin()
    fn(cb)
    cb.end()
    return cb


def test_dispatch_add_matches_numpy(device, executable):
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(256, np.float32), rng.standard_normal(256, np.float32)
    ba, bb = device.allocator.allocate_from(a), device.allocator.allocate_from(b)
    bc = device.allocator.allocate_buffer(1024)
    cb = _record(device, lambda cb: cb.dispatch(executable, ADD, (4, 1, 1), [64], [ba, bb, (bc, 0, None)]))
    device.queue_execute([cb]).wait(timeout=10)
    np.testing.assert_array_equal(bc.to_numpy(np.float32), a + b)


def test_dispatches_run_in_order(device, executable):
    buf = device.allocator.allocate_from(np.array([1, 2, 3], np.int32))

    def record(cb):
        cb.dispatch(executable, SCALE, (1, 1, 1), [2, 0], [buf])
        cb.execution_barrier()
        cb.dispatch(executable, SCALE, (1, 1, 1), [1, 10], [buf])
        cb.dispatch(executable, SCALE, (1, 1, 1), [3, -1], [buf])

    device.queue_execute([_record(device, record)]).wait(timeout=10)
    assert list(buf.to_numpy(np.int32)) == [(2 * v + 10) * 3 - 1 for v in (1, 2, 3)]


def test_zero_workgroups_is_a_no_op(device, executable):
    buf = device.allocator.allocate_from(np.array([7], np.int32))
    cb = _record(device, lambda cb: cb.dispatch(executable, SCALE, (0, 1, 1), [0, 0], [buf]))
    device.queue_execute([cb]).wait(timeout=10)
    assert buf.to_numpy(np.int32)[0] == 7


def test_threads_reach_the_library(device_uri, device_factory):
    dev = device_factory(threads=2) if device_uri.startswith("local-task") else device_factory()
    executable = make_fake_executable(dev)
    cb = _record(dev, lambda cb: cb.dispatch(executable, 0, (1, 1, 1), [], []))
    dev.queue_execute([cb]).wait(timeout=10)
    assert executable.library.threads_seen == [2 if device_uri.startswith("local-task") else 1]


@pytest.mark.parametrize("make_args,match", [
    (lambda b: (ADD, (1, 1, 1), [64], [b, b]), r"2 bindings given, the export takes 3"),
    (lambda b: (ADD, (1, 1, 1), [], [b, b, b]), r"0 push constants given, the export takes 1"),
    (lambda b: (ADD, (1, 1, 1), [64], [b, b, (b, 64, 256)]), r"binding 2 \[64, 320\) exceeds"),
    (lambda b: (ADD, (1, 1, 1), [64], [b, b, (b, 16, 64)]), r"binding 2 starts at byte 16 .* multiple of 64"),
    (lambda b: (ADD, (1, 1, 1), [64], [b, b, (b, -64, 64)]), r"out of range"),
    (lambda b: (ADD, (1, -1, 1), [64], [b, b, b]), r"negative"),
    (lambda b: (ADD, (1, 1), [64], [b, b, b]), r"must be \(x, y, z\)"),
    (lambda b: (ADD, (1, 1, 1), [2 ** 40], [b, b, b]), r"push constant 0 .* does not fit in 32 bits"),
    (lambda b: (9, (1, 1, 1), [], []), r"export ordinal 9 out of range .* 5 exports"),
    (lambda b: (ADD, (1, 1, 1), [64], [b, b, "x"]), r"binding 2 must be a Buffer"),
])
def test_dispatch_validation(device, executable, make_args, match):
    buf = device.allocator.allocate_buffer(256)
    cb = device.create_command_buffer()
    cb.begin()
    cb.execution_barrier()
    with pytest.raises(InvalidArgumentError, match=r"dispatch \(command 1\)") as info:
        cb.dispatch(executable, *make_args(buf))
    assert re.search(match, str(info.value)), str(info.value)


def test_binding_from_another_device_is_rejected(device, executable, device_factory):
    other = device_factory()
    foreign = other.allocator.allocate_buffer(256)
    local = device.allocator.allocate_buffer(256)
    cb = device.create_command_buffer()
    cb.begin()
    with pytest.raises(InvalidArgumentError, match=r"binding 0 .* lives on .*transfer it with queue_copy"):
        cb.dispatch(executable, ADD, (1, 1, 1), [64], [foreign, local, local])


def test_executable_from_another_device_is_rejected(device, device_factory):
    other_exe = make_fake_executable(device_factory())
    cb = device.create_command_buffer()
    cb.begin()
    with pytest.raises(InvalidArgumentError, match=r"was created on .*create it on"):
        cb.dispatch(other_exe, 0, (1, 1, 1), [], [])


def test_dispatch_requires_dispatch_category(device, executable):
    cb = device.create_command_buffer(categories=hal.CommandCategory.TRANSFER)
    cb.begin()
    with pytest.raises(InvalidArgumentError, match=r"DISPATCH"):
        cb.dispatch(executable, 0, (1, 1, 1), [], [])


def test_lookup_function(executable):
    assert executable.lookup_function("scale_i32") == SCALE
    with pytest.raises(NotFoundError, match=r"no export 'nope'; exports: empty, add_f32"):
        executable.lookup_function("nope")
