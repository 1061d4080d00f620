"""One dispatch rule on every path: a command buffer recording a dispatch, and the llvm-cpu
and vmvx libraries' own ``dispatch`` accept and reject the same workgroup counts and push
constants with the same message (rt.runtime.hal._validation.dispatch_fault)."""
import pytest

from rt.runtime import hal
from rt.runtime.errors import InvalidArgumentError

U32_MAX = 2**32 - 1


def _executable(device):
    """(executable, ordinal) of an export taking 4 push constants and no bindings that does
    nothing (llvm-cpu ``fail_at`` with code 0, vmvx ``empty``)."""
    if device.device_name == "llvm-cpu":
        from rt.devices.llvm_cpu import testing
        obj = testing.failing_executable()
        exe = device.prepare_executable([(obj.format, obj.data, obj.metadata)])
        return exe, exe.lookup_function("fail_at")
    from rt.devices.vmvx import testing
    return device.prepare_executable([testing.empty(constant_count=4)]), 0


@pytest.fixture(scope="module", params=["llvm-cpu", "vmvx"])
def target(request):
    device = hal.create_device(f"local-sync://{request.param}")
    yield (device, *_executable(device))
    device.release()


def _record(target, counts, constants):
    device, exe, ordinal = target
    cb = device.create_command_buffer()
    cb.begin()
    cb.dispatch(exe, ordinal, counts, constants, [])
    return cb.commands[0].workgroup_count, cb.commands[0].constants


def _library(target, counts, constants):
    _, exe, ordinal = target
    exe.library.dispatch(ordinal, counts, constants, [], [])
    return tuple(counts), tuple(c & U32_MAX for c in constants)


PATHS = {"command_buffer": _record, "library": _library}


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("counts, constants", [
    ((2**31, 1, 0), [-1, 0, 0, 0]),
    ((U32_MAX, U32_MAX, 0), [U32_MAX, -2**31, 0, 0]),
    ((0, 0, 0), [0, 0, 0, 0]),
])
def test_every_path_accepts_the_same_dispatches(target, path, counts, constants):
    got = PATHS[path](target, counts, constants)
    assert got == (counts, tuple(c & U32_MAX for c in constants))


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("counts, constants, message", [
    ((2**32, 1, 1), [0] * 4, "workgroup count 4294967296 does not fit in 32 bits"),
    ((1, -1, 1), [0] * 4, r"workgroup count \(1, -1, 1\) has a negative entry"),
    ((U32_MAX,) * 3, [0] * 4, r"has 2\*\*63 or more workgroups; split the dispatch"),
    ((2**31, 2**31, 2), [0] * 4, r"has 2\*\*63 or more workgroups"),
    ((1.0, 1, 1), [0] * 4, "workgroup count must be an integer, got 1.0"),
    ((1, 1, 1), [0], "1 push constants given, the export takes 4"),
    ((1, 1, 1), [2**32, 0, 0, 0], "push constant 0 4294967296 does not fit in 32 bits"),
    ((1, 1, 1), [0, -2**31 - 1, 0, 0], "push constant 1 -2147483649 does not fit in 32 bits"),
])
def test_every_path_rejects_the_same_dispatches(target, path, counts, constants, message):
    with pytest.raises(InvalidArgumentError, match=message):
        PATHS[path](target, counts, constants)
