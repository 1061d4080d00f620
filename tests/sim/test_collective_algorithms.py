"""Every collective algorithm on every topology kind takes its α–β closed-form time.

Notation: n ranks, α the latency of one hop (``latency_us``; a switch counts it twice: up to
the switch and down), β the link bandwidth (bytes/µs), M the bytes of an all_reduce,
broadcast or reduce buffer, b one rank's block (all_gather, reduce_scatter; all_to_all:
M/n), k = log2 n. Steps are bulk-synchronous; transfers sharing a link share its bandwidth;
a switch gives each device one port, shared by the transfers it sends.

==========================  ===========================  ====================================
algorithm / op              fully connected (and ring)   switch
==========================  ===========================  ====================================
ring all_reduce             2(n-1)(α + M/(nβ))           same
ring all_gather, r_scatter  (n-1)(α + b/β)               same
ring all_to_all             (n-1)(α + b/β); on a ring    same
                            dim Σ_s min(s,n-s)(α + b/β)
ring broadcast, reduce      (n-1)(α + M/β)               same
tree all_reduce             2k(α + M/(2β))               (k+1)(α + M/(2β)) + (k-1)(α + M/β)
tree broadcast              k(α + M/β)                   (α + M/β) + (k-1)(α + 2M/β)
tree reduce                 k(α + M/β)                   same
direct all_reduce           2(α + M/(nβ))                2(α + (n-1)M/(nβ))
direct ag, rs, a2a          α + b/β                      α + (n-1)b/β
direct broadcast            α + M/β                      α + (n-1)M/β
direct reduce               α + M/β                      same
halving_doubling all_reduce 2kα + 2(n-1)M/(nβ)           same
halving_doubling ag, rs     kα + (n-1)b/β                same
halving_doubling a2a        (n-1)(α + b/β)               same
halving_doubling bc, reduce k(α + M/β)                   same
==========================  ===========================  ====================================

Kinds an algorithm does not implement (tree: all_gather, reduce_scatter, all_to_all) and
halving_doubling on n not a power of two run ring. Hierarchical collectives (dims) take the
sum of their phases: all_reduce = RS(dim 0, block M/n0) + AR(dim 1, M/n0) + AG(dim 0, block
M/n0); all_gather = AG(dim 0, b) + AG(dim 1, n0·b); reduce_scatter = RS(dim 0, n1·b) +
RS(dim 1, b); broadcast = BC(dim 1) + BC(dim 0); reduce = RD(dim 0) + RD(dim 1).
"""
import math

import pytest

from rt.runtime.sim import collective_plan
from rt.runtime.sim.collective_bench import simulate
from rt.runtime.sim.simulation import Simulation
from rt.runtime.sim.topology import Topology

OPS = ("all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast", "reduce")
LATENCY, GBPS, COUNT = 1.0, 10.0, 8000          # 1 µs, 10 GB/s, 8000 f32 (32000 bytes)


def closed_form(algorithm, op, n, nbytes, alpha, beta, switch=False, ring_dim=False):
    """The table of the module docstring (µs); ``nbytes`` is M or b as the op counts it."""
    a, B, M = alpha, beta, nbytes
    k = int(math.log2(n))
    b = M / n if op == "all_to_all" else M
    fan = n - 1 if switch else 1
    table = {
        ("ring", "all_reduce"): 2 * (n - 1) * (a + M / (n * B)),
        ("ring", "all_gather"): (n - 1) * (a + b / B),
        ("ring", "reduce_scatter"): (n - 1) * (a + b / B),
        ("ring", "all_to_all"): (sum(min(s, n - s) for s in range(1, n)) if ring_dim else n - 1) * (a + b / B),
        ("ring", "broadcast"): (n - 1) * (a + M / B),
        ("ring", "reduce"): (n - 1) * (a + M / B),
        ("tree", "all_reduce"): ((k + 1) * (a + M / (2 * B)) + (k - 1) * (a + M / B) if switch
                                 else 2 * k * (a + M / (2 * B))),
        ("tree", "broadcast"): (a + M / B) + (k - 1) * (a + 2 * M / B) if switch else k * (a + M / B),
        ("tree", "reduce"): k * (a + M / B),
        ("direct", "all_reduce"): 2 * (a + fan * M / (n * B)),
        ("direct", "all_gather"): a + fan * b / B,
        ("direct", "reduce_scatter"): a + fan * b / B,
        ("direct", "all_to_all"): a + fan * b / B,
        ("direct", "broadcast"): a + fan * M / B,
        ("direct", "reduce"): a + M / B,
        ("halving_doubling", "all_reduce"): 2 * k * a + 2 * (n - 1) * M / (n * B),
        ("halving_doubling", "all_gather"): k * a + (n - 1) * b / B,
        ("halving_doubling", "reduce_scatter"): k * a + (n - 1) * b / B,
        ("halving_doubling", "all_to_all"): (n - 1) * (a + b / B),
        ("halving_doubling", "broadcast"): k * (a + M / B),
        ("halving_doubling", "reduce"): k * (a + M / B),
    }
    if (algorithm, op) not in table:                  # not implemented by it: ring runs
        return "ring", table[("ring", op)]
    return algorithm, table[(algorithm, op)]


