"""HAL tracing hooks: queue, command and wait zones reported to a TraceSink, on both drivers."""
import threading

import numpy as np
import pytest

from rt.runtime import hal
from rt.runtime.errors import DeadlineExceededError, DeviceError, InvalidArgumentError, RtError
from rt.runtime.hal.module import HalModule
from rt.runtime.hal.trace import HOST_LANE, Lane, TraceSink

from fake_executables import FAKE_LOADER, make_fake_executable

URIS = ("local-sync://vmvx", "local-task://vmvx")


class RecordingSink(TraceSink):
    """Keeps every call; ``zones(lane)`` rebuilds the completed zones with their depth."""

    def __init__(self):
        self.lock = threading.Lock()
        self.calls = []

    def zone_begin(self, lane, name, timestamp_ns, args=None):
        with self.lock:
            self.calls.append(("B", lane, name, timestamp_ns, args))

    def zone_end(self, lane, timestamp_ns, args=None):
        with self.lock:
            self.calls.append(("E", lane, None, timestamp_ns, args))

    def instant(self, lane, name, timestamp_ns, args=None):
        with self.lock:
            self.calls.append(("I", lane, name, timestamp_ns, args))

    def zones(self, lane):
        """[{name, start, end, args, depth}] in begin order; asserts begin/end balance."""
        stack, done = [], []
        for kind, at, name, ts, args in self.calls:
            if at != lane:
                continue
            if kind == "B":
                zone = {"name": name, "start": ts, "end": None, "args": dict(args or {}),
                        "depth": len(stack)}
                stack.append(zone)
                done.append(zone)
            elif kind == "E":
                zone = stack.pop()
                zone["end"] = ts
                zone["args"].update(args or {})
        assert stack == [], f"unclosed zones on {lane}: {stack}"
        return done


@pytest.fixture(params=URIS)
def traced(request):
    device = hal.create_device(request.param, loaders=[FAKE_LOADER])
    sink = RecordingSink()
    assert device.set_trace_sink(sink) is None
    yield device, sink
    device.release()


def test_queue_execute_has_a_zone_per_command_and_debug_group(traced):
    device, sink = traced
    exe = make_fake_executable(device)
    a = device.allocator.allocate_from(np.arange(256, dtype=np.float32))
    out = device.allocator.allocate_buffer(1024)
    scratch = device.allocator.allocate_buffer(64)
    cb = device.create_command_buffer()
    cb.begin()
    cb.dispatch(exe, 1, (4, 1, 1), [64], [a, a, out])
    cb.begin_debug_group("outer")
    cb.fill_buffer(scratch, 0, 64, 0x0102, 2)
    cb.begin_debug_group("inner")
    cb.copy_buffer(out, 0, scratch, 0, 32)
    cb.end_debug_group()
    cb.update_buffer(b"abcd", 0, scratch, 60, 4)
    cb.end_debug_group()
    cb.execution_barrier()
    cb.end()
    signal = device.create_fence()
    device.queue_execute([cb], signal_fence=signal).wait(timeout=30)
    np.testing.assert_array_equal(out.to_numpy(np.float32), 2 * np.arange(256, dtype=np.float32))
    assert scratch.read(32, 32) == b"\x02\x01" * 14 + b"abcd"

    zones = sink.zones(device.queue_lane)
    assert [(z["name"], z["depth"]) for z in zones] == [
        ("queue_execute: add_f32", 0), ("add_f32", 1), ("outer", 1), ("fill_buffer", 2),
        ("inner", 2), ("copy_buffer", 3), ("update_buffer", 2), ("execution_barrier", 1)]
    execute, dispatch, outer, fill, inner, copy, update, barrier = zones
    sem = signal.timepoints[0][0]
    assert execute["args"] == {
        "wait": [], "signal": [f"{sem.label} >= 1"], "command_buffers": 1,
        "commands": ["dispatch add_f32[4,1,1]", "fill_buffer 64 B", "copy_buffer 32 B",
                     "update_buffer 4 B", "execution_barrier"]}
    assert dispatch["args"] == {"command": 0, "executable": exe.name, "ordinal": 1,
                                "workgroups": [4, 1, 1], "bindings": [1024, 1024, 1024]}
    assert fill["args"] == {"command": 1, "bytes": 64, "pattern": "0x0102"}
    assert copy["args"] == {"command": 2, "bytes": 32}
    assert update["args"] == {"command": 3, "bytes": 4}
    for parent, child in ((execute, dispatch), (execute, outer), (outer, fill), (outer, inner),
                          (inner, copy), (outer, update), (execute, barrier)):
        assert parent["start"] <= child["start"] <= child["end"] <= parent["end"]
    starts = [z["start"] for z in (dispatch, fill, copy, update, barrier)]
    assert starts == sorted(starts)
    assert sink.zones(device.waits_lane) == []


