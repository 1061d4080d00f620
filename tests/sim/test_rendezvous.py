"""The ``rendezvous`` algorithm (rt's in-process channel, rt.runtime.sim.collective_model): every
kind costs the ring all_reduce of E bytes, E the all_reduce size that moves as much host memory.

Closed form, n ranks, α, β of the calibrated links, M the buffer, b one rank's block:
time = 2(n-1)(α + E/(nβ)) with E = P/(5n-3), P the bytes the channel's computation reads and
writes (a copy of A moves 2A, an accumulation 3A): (5n-3)M for all_reduce (so E = M), 2n^2 b
for all_gather, nb(3n+1) for reduce_scatter, 2nM for all_to_all, 2(n-1)M for broadcast,
(3n-1)M for reduce. Why: the channel makes one rendezvous per call and moves the result
through host memory (rt.runtime.hal.drivers._local_rendezvous), and its links are calibrated
from all_reduce calls (rt.runtime.sim.link_table).
"""
import pytest

from rt.runtime.sim import collective_plan
from rt.runtime.sim.collective_bench import simulate
from rt.runtime.sim.simulation import Simulation
from rt.runtime.sim.topology import Topology

LATENCY, GBPS, COUNT = 20.0, 2.0, 8000          # 20 µs, 2 GB/s, 8000 f32 (32000 bytes)
EQUIVALENT = {"all_reduce": lambda n, m: m, "all_to_all": lambda n, m: 2 * n * m / (5 * n - 3),
              "all_gather": lambda n, b: 2 * n * n * b / (5 * n - 3),
              "reduce_scatter": lambda n, b: n * b * (3 * n + 1) / (5 * n - 3),
              "broadcast": lambda n, m: 2 * (n - 1) * m / (5 * n - 3),
              "reduce": lambda n, m: (3 * n - 1) * m / (5 * n - 3)}


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
    assert us == pytest.approx(expected, abs=2e-3)  # the virtual clock counts whole ns, E whole bytes
    net = collective_plan.Net("fully_connected", LATENCY, beta)
    assert collective_plan.predict(op, "rendezvous", n, COUNT * 4, net) == pytest.approx(expected, rel=1e-9)


def test_two_rank_all_gather_costs_an_all_reduce_of_eight_sevenths_of_a_block():
    """2 ranks, b = 32000 bytes: the gather copies 4b (P = 8b), an all_reduce of M moves 7M,
    so E = 8b/7 and 2(α + E/(2β)) = 2·20 + 36571.4/2000 = 58.29 µs, where the ring's
    all_gather (α + b/β = 36 µs) charged the rendezvous half the synchronization."""
    sim = Simulation(_topology(2), dry_run=True)
    try:
        _, us = simulate(sim, sim.devices, "all_gather", COUNT, 4, None)
    finally:
        sim.release()
    assert us == pytest.approx(40 + 8 * 32000 / 7 / 2000, abs=2e-3)
