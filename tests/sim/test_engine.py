"""Virtual time: events in order, L + B/W transfers, shared links, busy accounting."""
import pytest

from rt.runtime.sim import collective_model
from rt.runtime.sim.engine import Engine, Link, Meter


def _run(engine, link, starts):
    """Start transfers ``[(time, nbytes)]``; returns their end times."""
    ends = {}
    for i, (at, nbytes) in enumerate(starts):
        engine.at(at, (0, i), lambda i=i, n=nbytes: link.transfer(
            n, lambda failure, i=i: ends.__setitem__(i, (engine.now, failure))))
    engine.run()
    return [ends[i] for i in range(len(starts))]


def test_events_run_in_time_then_key_order():
    engine, seen = Engine(), []
    engine.at(5.0, (1,), lambda: seen.append("b"))
    engine.at(5.0, (0,), lambda: seen.append("a"))
    engine.at(1.0, (9,), lambda: engine.at(0.5, (0,), lambda: seen.append("clamped")))
    assert engine.run() == 5.0
    assert seen == ["clamped", "a", "b"]


def test_one_transfer_takes_latency_plus_bytes_over_bandwidth():
    engine = Engine()
    link = Link(engine, "a -> b", bandwidth=2000.0, latency=3.0)  # 2 GB/s
    ((end, failure),) = _run(engine, link, [(10.0, 5000)])
    assert (end, failure) == (10.0 + 3.0 + 5000 / 2000.0, None)
    assert (link.meter.bytes, link.meter.busy_us) == (5000, 5.5)


def test_transfers_sharing_a_link_share_its_bandwidth():
    engine = Engine()
    link = Link(engine, "a -> b", bandwidth=1000.0, latency=1.0)
    ends = _run(engine, link, [(0.0, 1000), (0.0, 1000)])
    assert [e for e, _ in ends] == [1.0 + 2.0, 1.0 + 2.0]
    # A transfer joining halfway: the first moved 500 B alone, then both share.
    engine = Engine()
    link = Link(engine, "a -> b", bandwidth=1000.0, latency=0.0)
    first, second = _run(engine, link, [(0.0, 1000), (0.5, 1000)])
    assert first[0] == pytest.approx(1.5)      # 500 B alone (0.5) + 500 B at half rate (1.0)
    assert second[0] == pytest.approx(2.0)     # 500 B shared (1.0) + 500 B alone (0.5)
    assert link.meter.busy_us == pytest.approx(2.0) and link.meter.bytes == 2000


def test_directions_of_a_link_are_independent_but_metered_together():
    engine = Engine()
    meter = Meter(engine)
    ab = Link(engine, "a -> b", 1000.0, 0.0, key=(0,), meter=meter)
    ba = Link(engine, "b -> a", 1000.0, 0.0, key=(1,), meter=meter)
    ends = []
    engine.at(0.0, (), lambda: ab.transfer(1000, lambda f: ends.append(engine.now)))
    engine.at(0.0, (), lambda: ba.transfer(1000, lambda f: ends.append(engine.now)))
    engine.at(4.0, (), lambda: ba.transfer(1000, lambda f: ends.append(engine.now)))
    engine.run()
    assert ends == [1.0, 1.0, 5.0]
    assert (meter.bytes, meter.busy_us) == (3000, 2.0)   # busy = union of [0,1] and [4,5]


def test_slow_and_failed_links():
    engine = Engine()
    link = Link(engine, "a -> b", 1000.0, 2.0)
    link.slowdown = 4.0
    ((end, _),) = _run(engine, link, [(0.0, 1000)])
    assert end == 2.0 * 4 + 1000 * 4 / 1000.0
    engine = Engine()
    link = Link(engine, "a -> b", 1000.0, 2.0)
    link.failure = RuntimeError("cut")
    ((end, failure),) = _run(engine, link, [(1.0, 1000)])
    assert end == 1.0 and str(failure) == "cut" and link.meter.bytes == 0


def _bytes_sent(steps):
    out = {}
    for step in steps:
        for source, _, nbytes in step:
            out[source] = out.get(source, 0) + nbytes
    return out


@pytest.mark.parametrize("n", [2, 3, 4, 8])
def test_ring_all_reduce_moves_2_n_minus_1_over_n_of_the_buffer(n):
    count = 1000 * n + 3                       # not divisible by n
    steps = collective_model.steps("all_reduce", n, count, 4, "ring")
    assert len(steps) == 2 * (n - 1)
    sent = _bytes_sent(steps)
    assert sum(sent.values()) == 2 * (n - 1) * count * 4
    assert all(abs(b - 2 * (n - 1) * count * 4 / n) <= 2 * (n - 1) * 4 for b in sent.values())
    assert all(t == (s + 1) % n for step in steps for s, t, _ in step)


@pytest.mark.parametrize("n", [2, 3, 4, 8])
def test_tree_all_reduce_runs_two_binary_trees_on_the_halves(n):
    steps = collective_model.steps("all_reduce", n, 10, 4, "tree")
    depth = (n - 1).bit_length()
    assert len(steps) == 2 * depth
    assert sum(len(step) for step in steps) == 4 * (n - 1)   # per tree: n-1 edges up and down
    assert sorted({nbytes for step in steps for _, _, nbytes in step}) == [20]
    up = [(s, t) for step in steps[:depth] for s, t, _ in step]
    assert sorted(s for s, _ in up) == sorted(list(range(1, n)) + [r for r in range(n) if r != (n - 1 if n % 2 == 0 else 1)])
    if n in (2, 4, 8):                                        # n = 2^k: a rank sends once a step going up
        assert all(len({s for s, _, _ in step}) == len(step) for step in steps[:depth])


@pytest.mark.parametrize("kind, per_rank", [("all_gather", 3 * 4 * 7), ("reduce_scatter", 3 * 4 * 7)])
def test_ring_gather_and_scatter_take_n_minus_1_steps(kind, per_rank):
    steps = collective_model.steps(kind, 4, 7, 4, "ring")
    assert len(steps) == 3 and set(_bytes_sent(steps).values()) == {per_rank}


def test_all_to_all_and_send_recv():
    steps = collective_model.steps("all_to_all", 4, 8, 2, "ring")
    assert [sorted(t for _, t, _ in s) for s in steps] == [[0, 1, 2, 3]] * 3
    assert all(nbytes == 4 for s in steps for _, _, nbytes in s)
    steps = collective_model.steps("send_recv", 3, 5, 4, params={0: (1, None), 1: (2, 0), 2: (None, 1)})
    assert steps == [[(0, 1, 20), (1, 2, 20)]]
    assert collective_model.steps("all_reduce", 1, 100, 4) == []
