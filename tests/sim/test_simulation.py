"""Simulated devices: time accounting, memory capacity, reports and traces."""
import json

import numpy as np
import pytest

import rt
from rt.runtime.errors import DeviceError, InvalidArgumentError, ResourceExhaustedError
from rt.runtime.sim.simulation import Simulation
from rt.runtime.sim.topology import Topology


def _topology(links=(), **devices):
    """Devices ``name={fields}`` (uri local-sync://vmvx unless given) and links."""
    return Topology.from_dict({
        "devices": [{"name": n, "uri": "local-sync://vmvx", **f} for n, f in devices.items()],
        "links": [{"between": list(b), "bandwidth_gbps": w, "latency_us": l} for b, w, l in links]})


@pytest.fixture
def sim_factory():
    made = []

    def make(topology, **kwargs):
        sim = Simulation(topology, **kwargs)
        made.append(sim)
        return sim

    yield make
    for sim in made:
        sim.release()


def test_a_transfer_takes_latency_plus_bytes_over_bandwidth(sim_factory):
    sim = sim_factory(_topology([(("a", "b"), 2.0, 5.0)], a={}, b={}), deterministic=True)
    a, b = sim.devices
    x = a.allocator.allocate_from(np.arange(2500, dtype=np.float32))
    y = b.allocator.allocate_buffer(10000)
    b.queue_copy(x, 0, y, 0, 10000).wait()
    assert sim.host_time() == 5.0 + 10000 / 2000.0
    np.testing.assert_array_equal(y.host_bytes().view(np.float32), np.arange(2500))
    report = sim.report()
    assert report["makespan_us"] == 10.0
    assert report["links"] == {"a-b": {"bytes": 10000, "busy_us": 10.0}}
    assert report["devices"]["b"]["busy_us"] == 10.0 and report["devices"]["a"]["busy_us"] == 0.0


def test_transfers_sharing_a_link_share_it_and_routes_go_through_the_host(sim_factory):
    topo = _topology([(("a", "b"), 1.0, 1.0), (("a", "host"), 1.0, 0.0), (("c", "host"), 0.5, 0.0)],
                     a={}, b={}, c={})
    sim = sim_factory(topo, deterministic=True)
    a, b, c = sim.devices
    x = a.allocator.allocate_buffer(2000)
    y, z = b.allocator.allocate_buffer(2000), b.allocator.allocate_buffer(2000)
    # The same direction a -> b from two queues at once: each gets half the bandwidth.
    f1 = a.queue_copy(x, 0, y, 0, 2000)
    f2 = b.queue_copy(x, 0, z, 0, 2000)
    rt.runtime.hal.Fence.join([f1, f2]).wait()
    assert sim.host_time() == 1.0 + 2 * 2000 / 1000.0
    # a -> c has no direct link: a -> host (1 GB/s) then host -> c (0.5 GB/s), one after the other.
    w = c.allocator.allocate_buffer(1000)
    start = sim.host_time()
    c.queue_copy(x, 0, w, 0, 1000).wait()
    assert sim.host_time() - start == 1000 / 1000.0 + 1000 / 500.0
    assert sim.report()["links"]["a-host"]["bytes"] == 1000


def test_devices_without_a_route_fail_the_transfer_naming_them(sim_factory):
    sim = sim_factory(_topology(a={}, b={}), deterministic=True)
    a, b = sim.devices
    x, y = a.allocator.allocate_buffer(64), b.allocator.allocate_buffer(64)
    fence = b.queue_copy(x, 0, y, 0, 64)
    with pytest.raises(DeviceError, match="no link connects a and b in topology 'topology'"):
        fence.wait()


def test_roofline_time_of_a_compiled_matmul(matmul_vmfb):
    a, b = np.ones((64, 32), np.float32), np.ones((32, 16), np.float32)
    flops = 2 * 64 * 32 * 16
    # Compute bound: 1 GFLOP/s; memory bound: 1 byte/ns on 64*32*4 + 32*16*4 + 64*16*4 bytes.
    for peak, bandwidth, expected in ((1.0, 1000.0, flops / 1e3), (1e6, 1.0, (8192 + 2048 + 4096) / 1e3)):
        topo = {"devices": [{"name": "d", "uri": "local-task://llvm-cpu", "peak_gflops": peak,
                             "memory_gbps": bandwidth}]}
        with rt.load(matmul_vmfb, topology=topo) as m:
            np.testing.assert_array_equal(m.mm(a, b), a @ b)
            report = m.report()
        assert report["devices"]["d"]["busy_us"] == pytest.approx(expected, abs=1e-3)
        assert report["devices"]["d"]["time_model"] == "roofline"


def test_measured_time_model_uses_the_executor(matmul_vmfb):
    topo = {"devices": [{"name": "d", "uri": "local-sync://llvm-cpu"}]}
    with rt.load(matmul_vmfb, topology=topo) as m:
        m.mm(np.ones((64, 32), np.float32), np.ones((32, 16), np.float32))
        report = m.report()
    assert report["devices"]["d"]["time_model"] == "measured" and not report["deterministic"]
    assert report["devices"]["d"]["busy_us"] > 0
    with rt.load(matmul_vmfb, topology=topo, deterministic=True) as m:
        m.mm(np.ones((64, 32), np.float32), np.ones((32, 16), np.float32))
        assert m.report()["devices"]["d"]["time_model"] == "roofline"


