"""The ``rendezvous`` algorithm (rt's in-process channel, rt.runtime.sim.collective_model): every
kind costs the ring all_reduce of E bytes, E the all_reduce size that moves as much host memory.

Closed form, n ranks, α, β of the calibrated links, M the buffer, b one rank's block:
time = 2(n-1)(α + E/(nβ)) with E = M (all_reduce, all_to_all), (n+1)b/2 (all_gather,
reduce_scatter), (n-1)M/n (broadcast), (n+1)M/(2n) (reduce). Why: the channel makes one
rendezvous per call and moves the result through host memory (rt.runtime.hal.collective), and
its links are calibrated from all_reduce calls (rt.runtime.sim.link_table).
"""
import pytest

from rt.runtime.sim import collective_plan
from rt.runtime.sim.collective_bench import simulate
from rt.runtime.sim.simulation import Simulation
from rt.runtime.sim.topology import Topology

LATENCY, GBPS, COUNT = 20.0, 2.0, 8000          # 20 µs, 2 GB/s, 8000 f32 (32000 bytes)
EQUIVALENT = {"all_reduce": lambda n, m: m, "all_to_all": lambda n, m: m,
              "all_gather": lambda n, b: (n + 1) * b / 2, "reduce_scatter": lambda n, b: (n + 1) * b / 2,
              "broadcast": lambda n, m: (n - 1) * m / n, "reduce": lambda n, m: (n + 1) * m / (2 * n)}


def _topology(n):
    names = [f"cpu{i}" for i in range(n)]
    return Topology.from_dict({
        "collectives": {"algorithm": "rendezvous"},
        "devices": [{"name": name, "uri": "local-sync://vmvx"} for name in names],
        "links": [{"between": [a, b], "bandwidth_gbps": GBPS, "latency_us": LATENCY}
                  for i, a in enumerate(names) for b in names[i + 1:]]})


@pytest.mark.parametrize("op", sorted(EQUIVALENT))
@pytest.mark.parametrize("n", (2, 4))
def test_every_kind_is_the_ring_all_reduce_of_its_equivalent_bytes(n, op):
    beta = GBPS * 1e3
    expected = 2 * (n - 1) * (LATENCY + EQUIVALENT[op](n, COUNT * 4) / (n * beta))
    sim = Simulation(_topology(n), dry_run=True)
    try:
        ran, us = simulate(sim, sim.devices, op, COUNT, 4, None)
    finally:
        sim.release()
    assert ran == "rendezvous"
    assert us == pytest.approx(expected, rel=1e-9)
    net = collective_plan.Net("fully_connected", LATENCY, beta)
    assert collective_plan.predict(op, "rendezvous", n, COUNT * 4, net) == pytest.approx(expected, rel=1e-9)


def test_two_rank_all_gather_costs_an_all_reduce_of_one_and_a_half_blocks():
    """2 ranks, b = 32000 bytes: 2(α + 48000/(2β)) = 2·20 + 48000/2000 = 64 µs, where the
    ring's all_gather (α + b/β = 36 µs) charged the rendezvous half the synchronization."""
    sim = Simulation(_topology(2), dry_run=True)
    try:
        _, us = simulate(sim, sim.devices, "all_gather", COUNT, 4, None)
    finally:
        sim.release()
    assert us == pytest.approx(64.0, rel=1e-9)