def _topology(dims, algorithm):
    return Topology.from_dict({"dims": dims, "device": {"uri": "local-sync://vmvx"},
                               "collectives": {"algorithm": algorithm}})


def _run(topology, op, count=COUNT, algorithm=None):
    sim = Simulation(topology, dry_run=True)
    try:
        return simulate(sim, sim.devices, op, count, 4, algorithm)
    finally:
        sim.release()


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("algorithm", ("ring", "tree", "direct", "halving_doubling"))
@pytest.mark.parametrize("kind", ("fully_connected", "switch"))
@pytest.mark.parametrize("n", (4, 8))
def test_flat_algorithms_on_fully_connected_and_switch(n, kind, algorithm, op):
    dim = {"size": n, "kind": kind, "bandwidth_gbps": GBPS, "latency_us": LATENCY}
    ran, us = _run(_topology([dim], algorithm), op)
    switch = kind == "switch"
    alpha = 2 * LATENCY if switch else LATENCY
    expected_name, expected = closed_form(algorithm, op, n, COUNT * 4, alpha, GBPS * 1e3, switch)
    assert ran == expected_name
    assert us == pytest.approx(expected, rel=1e-9)
    net = collective_plan.dim_net(_topology([dim], algorithm).dims[0])
    assert collective_plan.predict(op, ran, n, COUNT * 4, net) == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize("op", OPS)
def test_ring_algorithm_on_a_ring_dimension(op):
    n = 8
    dim = {"size": n, "kind": "ring", "bandwidth_gbps": GBPS, "latency_us": LATENCY}
    ran, us = _run(_topology([dim], "ring"), op)
    assert ran == "ring"
    assert us == pytest.approx(closed_form("ring", op, n, COUNT * 4, LATENCY, GBPS * 1e3,
                                           ring_dim=True)[1], rel=1e-9)


def test_other_algorithms_on_a_ring_dimension_cross_several_hops():
    """A ring of 4, direct all_gather: each rank sends b to r+1, r-1 and r+2 (2 hops, forward on
    the tie). Link r -> r+1 first carries the sends to r+1 and r+2 together (α + 2b/β), then
    the second hop of r-1's send to r+1 (α + b/β): 2α + 3b/β. A ring of 3 is fully connected:
    α + b/β."""
    beta, b = GBPS * 1e3, COUNT * 4
    ring4 = _topology([{"size": 4, "kind": "ring", "bandwidth_gbps": GBPS, "latency_us": LATENCY}], "direct")
    assert _run(ring4, "all_gather") == ("direct", pytest.approx(2 * LATENCY + 3 * b / beta))
    ring3 = _topology([{"size": 3, "kind": "ring", "bandwidth_gbps": GBPS, "latency_us": LATENCY}], "direct")
    assert _run(ring3, "all_gather") == ("direct", pytest.approx(LATENCY + b / beta))