def test_every_queue_operation_is_a_zone_in_submission_order(traced):
    device, sink = traced
    buf = device.queue_alloca(256)
    src = device.allocator.allocate_from(bytes(range(64)))
    device.queue_fill(buf, 0, 256, 7, 1)
    device.queue_update(b"hello", 0, buf, 8, 5)
    device.queue_copy(src, 0, buf, 64, 64)
    device.queue_barrier()
    device.queue_dealloca(buf).wait(timeout=30)
    zones = sink.zones(device.queue_lane)
    assert [z["name"] for z in zones] == ["queue_alloca", "queue_fill", "queue_update",
                                          "queue_copy", "queue_barrier", "queue_dealloca"]
    assert [z["args"].get("bytes") for z in zones] == [256, 256, 5, 64, None, 256]
    assert zones[3]["args"]["source"] == src.describe()
    assert all(len(z["args"]["signal"]) == 1 and z["args"]["wait"] == [] for z in zones)
    assert all(a["end"] <= b["start"] for a, b in zip(zones, zones[1:]))
    instants = [(name, ts) for kind, lane, name, ts, _ in sink.calls
                if kind == "I" and lane == device.queue_lane]
    assert [name for name, _ in instants] == [f"submit {z['name']}" for z in zones]
    assert all(ts <= z["start"] for (_, ts), z in zip(instants, zones))


def test_a_blocked_operation_waits_on_the_waits_lane(traced):
    device, sink = traced
    buf = device.allocator.allocate_buffer(16)
    gate = device.create_semaphore()
    done = device.queue_fill(buf, 0, 16, 9, 1, wait_fence=hal.Fence([(gate, 2)]))
    with pytest.raises(DeadlineExceededError):
        done.wait(timeout=0)  # the queue (or this donating waiter) has now seen it blocked
    gate.signal(2)
    done.wait(timeout=30)
    assert buf.read() == b"\x09" * 16
    (wait,) = sink.zones(device.waits_lane)
    assert wait["name"] == f"wait {gate.label} >= 2"
    assert wait["args"] == {"timepoints": [f"{gate.label} >= 2"], "for": "queue_fill"}
    (fill,) = sink.zones(device.queue_lane)
    assert fill["args"]["wait"] == [f"{gate.label} >= 2"]
    assert wait["start"] <= wait["end"] <= fill["start"]


def test_a_failing_dispatch_closes_its_zones_with_the_error(traced):
    device, sink = traced
    exe = make_fake_executable(device)
    cb = device.create_command_buffer()
    cb.begin()
    cb.begin_debug_group("group")
    cb.dispatch(exe, 3, (2, 1, 1))
    cb.end_debug_group()
    cb.end()
    with pytest.raises(DeviceError, match="stored out of bounds at byte 4096"):
        device.queue_execute([cb]).wait(timeout=30)
    execute, group, dispatch = sink.zones(device.queue_lane)
    assert (execute["name"], group["name"], dispatch["name"]) == ("queue_execute: fail", "group",
                                                                  "fail")
    assert "stored out of bounds at byte 4096" in dispatch["args"]["error"]
    assert "command 0 (dispatch of export 'fail'" in execute["args"]["error"]
    assert "error" not in group["args"]


def test_sinks_are_installed_and_removed_per_device():
    device = hal.create_device("local-task://vmvx")
    try:
        first, second = RecordingSink(), RecordingSink()
        assert device.set_trace_sink(first) is None
        device.queue_barrier().wait(timeout=30)
        assert device.set_trace_sink(second) is first
        assert device.set_trace_sink(None) is second
        device.queue_barrier().wait(timeout=30)
        assert [z["name"] for z in first.zones(device.queue_lane)] == ["queue_barrier"]
        assert second.calls == []
        with pytest.raises(InvalidArgumentError, match=r"set_trace_sink: expected an "
                                                       r"rt.runtime.hal.trace.TraceSink or None, "
                                                       r"got list"):
            device.set_trace_sink([])
        assert device.trace_sink is None
    finally:
        device.release()


def test_lanes_name_the_device():
    device = hal.create_device("local-sync://vmvx")
    assert device.queue_lane == Lane(device.label, "queue")
    assert device.waits_lane == Lane(device.label, "waits")
    device.release()


def test_debug_groups_must_balance(traced):
    device, _ = traced
    cb = device.create_command_buffer()
    cb.begin()
    with pytest.raises(InvalidArgumentError, match=r"end_debug_group .*no debug group is open"):
        cb.end_debug_group()
    cb.begin_debug_group("layer 1")
    with pytest.raises(InvalidArgumentError, match=r"1 debug group\(s\) still open \('layer 1'\)"):
        cb.end()
    with pytest.raises(InvalidArgumentError, match=r"label must be a str, got 3"):
        cb.begin_debug_group(3)
    cb.end_debug_group()
    cb.end()
    assert cb.debug_markers == {0: ["layer 1", None]}