def test_two_devices_report_and_host_clock(two_device_vmfb):
    topo = {"devices": [{"name": "a", "uri": "local-sync://llvm-cpu", "memory_gbps": 1},
                        {"name": "b", "uri": "local-task://llvm-cpu", "memory_gbps": 1}],
            "links": [{"between": ["a", "b"], "bandwidth_gbps": 2, "latency_us": 3}]}
    x = np.arange(1024, dtype=np.float32)
    with rt.load(two_device_vmfb, topology=topo, deterministic=True) as m:
        np.testing.assert_array_equal(m.hop(x), -2 * x)
        report = m.report()
        # negate on a (8 KiB at 1 B/ns), a->b (3 + 4096/2000), double on b, b->a.
        kernel, hop = 8.192, 3 + 4096 / 2000
        assert report["makespan_us"] == pytest.approx(2 * kernel + 2 * hop)
        assert report["devices"]["a"]["busy_us"] == pytest.approx(kernel + hop)
        assert report["links"]["a-b"] == {"bytes": 8192, "busy_us": pytest.approx(2 * hop)}
        m.hop(x)   # a second call starts when the host got the first result
        assert m.report()["makespan_us"] == pytest.approx(2 * (2 * kernel + 2 * hop))


def test_capacity_too_small_is_resource_exhausted_naming_the_device(two_device_vmfb):
    topo = {"devices": [{"name": "a", "uri": "local-sync://llvm-cpu", "memory": "64KiB"},
                        {"name": "b", "uri": "local-sync://llvm-cpu", "memory": 5000}],
            "links": [{"between": ["a", "b"], "bandwidth_gbps": 2}]}
    with rt.load(two_device_vmfb, topology=topo, deterministic=True) as m:
        with pytest.raises(ResourceExhaustedError, match=r"b: allocating \d+ bytes would exceed the heap "
                                                         r"capacity of 5000 bytes \(\d+ bytes live\)"):
            m.hop(np.zeros(1024, np.float32))
        assert m.report()["devices"]["b"]["capacity_bytes"] == 5000


def test_trace_has_lanes_per_queue_link_and_host(two_device_vmfb, tmp_path):
    topo = {"devices": [{"name": "a", "uri": "local-sync://llvm-cpu"},
                        {"name": "b", "uri": "local-sync://llvm-cpu"}],
            "links": [{"between": ["a", "b"], "bandwidth_gbps": 2, "latency_us": 3}]}
    tracer = rt.Tracer()
    with rt.load(two_device_vmfb, topology=topo, deterministic=True, tracer=tracer) as m:
        m.hop(np.zeros(1024, np.float32))
    tracer.write(tmp_path / "t.json")
    events = json.loads((tmp_path / "t.json").read_text())["traceEvents"]
    lanes = [e["args"]["name"] for e in events if e["name"] == "thread_name"]
    assert lanes == ["host", "a queue", "b queue", "links a -> b", "links b -> a"]
    pids = {e["pid"]: e["args"]["name"] for e in events if e["name"] == "process_name"}
    zones = {(pids[e["pid"]], e["name"]): (e["ts"], e["dur"]) for e in events if e["ph"] == "X"}
    hop = 3 + 4096 / 2000
    # Unmodelled kernels (no compute model) take the default roofline: 8 KiB at 50 GB/s.
    kernel = 8192 / 50e3
    assert zones[("links", "b: copy a -> b")] == (pytest.approx(kernel), pytest.approx(hop))
    assert zones[("links", "a: copy b -> a")][1] == pytest.approx(hop)
    assert zones[("b", "copy a -> b")] == zones[("links", "b: copy a -> b")]
    assert zones[("host", "EXEC @hop")] == (0.0, pytest.approx(2 * kernel + 2 * hop))
    assert all(e["ts"] >= 0 for e in events if e["ph"] == "X")


def test_bad_options_are_clear(matmul_vmfb):
    with pytest.raises(InvalidArgumentError, match="either devices or a topology"):
        rt.load(matmul_vmfb, devices=["local-sync://vmvx"], topology={"devices": [
            {"name": "d", "uri": "local-sync://vmvx"}]})
    with pytest.raises(InvalidArgumentError, match="ranks must be a positive integer"):
        rt.load(matmul_vmfb, ranks=0)
    with pytest.raises(InvalidArgumentError, match="needs 1 device\\(s\\) per rank x 3 rank\\(s\\) = 3"):
        rt.load(matmul_vmfb, topology={"devices": [{"name": "d", "uri": "local-sync://vmvx"}]}, ranks=3)
    with rt.load(matmul_vmfb) as m:
        with pytest.raises(InvalidArgumentError, match="was not loaded on a topology"):
            m.report()
