"""Recoverable calls and resource hygiene (issue 13, defects 3, 7, 8): a caught Ctrl-C leaves the
device and module usable on both drivers, waits and vmvx dispatches end at the call's deadline,
dropped modules release their threads, and heap exhaustion inside a call stays a
ResourceExhaustedError."""
import gc
import textwrap
import threading
import time

import numpy as np
import pytest

import rt
from rt.runtime import hal
from rt.runtime.errors import DeadlineExceededError, ResourceExhaustedError
from rt.runtime.vm import set_thread_deadline
from sigint_child import interrupt_when_ready


MATMUL = """
func.func @mm(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %n = tensor.dim %b, %c1 : tensor<?x?xf32>
  %z = tensor.empty(%m, %n) : tensor<?x?xf32>
  %cf = arith.constant 0.0 : f32
  %f = linalg.fill ins(%cf : f32) outs(%z : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%f : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
"""


@pytest.fixture(scope="module")
def vmfb():
    return rt.compile(MATMUL, devices=["vmvx"])


@pytest.mark.parametrize("driver", ["local-sync", "local-task"])
def test_caught_keyboard_interrupt_then_another_call_works(vmfb, driver, tmp_path):
    """Ctrl-C lands while calls run (mostly inside vmvx dispatches); after catching it the same
    module and device give correct results, and a second module on the device works too."""
    path = tmp_path / "mm.vmfb"
    path.write_bytes(vmfb)
    script = textwrap.dedent(f"""
        import numpy as np, rt
        from rt.runtime import hal
        device = hal.create_device("{driver}://vmvx")
        m = rt.load({str(path)!r}, devices=[device])
        a = np.random.default_rng(0).standard_normal((160, 160)).astype(np.float32)
        print("ready", flush=True)
        calls = 0
        try:
            while True:
                m.mm(a, a)
                calls += 1
        except KeyboardInterrupt as e:
            print("interrupted", getattr(e, "vm_stack", None), flush=True)
        small = np.arange(12, dtype=np.float32).reshape(3, 4)
        ok = np.allclose(m.mm(small, small.T), small @ small.T)
        big = np.allclose(m.mm(a, a), a @ a, rtol=1e-4, atol=1e-3)
        other = rt.load({str(path)!r}, devices=[device])
        ok2 = np.allclose(other.mm(small, small.T), small @ small.T)
        print("after", ok, big, ok2, flush=True)
    """)
    code, out, err = interrupt_when_ready(script, delay=1.0)
    assert code == 0, err
    assert "interrupted" in out
    assert "after True True True" in out, out + err


def test_dropped_modules_release_their_device_threads(vmfb):
    before = threading.active_count()
    for _ in range(40):
        m = rt.load(vmfb, devices=["local-task://vmvx"])
        assert m.mm(np.ones((2, 3), np.float32), np.ones((3, 2), np.float32))[0, 0] == 3
        del m
    gc.collect()
    deadline = time.monotonic() + 30
    while threading.active_count() > before + 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert threading.active_count() <= before + 2


@pytest.mark.parametrize("driver", ["local-sync", "local-task"])
def test_heap_exhaustion_inside_a_call_stays_resource_exhausted(vmfb, driver):
    with rt.load(vmfb, devices=[f"{driver}://vmvx?heap_capacity=64K"]) as m:
        a = np.ones((128, 128), np.float32)
        with pytest.raises(ResourceExhaustedError, match="heap capacity"):
            m.mm(a, a)
        small = np.ones((4, 4), np.float32)
        np.testing.assert_array_equal(m.mm(small, small), 4 * small)


@pytest.mark.parametrize("driver", ["local-sync", "local-task"])
def test_a_fence_nobody_signals_ends_at_the_call_deadline(driver):
    """Waits are bounded by the calling thread's deadline (what ``f(..., timeout=)`` sets);
    an explicit timeout still gives the hal module's status, not an exception."""
    device = hal.create_device(f"{driver}://vmvx")
    try:
        fence = device.create_fence()
        assert fence.try_wait(0.01) is False
        previous = set_thread_deadline(time.monotonic() + 0.2)
        try:
            with pytest.raises(DeadlineExceededError, match="the call's deadline passed during a fence wait"):
                fence.wait()
            with pytest.raises(DeadlineExceededError, match="the call's deadline"):
                fence.try_wait(60)
        finally:
            set_thread_deadline(previous)
        fence.signal()
        assert fence.try_wait(0) is True
    finally:
        device.release()


@pytest.mark.parametrize("driver", ["local-sync", "local-task"])
def test_a_dispatch_of_two_billion_workgroups_ends_at_the_call_deadline(driver):
    """vmvx checks the deadline between workgroups, also on local-task's queue thread (the
    submission carries the submitter's deadline); the device runs the next work normally."""
    from rt.devices.vmvx import testing

    device = hal.create_device(f"{driver}://vmvx")
    try:
        exe = device.prepare_executable([testing.empty()])
        cb = device.create_command_buffer()
        cb.begin()
        cb.dispatch(exe, 0, ((1 << 31) - 1, 1, 1), [], [])
        cb.end()
        previous = set_thread_deadline(time.monotonic() + 0.3)
        try:
            with pytest.raises(DeadlineExceededError, match=r"the call's deadline passed at workgroup \(\d+, 0, 0\)"):
                device.queue_execute([cb]).wait()
        finally:
            set_thread_deadline(previous)
        buf = device.allocator.allocate_from(np.zeros(4, np.int32))
        cb = device.create_command_buffer()
        cb.begin()
        cb.fill_buffer(buf, 0, 16, 7, 4)
        cb.end()
        device.queue_execute([cb]).wait(timeout=60)
        np.testing.assert_array_equal(buf.to_numpy(np.int32, (4,)), [7, 7, 7, 7])
    finally:
        device.release()
