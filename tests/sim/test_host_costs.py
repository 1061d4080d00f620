"""The host's cost of a call (a topology's ``host: {call_us}``, rt.runtime.sim.host_costs):
each SPMD call's ranks start that much after the caller, so it adds to every call's simulated
time; ``wake_us`` delays work waiting on another device's queue; a bad ``host`` entry names
the file, line and field."""
import numpy as np
import pytest

import rt
from rt.runtime.errors import InvalidArgumentError
from rt.runtime.sim.host_costs import HostCosts
from rt.runtime.sim.topology import Topology

ALL_REDUCE = """
shard.grid @grid(shape = 2)
func.func @ar(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %r = shard.all_reduce %x on @grid grid_axes = [0] : tensor<1024xf32> -> tensor<1024xf32>
  return %r : tensor<1024xf32>
}
"""
LATENCY_US, BANDWIDTH_GBPS, NBYTES = 2.0, 50.0, 4096


def _pair(host=None):
    topology = {"name": "pair",
                "devices": [{"name": f"g{r}", "uri": "local-sync://llvm-cpu", "peak_gflops": 100,
                             "memory_gbps": 200} for r in range(2)],
                "links": [{"between": ["g0", "g1"], "bandwidth_gbps": BANDWIDTH_GBPS,
                           "latency_us": LATENCY_US}]}
    if host is not None:
        topology["host"] = host
    return topology


@pytest.fixture(scope="module")
def all_reduce():
    return rt.compile(ALL_REDUCE, devices=["llvm-cpu"])


def _call_times(vmfb, topology, calls):
    """Simulated µs of each of ``calls`` SPMD calls (engine time after each, differenced)."""
    with rt.load(vmfb, topology=topology, ranks=2, dry_run=True) as module:
        times, before = [], module.simulation.drain()
        for _ in range(calls):
            module.ar.spmd([[np.ones(1024, np.float32)]] * 2, to_host=False)
            now = module.simulation.drain()
            times.append(now - before)
            before = now
        return times


def test_each_spmd_call_pays_the_hosts_call_cost_before_its_ring_all_reduce(all_reduce):
    ring = 2 * (LATENCY_US + NBYTES / (2 * BANDWIDTH_GBPS * 1e3))  # 2(n-1)(a + S/(n b)), n = 2
    assert _call_times(all_reduce, _pair(), 2) == pytest.approx([ring, ring])
    assert _call_times(all_reduce, _pair({"call_us": 40}), 3) == pytest.approx([40 + ring] * 3)


VECTOR = "tensor<256xf32>"


def _stages(devices):
    """A function doubling a vector on each of ``devices`` in turn (s0 or s1), the vector
    moved by ``flow.tensor.transfer`` between two stages on different devices."""
    body, value = [], "%x"
    for i, device in enumerate(devices):
        if i and device != devices[i - 1]:
            body.append(f"%t{i} = flow.tensor.transfer {value} : {VECTOR} to #hal.device.affinity<@{device}>")
            value = f"%t{i}"
        body += [f"%e{i} = tensor.empty() : {VECTOR}",
                 f"%y{i} = linalg.generic {{indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], "
                 f'iterator_types = ["parallel"]}} ins({value} : {VECTOR}) outs(%e{i} : {VECTOR}) {{',
                 "^bb0(%a: f32, %o: f32):", "  %s = arith.addf %a, %a : f32", "  linalg.yield %s : f32",
                 f"}} -> {VECTOR}"]
        value = f"%y{i}"
    lines = "\n".join("  " + line for line in body)
    return (f"func.func @f(%x: {VECTOR}) -> {VECTOR} attributes {{stream.affinity = "
            f"#hal.device.affinity<@{devices[0]}>}} {{\n{lines}\n  return {value} : {VECTOR}\n}}\n")


@pytest.mark.parametrize("devices, hops", [(["s0", "s1"], 1), (["s0", "s1", "s0"], 2), (["s0", "s0"], 0)])
def test_work_waiting_on_another_devices_queue_starts_wake_us_after_its_signal(devices, hops):
    """``host.wake_us``: each dependency of one device's queue on another's (the transfer's
    stage waiting on the stage before, on the other device) adds it to the call; work of one
    queue after its own costs nothing more. Values are unchanged."""
    vmfb = rt.compile(_stages(devices), devices=["s0=llvm-cpu", "s1=llvm-cpu"])
    x = np.arange(256, dtype=np.float32)
    times = []
    for wake_us in (0.0, 30.0):
        topology = {**_pair({"call_us": 0, "wake_us": wake_us}),
                    "devices": [{"name": n, "uri": "local-sync://llvm-cpu", "peak_gflops": 100,
                                 "memory_gbps": 200} for n in ("s0", "s1")],
                    "links": [{"between": ["s0", "s1"], "bandwidth_gbps": BANDWIDTH_GBPS,
                               "latency_us": LATENCY_US}]}
        with rt.load(vmfb, topology=topology) as module:
            np.testing.assert_array_equal(module.f(x), x * 2 ** len(devices))
            before = module.simulation.drain()
            module.f(x, to_host=False)
            times.append(module.simulation.drain() - before)
    assert times[1] - times[0] == pytest.approx(30.0 * hops)


def test_the_host_cost_round_trips_and_defaults_to_nothing():
    topology = Topology.from_dict(_pair({"call_us": 12.5}))
    assert topology.host == HostCosts(12.5)
    assert Topology.from_dict(topology.to_dict()).host == HostCosts(12.5)
    assert Topology.from_dict(_pair()).host == HostCosts(0.0)
    assert "host" not in Topology.from_dict(_pair()).to_dict()
    woken = Topology.from_dict(_pair({"call_us": 1, "wake_us": 25}))
    assert woken.host == HostCosts(1.0, wake_us=25.0)
    assert Topology.from_dict(woken.to_dict()).host == woken.host


@pytest.mark.parametrize("host, message", [
    ({"call_us": -1}, r"t.yaml:\d+: host.call_us: must be >= 0, got -1"),
    ({"call_us": "slow"}, r"host.call_us: expected a number \(µs\), got 'slow'"),
    ({"call_us": 1, "wake_us": -2}, r"t.yaml:\d+: host.wake_us: must be >= 0, got -2"),
    ({"call": 3}, r"host.call: unknown field; expected one of call_us"),
    ({}, r"host: missing required field 'call_us'"),
    ([3], r"host: expected a mapping with fields call_us, cores, dispatch_us, wake_us, got a list"),
])
def test_a_bad_host_entry_names_the_field(host, message):
    import yaml

    with pytest.raises(InvalidArgumentError, match=message):
        Topology.from_yaml(yaml.safe_dump(_pair(host)), "t.yaml")
