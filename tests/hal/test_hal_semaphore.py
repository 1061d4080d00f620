"""Host semaphores and fences (driver independent)."""
import threading

import pytest

from rt.runtime import hal
from rt.runtime.errors import DeadlineExceededError, DeviceError, InvalidArgumentError
from rt.runtime.hal.drivers.host_semaphore import HostSemaphore


def test_signal_query_and_monotonic_payload():
    sem = HostSemaphore(3, "s")
    assert sem.query() == 3
    sem.signal(10)
    sem.signal(5)  # lower values are ignored, as in IREE
    assert sem.query() == 10 and sem.is_reached(10) and not sem.is_reached(11)
    sem.signal(2 ** 64 - 1)
    assert sem.query() == 2 ** 64 - 1


@pytest.mark.parametrize("value", [-1, 2 ** 64, 1.0])
def test_bad_payloads(value):
    with pytest.raises(InvalidArgumentError, match=r"payload"):
        HostSemaphore(0, "s").signal(value)


def test_wait_releases_until_signalled_from_another_thread():
    sem = HostSemaphore(0, "s")
    timer = threading.Timer(0.02, sem.signal, args=(2,))
    timer.start()
    sem.wait(2, timeout=30)
    assert sem.query() == 2
    timer.join()


def test_wait_timeout_message():
    with pytest.raises(DeadlineExceededError, match=r"s: wait for payload 1 timed out after 0.01 s \(payload is 0\)"):
        HostSemaphore(0, "s").wait(1, timeout=0.01)


def test_failure_is_sticky_and_keeps_the_first_cause():
    sem = HostSemaphore(0, "s")
    cause = DeviceError("root cause")
    sem.fail(cause)
    sem.fail("second")
    assert sem.failure is cause
    with pytest.raises(DeviceError, match=r"s failed: root cause") as info:
        sem.wait(1, timeout=1)
    assert info.value.__cause__ is cause
    with pytest.raises(DeviceError, match=r"root cause"):
        sem.signal(1)
    with pytest.raises(DeviceError, match=r"root cause"):
        sem.query()


def test_timepoints_fire_once_reached_or_failed():
    sem = HostSemaphore(0, "s")
    fired = []
    sem.acquire_timepoint(2, lambda: fired.append("two"))
    handle = sem.acquire_timepoint(3, lambda: fired.append("three"))
    sem.acquire_timepoint(0, lambda: fired.append("now"))
    sem.signal(1)
    assert fired == ["now"]
    sem.cancel_timepoint(handle)
    sem.signal(5)
    assert fired == ["now", "two"]
    sem.acquire_timepoint(9, lambda: fired.append("failed"))
    sem.fail("x")
    assert fired[-1] == "failed"


def test_fence_insert_join_query():
    a, b = HostSemaphore(0, "a"), HostSemaphore(0, "b")
    f = hal.Fence([(a, 1), (a, 3)])
    g = hal.Fence.join([f, hal.Fence([(b, 2)]), None])
    assert dict(g.timepoints) == {a: 3, b: 2}
    assert g.query() == hal.StatusCode.DEFERRED
    g.signal()
    assert g.query() == hal.StatusCode.OK and a.query() == 3 and b.query() == 2
    assert hal.Fence().is_reached


def test_fence_wait_wakes_on_any_failure():
    a, b = HostSemaphore(0, "a"), HostSemaphore(0, "b")
    f = hal.Fence([(a, 1), (b, 1)])
    threading.Timer(0.02, b.fail, args=(DeviceError("b broke"),)).start()
    with pytest.raises(DeviceError, match=r"fence wait failed: b failed: b broke"):
        f.wait(timeout=30)
    assert f.query() == hal.StatusCode.ABORTED


def test_fence_fail_and_on_settled():
    a, b = HostSemaphore(0, "a"), HostSemaphore(0, "b")
    f = hal.Fence([(a, 1), (b, 1)])
    settled = []
    f.on_settled(lambda: settled.append(f.query()))
    a.signal(1)
    assert settled == []
    b.signal(1)
    assert settled == [hal.StatusCode.OK]
    g = hal.Fence([(HostSemaphore(0, "c"), 1)])
    g.on_settled(lambda: settled.append(g.query()))
    g.fail(InvalidArgumentError("bad"))
    assert settled[-1] == hal.StatusCode.INVALID_ARGUMENT