def test_halving_doubling_needs_a_power_of_two_and_runs_ring_otherwise():
    dim = {"size": 6, "kind": "fully_connected", "bandwidth_gbps": GBPS, "latency_us": LATENCY}
    ran, us = _run(_topology([dim], "halving_doubling"), "all_reduce", count=6000)
    assert ran == "ring" and us == pytest.approx(2 * 5 * (LATENCY + 4000 / (GBPS * 1e3)))


def _phase(algorithm, op, dim, nbytes):
    switch = dim["kind"] == "switch"
    alpha = dim["latency_us"] * (2 if switch else 1)
    return closed_form(algorithm, op, dim["size"], nbytes, alpha, dim["bandwidth_gbps"] * 1e3, switch,
                       ring_dim=dim["kind"] == "ring" and dim["size"] > 3)[1]


@pytest.mark.parametrize("op", ("all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce"))
@pytest.mark.parametrize("shape", ("torus", "island"))
def test_hierarchical_collectives_sum_their_phases(shape, op):
    """2D torus: two rings of 4 (ring phases). NVLink island + network: 4 fully connected at
    100 GB/s (direct phases) x 4 on a switch at 10 GB/s (ring phases)."""
    if shape == "torus":
        d0 = {"size": 4, "kind": "ring", "bandwidth_gbps": GBPS, "latency_us": LATENCY, "algorithm": "ring"}
        d1 = dict(d0, bandwidth_gbps=2 * GBPS)
        a0 = a1 = "ring"
    else:
        d0 = {"size": 4, "kind": "fully_connected", "bandwidth_gbps": 100.0, "latency_us": 0.5,
              "algorithm": "direct"}
        d1 = {"size": 4, "kind": "switch", "bandwidth_gbps": GBPS, "latency_us": LATENCY, "algorithm": "ring"}
        a0, a1 = "direct", "ring"
    n0, n1, M = d0["size"], d1["size"], COUNT * 4
    ran, us = _run(_topology([d0, d1], "hierarchical"), op)
    assert ran == f"hierarchical(0:{a0},1:{a1})"
    expected = {
        "all_reduce": _phase(a0, "reduce_scatter", d0, M / n0) + _phase(a1, "all_reduce", d1, M / n0)
        + _phase(a0, "all_gather", d0, M / n0),
        "all_gather": _phase(a0, "all_gather", d0, M) + _phase(a1, "all_gather", d1, n0 * M),
        "reduce_scatter": _phase(a0, "reduce_scatter", d0, n1 * M) + _phase(a1, "reduce_scatter", d1, M),
        "broadcast": _phase(a1, "broadcast", d1, M) + _phase(a0, "broadcast", d0, M),
        "reduce": _phase(a0, "reduce", d0, M) + _phase(a1, "reduce", d1, M),
    }[op]
    assert us == pytest.approx(expected, rel=1e-9)


def test_auto_picks_the_least_predicted_time_for_the_message_size():
    """Broadcast on a switch of 8 (α = 2 µs, β = 1e4 B/µs): direct α + 7M/β beats
    halving_doubling 3(α + M/β) below M = αβ/2 = 10,000 bytes, loses above it."""
    dim = {"size": 8, "kind": "switch", "bandwidth_gbps": GBPS, "latency_us": LATENCY}
    topo = _topology([dim], "auto")
    assert _run(topo, "broadcast", count=2) == ("direct", pytest.approx(2 + 7 * 8 / 1e4))
    assert _run(topo, "broadcast", count=2**18) == ("halving_doubling",
                                                   pytest.approx(3 * (2 + 2**20 / 1e4)))
    # Per dimension: a hierarchical phase on an 'auto' dimension picks the same way.
    two = _topology([dict(dim, size=2, kind="fully_connected"), dim], "hierarchical")
    assert _run(two, "broadcast", count=2)[0] == "hierarchical(0:ring,1:direct)"
    assert _run(two, "broadcast", count=2**18)[0] == "hierarchical(0:ring,1:halving_doubling)"
    # The override per call wins over the topology's choice.
    assert _run(topo, "broadcast", count=2, algorithm="ring")[0] == "ring"
