"""The local-task queue: in-order, one submission at a time, with waiters donating their thread."""
import threading
import time

import pytest

from rt.runtime import hal
from rt.runtime.errors import DeviceError
from rt.runtime.hal.drivers.host_semaphore import HostSemaphore
from rt.runtime.hal.drivers.local_queue import Submission, ThreadQueue
from rt.runtime.vm._interp import end_held_wakes, held_wakes, hold_wakes


class _Probe:
    """Actions that record their order, their thread and how many ran at once."""

    def __init__(self):
        self.lock = threading.Lock()
        self.order, self.threads = [], []
        self.running = self.most = 0

    def action(self, index):
        def run(sink):
            with self.lock:
                self.running += 1
                self.most = max(self.most, self.running)
            self.order.append(index)
            self.threads.append(threading.get_ident())
            with self.lock:
                self.running -= 1
        return run


def _submit(queue, action, wait=()):
    signal = hal.Fence([(HostSemaphore(0, "s"), 1)])
    queue.submit(Submission(hal.Fence(wait), signal, action, "op"))
    return signal


@pytest.fixture
def queue():
    q = ThreadQueue("test queue")
    yield q
    q.close("test over")


def test_submit_then_wait_runs_in_order_one_at_a_time(queue):
    probe = _Probe()
    for i in range(300):
        _submit(queue, probe.action(i)).wait(timeout=30)
    assert probe.order == list(range(300)) and probe.most == 1
    # The waiter donated itself most of the time; the queue thread may have taken some.
    assert probe.threads.count(threading.get_ident()) > 0


def test_concurrent_donors_keep_order_and_exclusivity(queue):
    probe = _Probe()
    gate = HostSemaphore(0, "gate")
    fences = [_submit(queue, probe.action(i), [(gate, 1)] if i == 0 else ()) for i in range(200)]
    errors = []

    def donor(fence):
        try:
            fence.wait(timeout=30)
        except Exception as error:
            errors.append(error)

    donors = [threading.Thread(target=donor, args=(fences[k],)) for k in (50, 120, 199)]
    for thread in donors:
        thread.start()
    gate.signal(1)
    for thread in donors:
        thread.join(timeout=60)
    hal.Fence.join(fences).wait(timeout=30)
    assert errors == [] and probe.order == list(range(200)) and probe.most == 1


def test_semaphore_wait_donates_too(queue):
    probe = _Probe()
    signal = _submit(queue, probe.action(0))
    (semaphore, value), = signal.timepoints
    assert semaphore.producer is queue
    semaphore.wait(value, timeout=30)
    assert probe.order == [0]


def test_failure_and_close_still_reach_donating_waiters():
    q = ThreadQueue("closing queue")

    def boom(sink):
        raise DeviceError("kernel trapped")

    failed = _submit(q, boom)
    with pytest.raises(DeviceError, match=r"closing queue: op failed: kernel trapped"):
        failed.wait(timeout=30)
    gate = HostSemaphore(0, "gate")
    pending = _submit(q, lambda sink: None, [(gate, 1)])
    q.close("device released")
    with pytest.raises(DeviceError, match=r"op not run: device released"):
        pending.wait(timeout=30)
    with pytest.raises(DeviceError, match=r"cannot submit op: device released"):
        _submit(q, lambda sink: None)


def test_local_sync_threads_submit_to_queues_of_their_own():
    """local-sync runs work on its caller: another thread's submission does not wait behind
    this thread's blocked one, while one thread's submissions stay in order."""
    device = hal.create_device("local-sync://vmvx")
    try:
        buf = device.allocator.allocate_from(bytes(8))
        gate = device.create_semaphore()
        blocked = device.queue_fill(buf, 0, 4, 1, 1, wait_fence=hal.Fence([(gate, 1)]))
        behind = device.queue_fill(buf, 0, 4, 2, 1)  # same thread: in order, so still pending
        done = []
        other = threading.Thread(target=lambda: done.append(device.queue_fill(buf, 4, 4, 3, 1)))
        other.start()
        other.join(timeout=30)
        done[0].wait(timeout=10)  # ran on the other thread at once
        assert buf.read() == b"\x00" * 4 + b"\x03" * 4
        assert behind.query() == hal.StatusCode.DEFERRED
        gate.signal(1)
        hal.Fence.join([blocked, behind]).wait(timeout=10)
        assert buf.read() == b"\x02" * 4 + b"\x03" * 4
        assert device.queue.lane == device.queue_lane
    finally:
        device.release()


def _poll(fence, seconds=30):
    """Wait for ``fence`` without a HAL wait (which would wake held queues): True if reached."""
    deadline = time.monotonic() + seconds
    while not fence.is_reached:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.001)
    return True


def test_a_thread_holding_wakes_runs_its_own_work(queue):
    """A synchronous caller (an SPMD rank) holds back the queue thread's wake-up and runs the
    work itself when it waits: every submission on the calling thread, in order."""
    probe = _Probe()
    before = hold_wakes()
    try:
        fences = [_submit(queue, probe.action(i)) for i in range(50)]
        fences[-1].wait(timeout=30)
    finally:
        end_held_wakes(before)
    assert probe.order == list(range(50)) and set(probe.threads) == {threading.get_ident()}
    assert held_wakes() is before is None


def test_held_work_the_waiter_cannot_run_goes_to_the_queue_thread(queue):
    """Work waiting on a fence another thread signals: the holder blocks, and before it does
    the queue thread is woken, which runs the work once the fence is signalled."""
    probe = _Probe()
    gate = HostSemaphore(0, "gate")
    before = hold_wakes()
    try:
        fence = _submit(queue, probe.action(0), [(gate, 1)])
        threading.Timer(0.05, gate.signal, (1,)).start()
        fence.wait(timeout=30)
    finally:
        end_held_wakes(before)
    assert probe.order == [0] and probe.threads != [threading.get_ident()]


def test_held_wakes_are_released_by_the_next_queue_and_by_the_end():
    """A holder that submits to a second queue starts the first (a pipeline's earlier stage
    runs meanwhile); what is still held when the call ends starts then."""
    first, second = ThreadQueue("first"), ThreadQueue("second")
    try:
        probe = _Probe()
        before = hold_wakes()
        try:
            one = _submit(first, probe.action(1))
            two = _submit(second, probe.action(2))
            assert _poll(one), "the first queue's work was never started"
        finally:
            end_held_wakes(before)
        assert _poll(two), "work held when the call ended was never started"
        assert threading.get_ident() not in probe.threads
    finally:
        first.close("test over")
        second.close("test over")


def test_a_python_import_holds_nothing():
    """A Python import may wait by other means than a HAL wait: while it runs, the thread
    holds no wake-up (rt.runtime.vm._interp)."""
    from rt.runtime.vm import Context, Instance, Module, ModuleBuilder, NativeModule, native_function

    seen = []

    class Probe(NativeModule):
        name = "probe"

        @native_function("look", "0v_v")
        def look(self):
            seen.append(held_wakes())

    mb = ModuleBuilder("app")
    look = mb.import_function("probe.look", "0v_v")
    fb = mb.function("f", "0v_v", export=True)
    fb.call_import(look, [], [])
    fb.return_([])
    ctx = Context(Instance(), [Probe(), Module.from_bytes(mb.build())])
    before = hold_wakes()
    try:
        ctx.lookup_function("app.f")()
        assert held_wakes() == []
    finally:
        end_held_wakes(before)
    assert seen == [None]
