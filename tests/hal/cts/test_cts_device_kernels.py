"""CTS on the devices' own code: empty, elementwise add, mmt4d and failing kernels.

Kernels come from the device packages' test helpers (rt.devices.llvm_cpu.testing,
rt.devices.vmvx.testing); results are checked against numpy.
"""
import math

import numpy as np
import pytest

from rt.runtime.errors import DeviceError

TILE = (8, 8, 1)


class _Kernels:
    """Per device kind: how to load and launch each test kernel."""

    def __init__(self, device):
        self.device = device
        self.kind = device.device_name
        if self.kind == "llvm-cpu":
            from rt.devices.llvm_cpu import testing
            obj = testing.conformance_executable()
            self.exe = device.prepare_executable([(obj.format, obj.data, obj.metadata)])
            obj = testing.mmt4d_executable(tile=TILE)
            self.mmt4d_exe = device.prepare_executable([(obj.format, obj.data, obj.metadata)])
        else:
            from rt.devices.vmvx import testing
            self.testing = testing

    def empty(self):
        if self.kind == "llvm-cpu":
            return self.exe, self.exe.lookup_function("empty"), []
        return self.device.prepare_executable([self.testing.empty()]), 0, []

    def add(self, n):
        """(executable, ordinal, workgroup_count, constants) for out = lhs + rhs over n f32."""
        if self.kind == "llvm-cpu":
            return self.exe, self.exe.lookup_function("add_f32"), (3, 1, 1), [n]
        exe = self.device.prepare_executable([self.testing.elementwise_add_f32(tile=64)])
        return exe, 0, (math.ceil(n / 64), 1, 1), [n]

    def mmt4d(self, m1, n1, k1):
        if self.kind == "llvm-cpu":
            return self.mmt4d_exe, 0, (2, 2, 1), [m1, n1, k1, 0]
        exe = self.device.prepare_executable([self.testing.mmt4d_f32(*TILE)])
        return exe, 0, (n1, m1, 1), [m1, n1, k1]

    def failing(self):
        """(executable, ordinal, workgroup_count, constants, expected text in the cause)."""
        if self.kind == "llvm-cpu":
            return (self.exe, self.exe.lookup_function("fail_at"), (2, 1, 1), [1, 0, 0, 5],
                    "workgroup (1, 0, 0) of (2, 1, 1) returned 5")
        return (self.device.prepare_executable([self.testing.failing("injected vmvx trap")]), 0,
                (2, 1, 1), [], "injected vmvx trap")


@pytest.fixture
def kernels(device):
    return _Kernels(device)


def _run(device, record):
    cb = device.create_command_buffer()
    cb.begin()
    record(cb)
    cb.end()
    device.queue_execute([cb]).wait(timeout=60)


@pytest.mark.parametrize("workgroups", [1, 64])
def test_empty_kernel(device, kernels, workgroups):
    exe, ordinal, constants = kernels.empty()
    buf = device.allocator.allocate_from(np.zeros(4, np.int32))

    def record(cb):
        cb.dispatch(exe, ordinal, (workgroups, 1, 1), constants, [])
        cb.fill_buffer(buf, 0, 16, 7, 4)

    _run(device, record)
    assert list(buf.to_numpy(np.int32)) == [7] * 4


def test_elementwise_add_matches_numpy(device, kernels):
    n = 1000
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal(n, np.float32), rng.standard_normal(n, np.float32)
    ba, bb = device.allocator.allocate_from(a), device.allocator.allocate_from(b)
    bc = device.allocator.allocate_from(np.full(n, np.nan, np.float32))
    exe, ordinal, counts, constants = kernels.add(n)
    _run(device, lambda cb: cb.dispatch(exe, ordinal, counts, constants, [ba, bb, bc]))
    np.testing.assert_array_equal(bc.to_numpy(np.float32), a + b)


def test_mmt4d_tile_matches_numpy(device, kernels):
    m1, n1, k1 = 3, 2, 5
    m0, n0, k0 = TILE
    rng = np.random.default_rng(2)
    lhs = rng.standard_normal((m1, k1, m0, k0), np.float32)
    rhs = rng.standard_normal((n1, k1, n0, k0), np.float32)
    expected = np.einsum("akmc,bknc->abmn", lhs, rhs)
    bl, br = device.allocator.allocate_from(lhs), device.allocator.allocate_from(rhs)
    bo = device.allocator.allocate_from(np.zeros((m1, n1, m0, n0), np.float32))
    exe, ordinal, counts, constants = kernels.mmt4d(m1, n1, k1)
    _run(device, lambda cb: cb.dispatch(exe, ordinal, counts, constants, [bl, br, bo]))
    np.testing.assert_allclose(bo.to_numpy(np.float32, expected.shape), expected, rtol=1e-5, atol=1e-5)


def test_failing_kernel_names_device_export_and_cause(device, kernels):
    exe, ordinal, counts, constants, cause = kernels.failing()
    cb = device.create_command_buffer()
    cb.begin()
    cb.dispatch(exe, ordinal, counts, constants, [])
    cb.end()
    done = device.queue_execute([cb])
    dependent = device.queue_barrier(wait_fence=done)
    with pytest.raises(DeviceError) as info:
        dependent.wait(timeout=60)
    text = str(info.value)
    assert device.label in text and f"export '{exe.exports[ordinal].name}'" in text and cause in text
    assert "not run: its wait fence failed" in text
