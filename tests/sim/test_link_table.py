"""Measured link tables: a link's time per message size, interpolated, in the engine and in
collectives, against closed forms (rt.runtime.sim.link_table)."""
import pytest

from rt.runtime.errors import InvalidArgumentError
from rt.runtime.sim.calibration import Calibration, LinkFit, ring_step_points
from rt.runtime.sim.collective_bench import simulate
from rt.runtime.sim.dispatch_classes import ClassCost, KernelCosts
from rt.runtime.sim.engine import Engine, Link
from rt.runtime.sim.link_table import LinkTable
from rt.runtime.sim.simulation import Simulation
from rt.runtime.sim.topology import Topology

ALPHA, BETA = 5.0, 2000.0            # 5 µs, 2 GB/s = 2000 bytes/µs


def _line(nbytes):
    return ALPHA + nbytes / BETA


def _ends(link, sizes):
    """End times of transfers of ``sizes`` all started at 0 on ``link``."""
    engine, ends = link.engine, {}
    for i, nbytes in enumerate(sizes):
        engine.at(0.0, (0, i), lambda i=i, n=nbytes: link.transfer(
            n, lambda failure, i=i: ends.__setitem__(i, engine.now)))
    engine.run()
    return [ends[i] for i in range(len(sizes))]


def test_two_points_interpolate_linearly_in_bytes_and_extend_their_line():
    table = LinkTable.from_points([(3000, 30.0), (1000, 10.0)])
    assert table.points == ((1000, 10.0), (3000, 30.0))
    assert table.time_us(2000) == pytest.approx(20.0)
    assert table.time_us(5000) == pytest.approx(50.0)        # beyond: the line through them
    assert table.latency_us == 0.0 and table.time_us(500) == pytest.approx(5.0)
    cliff = LinkTable.from_points([(1 << 20, 300.0), (4 << 20, 2500.0)])
    assert cliff.time_us(2 << 20) == pytest.approx(300.0 + 2200.0 / 3)
    assert cliff.latency_us == 0.0                            # the line's intercept is < 0


def test_a_table_on_an_alpha_beta_line_reproduces_it_everywhere():
    sizes = (4096, 65536, 1 << 20, 8 << 20)
    table = LinkTable.from_points([(s, _line(s)) for s in sizes])
    assert table.latency_us == pytest.approx(ALPHA)
    for nbytes in (1, 1000, 4096, 30000, 1 << 20, 3 << 20, 64 << 20):
        assert table.time_us(nbytes) == pytest.approx(_line(nbytes))
        engine = Engine()
        link = Link(engine, "a -> b", BETA, ALPHA, table=table)
        assert _ends(link, [nbytes]) == [pytest.approx(_line(nbytes))]


def test_noisy_points_are_made_monotone_by_lowering_outliers():
    table = LinkTable.from_points([(1000, 80.0), (2000, 12.0), (4000, 20.0), (8000, 18.0)])
    assert table.points == ((1000, 12.0), (2000, 12.0), (4000, 18.0), (8000, 18.0))
    with pytest.raises(ValueError, match="two or more distinct sizes"):
        LinkTable.from_points([(1000, 1.0), (1000, 2.0)])


def test_transfers_of_different_sizes_share_the_link_in_time():
    """Table (1000 B, 10 µs), (2000 B, 30 µs): latency 0, rates 100 and 66.7 B/µs. Started
    together, each moves at half its rate: the 1000 B one ends at 2 x 10 = 20 µs, the 2000 B
    one has 30 - 10 = 20 µs of its own time left then: 40 µs."""
    table = LinkTable.from_points([(1000, 10.0), (2000, 30.0)])
    link = Link(Engine(), "a -> b", 1.0, 0.0, table=table)
    assert _ends(link, [1000, 2000]) == [pytest.approx(20.0), pytest.approx(40.0)]


def _two_and_four(table_points, n):
    names = [f"d{i}" for i in range(n)]
    links = [{"between": [a, b], "bandwidth_gbps": 1.0, "latency_us": 0.0,
              "table": [list(p) for p in table_points]}
             for i, a in enumerate(names) for b in names[i + 1:]]
    return Topology.from_dict({"devices": [{"name": x, "uri": "local-sync://vmvx"} for x in names],
                               "links": links})


@pytest.mark.parametrize("n", (2, 4))
def test_ring_all_reduce_on_a_table_link_takes_2_n_minus_1_table_steps(n):
    """A ring all_reduce of M bytes runs 2(n-1) steps of one M/n chunk per link:
    2(n-1) time(M/n), here across a cache cliff between 256 KiB and 1 MiB chunks."""
    points = [(64 << 10, 30.0), (256 << 10, 100.0), (1 << 20, 700.0), (4 << 20, 3000.0)]
    table = LinkTable.from_points(points)
    sim = Simulation(_two_and_four(points, n), dry_run=True)
    try:
        for nbytes in (256 << 10, 1 << 20, 2 << 20):
            ran, us = simulate(sim, sim.devices, "all_reduce", nbytes // 4, 4)
            assert ran == "ring"
            assert us == pytest.approx(2 * (n - 1) * table.time_us(nbytes // n))
    finally:
        sim.release()


def test_calibration_writes_the_ring_steps_as_the_links_table():
    """An all_reduce of S over N ranks that took t µs is a step of S/N bytes in t/(2(N-1));
    the calibrated topology carries that table and reads back equal."""
    measured = [(3 << 12, 60.0), (3 << 16, 240.0), (3 << 20, 2400.0)]
    points = ring_step_points(4, measured)
    assert points == ((3 << 10, 10.0), (3 << 14, 40.0), (3 << 18, 400.0))
    kernels = KernelCosts((("copy", ClassCost(5.0, 50.0)),))
    cal = Calibration(["local-sync://vmvx"] * 4, {"local-sync://vmvx": kernels},
                      collective_link=LinkFit(1.0, 3.0, "test", points))
    topology = Topology.from_dict(cal.topology_dict("collective"))
    link = topology.link("cpu0", "cpu1")
    assert link.table.points == points
    assert topology.algorithm == "rendezvous"            # in-process ranks: rt's channel
    assert Topology.from_dict(cal.topology_dict("copy")).algorithm == "ring"
    assert Topology.from_dict(topology.to_dict()).link("cpu0", "cpu1").table == link.table


@pytest.mark.parametrize("table, message", [
    ("[[1024, 5.0]]", "two or more"),
    ("[[1024, 5.0], [512, 6.0]]", "sizes must be positive and increase"),
    ("[[1024, 5.0], [2048, 4.0]]", "times must not fall"),
    ("[[1024, 5.0], [2048]]", "expected a \\[bytes, us\\] pair"),
    ("[[1024, 5.0], [2048, -1.0]]", "must be > 0"),
])
def test_bad_tables_are_refused_naming_the_line_and_field(table, message):
    text = ("devices:\n  - {name: a, uri: local-sync://vmvx}\n  - {name: b, uri: local-sync://vmvx}\n"
            f"links:\n  - between: [a, b]\n    bandwidth_gbps: 1.0\n    table: {table}\n")
    with pytest.raises(InvalidArgumentError, match=message) as error:
        Topology.from_yaml(text, "t.yaml")
    assert "t.yaml:" in str(error.value) and "links[0].table" in str(error.value)