def test_hal_module_reports_fence_await_on_the_host_lane():
    device = hal.create_device("local-task://vmvx")
    sink = RecordingSink()
    try:
        module = HalModule([device], trace_sink=sink)
        gate = device.create_semaphore()
        fence = hal.Fence([(gate, 1)])
        assert module.fence_await(0, 0, [fence]) == int(hal.StatusCode.DEADLINE_EXCEEDED)
        gate.signal(1)
        assert module.fence_await(-1, 0, [fence]) == 0
        timed_out, reached = sink.zones(HOST_LANE)
        assert (timed_out["name"], reached["name"]) == ("fence.await", "fence.await")
        assert timed_out["args"] == {"timepoints": [f"{gate.label} >= 1"],
                                     "status": "DEADLINE_EXCEEDED"}
        assert reached["args"] == {"timepoints": [], "status": "OK"}
        with pytest.raises(InvalidArgumentError, match=r"HalModule trace_sink: expected"):
            HalModule([device], trace_sink=object())
    finally:
        device.release()


def _mmt4d_devices():
    try:
        from rt.devices.llvm_cpu import testing
        obj = testing.mmt4d_executable(tile=(16, 16, 1))
        devices = [hal.create_device("local-task://llvm-cpu?threads=1") for _ in range(2)]
    except (ImportError, RtError) as error:  # llvmlite or the loader missing on this host
        pytest.skip(f"llvm-cpu unavailable: {error}")
    return devices, (obj.format, obj.data, obj.metadata)


def test_two_llvm_cpu_devices_run_their_matmuls_at_the_same_time():
    devices, variant = _mmt4d_devices()
    m1 = n1 = 32
    k1 = 512
    sink = RecordingSink()
    rng = np.random.default_rng(3)
    lhs = rng.standard_normal((m1, k1, 16, 1), np.float32)
    rhs = rng.standard_normal((n1, k1, 16, 1), np.float32)
    try:
        outs, cbs = [], []
        for device in devices:
            device.set_trace_sink(sink)
            exe = device.prepare_executable([variant])
            bl, br = device.allocator.allocate_from(lhs), device.allocator.allocate_from(rhs)
            out = device.allocator.allocate_buffer(m1 * n1 * 256 * 4)
            cb = device.create_command_buffer()
            cb.begin()
            for _ in range(8):
                cb.dispatch(exe, 0, (1, 1, 1), [m1, n1, k1, 0], [bl, br, out])
            cb.end()
            outs.append(out)
            cbs.append(cb)
        fences = [device.queue_execute([cb]) for device, cb in zip(devices, cbs)]
        hal.Fence.join(fences).wait(timeout=120)
        expected = np.einsum("akmc,bknc->abmn", lhs, rhs)
        for out in outs:
            np.testing.assert_allclose(out.to_numpy(np.float32, expected.shape), expected,
                                       rtol=1e-4, atol=1e-3)
        first, second = (sink.zones(d.queue_lane) for d in devices)
        name = "queue_execute: mmt4d_f32, mmt4d_f32, mmt4d_f32, ..."
        assert [z["name"] for z in first] == [name] + ["mmt4d_f32"] * 8
        assert [z["name"] for z in second] == [z["name"] for z in first]
        a, b = first[0], second[0]
        assert a["start"] < b["end"] and b["start"] < a["end"], "the executions did not overlap"
    finally:
        for device in devices:
            device.release()


class _BrokenSink(RecordingSink):
    """Raises when asked to open a zone on ``lane``."""

    def __init__(self, lane):
        super().__init__()
        self.broken = lane

    def zone_begin(self, lane, name, timestamp_ns, args=None):
        if lane == self.broken:
            raise RuntimeError(f"sink cannot open {name}")
        super().zone_begin(lane, name, timestamp_ns, args)


@pytest.mark.parametrize("uri", URIS)
def test_a_failing_sink_fails_the_work_instead_of_hanging(uri):
    device = hal.create_device(uri)
    try:
        buf = device.allocator.allocate_from(bytes(4))
        device.set_trace_sink(_BrokenSink(device.queue_lane))
        with pytest.raises(DeviceError, match=r"tracing queue_fill failed: sink cannot open "
                                              r"queue_fill"):
            device.queue_fill(buf, 0, 4, 1, 1).wait(timeout=30)
        device.set_trace_sink(_BrokenSink(device.waits_lane))
        gate = device.create_semaphore()
        blocked = device.queue_fill(buf, 0, 4, 2, 1, wait_fence=hal.Fence([(gate, 1)]))
        later = device.queue_fill(buf, 0, 4, 3, 1)
        with pytest.raises(DeadlineExceededError):
            blocked.wait(timeout=0)  # the queue (or this waiter) has seen it blocked
        gate.signal(1)
        with pytest.raises(DeviceError, match=r"queue_fill failed: tracing its wait failed: "
                                              r"sink cannot open wait"):
            blocked.wait(timeout=30)
        later.wait(timeout=30)
        assert buf.read() == b"\x03" * 4
    finally:
        device.release()
