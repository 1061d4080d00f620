"""Issue 23 item 3: ``rt calibrate`` measures this host and writes a topology that describes it."""
import statistics
import subprocess
import sys

import numpy as np
import pytest

import rt
from rt.runtime.errors import InvalidArgumentError, NotFoundError
from rt.runtime.sim import calibration
from rt.runtime.sim.calibration import Calibration, LinkFit, fit_line, kernel_costs
from rt.runtime.sim.dispatch_classes import ClassCost, KernelCosts
from rt.runtime.sim.topology import Topology

URI = "local-task://llvm-cpu?threads=1"


def test_fit_line_recovers_overhead_and_throughput():
    assert fit_line([(0, 5.0), (1000, 7.0), (3000, 11.0)]) == pytest.approx((5.0, 0.002))
    # A negative free intercept is refitted through the origin (relative errors: weights 1/y).
    w0, w1 = 1 / 0.5**2, 1 / 2.5**2
    assert fit_line([(100, 0.5), (200, 2.5)]) == pytest.approx(
        (0.0, (w0 * 100 * 0.5 + w1 * 200 * 2.5) / (w0 * 100**2 + w1 * 200**2)))
    with pytest.raises(InvalidArgumentError, match="two distinct sizes"):
        fit_line([(8, 1.0), (8, 2.0)])


@pytest.mark.parametrize("ranks", [2, 4])
def test_fit_ring_recovers_latency_and_bandwidth_from_all_reduce_times(ranks):
    latency, bandwidth = 30.0, 2.5  # µs, GB/s

    def all_reduce(size):  # 2(N-1)(a + S/(N b)), b in 1e3 B/µs
        return 2 * (ranks - 1) * (latency + size / (ranks * bandwidth * 1e3))
    points = [(s, all_reduce(s)) for s in (1 << 12, 1 << 16, 1 << 20)]
    assert calibration.fit_ring(ranks, points) == pytest.approx((latency, bandwidth))
    with pytest.raises(InvalidArgumentError, match="a line needs two distinct sizes"):
        calibration.fit_ring(ranks, points[:1])


def test_fit_line_on_differences_weighs_absolute_errors_and_takes_negative_points():
    # a difference of two calls with ±50 µs of noise: the relative fit would chase the small
    # (noisy) points; the absolute one keeps the large sizes' slope
    points = [(0, -20.0), (1000, 80.0), (2000, 120.0), (3000, 170.0)]
    intercept, slope = fit_line(points, relative=False)
    assert (intercept, slope) == pytest.approx((0.0, 830000 / 14e6))  # the free fit's intercept is < 0
    assert fit_line([(1, 3.0), (2, 5.0), (3, 7.0)], relative=False) == pytest.approx((1.0, 2.0))


def test_paired_difference_cancels_load_common_to_a_pair():
    base = [100.0, 900.0, 110.0, 1000.0, 95.0]  # a call slowed by bursts of load
    call = [140.0, 940.0, 150.0, 1040.0, 900.0]  # 40 µs more; the last one hit a burst alone
    assert calibration.paired_difference(call, base) == pytest.approx(40.0)
    assert statistics.median(call) - statistics.median(base) == pytest.approx(790.0)


def test_median_interleaved_takes_turns_and_keeps_the_median(monkeypatch):
    # a warm-up each, then 3 rounds, round k starting at call k mod 2; seconds of a fake clock
    durations = {"a": iter([0, 1e-3, 3e-3, 2e-3]), "b": iter([0, 5e-3, 1e-3, 9e-3])}
    order, clock = [], [0.0]
    monkeypatch.setattr(calibration.time, "perf_counter", lambda: clock[0])

    def call(name):
        def run():
            order.append(name)
            clock[0] += next(durations[name])
        return run
    assert calibration.median_interleaved([call("a"), call("b")], 3) == pytest.approx([2e3, 5e3])
    assert order == ["a", "b", "a", "b", "b", "a", "a", "b"]


def test_warm_samples_follow_an_untimed_call_of_the_same_call(monkeypatch):
    """``warm``: the timed call runs right after an untimed one of itself (its data cached)."""
    order, clock = [], [0.0]
    monkeypatch.setattr(calibration.time, "perf_counter", lambda: clock[0])

    def call(name, us):
        def run():
            order.append(name)
            clock[0] += us * 1e-6
        return run
    assert calibration.median_interleaved([call("a", 7.0), call("b", 3.0)], 2, warm=True) == \
        pytest.approx([7.0, 3.0])
    assert order == ["a", "b", "a", "a", "b", "b", "b", "b", "a", "a"]


def _scripted_calls(monkeypatch, durations):
    """Calls "a" and "b" that take the next of their ``durations`` (µs) on a fake clock;
    ``(calls, order)``, ``order`` the names in the order they ran."""
    order, clock = [], [0.0]
    monkeypatch.setattr(calibration.time, "perf_counter", lambda: clock[0])

    def call(name):
        times = iter(durations[name])

        def run():
            order.append(name)
            clock[0] += next(times) * 1e-6
        return run
    return [call("a"), call("b")], order


def test_runs_time_calls_in_a_row_and_keep_their_median(monkeypatch):
    """``runs``: a turn is an untimed call then ``runs`` timed ones in a row; its sample is
    their median (a call among calls of itself)."""
    calls, order = _scripted_calls(monkeypatch, {"a": [1, 1, 4, 2, 9, 1, 5, 6, 7],
                                                 "b": [1, 1, 3, 3, 3, 1, 8, 2, 2]})
    samples = calibration.interleaved_samples(calls, 2, warm=True, runs=3)
    assert samples == [pytest.approx([4.0, 6.0]), pytest.approx([3.0, 2.0])]
    assert order == ["a", "b"] + ["a"] * 4 + ["b"] * 4 + ["b"] * 4 + ["a"] * 4


def test_warm_runs_count_the_untimed_calls_before_each_turn(monkeypatch):
    """``warm_runs``: each turn starts after that many untimed calls of itself (what MPI
    processes, which must make the same calls, use instead of a clock); the samples are the
    timed calls' alone."""
    calls, order = _scripted_calls(monkeypatch, {"a": [9, 1, 1, 2, 1, 1, 3], "b": [9, 1, 1, 4, 1, 1, 5]})
    samples = calibration.interleaved_samples(calls, 2, warm=True, warm_runs=2)
    assert samples == [pytest.approx([2.0, 3.0]), pytest.approx([4.0, 5.0])]
    assert order == ["a", "b"] + ["a"] * 3 + ["b"] * 3 + ["b"] * 3 + ["a"] * 3


def test_mpi_loopback_samples_warm_up_with_the_same_count_on_every_rank():
    """rt.runtime.sim.mpi_loopback: ``warm_runs`` untimed calls, each after a barrier as the
    timed ones, before every turn (both ranks make the same calls, so every barrier meets)."""
    from rt.runtime.sim import mpi_loopback

    log = []
    samples = mpi_loopback._samples([lambda: log.append("a"), lambda: log.append("b")], 1,
                                    lambda: log.append("|"), runs=2, warm_runs=3)
    assert len(samples) == 2 and all(len(s) == 1 and s[0] >= 0 for s in samples)
    turn = lambda name: ["|", name] * 5  # noqa: E731
    assert log == turn("a") + turn("b") + turn("a") + turn("b")


def test_turns_time_every_measurement_in_one_schedule(monkeypatch):
    """``Turns``: the calls of several measurements take turns together (each with its own
    ``runs``); each ``Timed`` gets its calls' samples, ``then`` runs after, resources close."""
    clock, order = [0.0], []
    monkeypatch.setattr(calibration.time, "perf_counter", lambda: clock[0])
    monkeypatch.setattr(calibration, "WARM_S", 8.5e-6)

    def call(name, us):
        def run():
            order.append(name)
            clock[0] += us * 1e-6
        return run
    closed = []
    with calibration.Turns(2) as turns:
        first = turns.add([call("a", 5.0)], 1, lambda samples: statistics.median(samples[0]))
        second = turns.add([call("b", 2.0), call("c", 3.0)], 2)
        turns.then(lambda: closed.append(("then", first.value)))
        turns.callback(lambda: closed.append("released"))
        with pytest.raises(calibration.RtError, match="not been timed yet"):
            first.value
        turns.run()
    assert first.value == pytest.approx(5.0)
    assert second.value == [pytest.approx([2.0, 2.0]), pytest.approx([3.0, 3.0])]
    # warm-ups, then turn 1 (a b c), turn 2 starting at b: before each sample, untimed calls
    # until 8.5 µs have passed (a: 2 calls of 5 µs, b: 5 calls of 2 µs, c: 3 calls of 3 µs)
    turn = {"a": ["a"] * 2 + ["a"], "b": ["b"] * 5 + ["b"] * 2, "c": ["c"] * 3 + ["c"] * 2}
    assert order == ["a", "b", "c"] + turn["a"] + turn["b"] + turn["c"] + turn["b"] + turn["c"] + turn["a"]
    assert closed == [("then", pytest.approx(5.0)), "released"]


def test_a_calibration_sharing_turns_is_complete_once_they_ran():
    """``calibrate(turns=...)``: the in-process links and call cost are timed with the other
    calls of the turns; the Calibration holds them after ``run``."""
    with calibration.Turns(1) as turns:
        cal = calibration.calibrate(quick=True, turns=turns)
        assert cal.collective_link is None and not cal.call_us and cal.kernels
        turns.run()
    assert cal.collective_link.bandwidth_gbps > 0 and cal.copy_link.bandwidth_gbps > 0
    assert cal.call_us[2] > 0 and cal.dispatch_us >= 0 and cal.wake_us >= 0
    assert {"call_us", "wake_us"} <= set(cal.topology_dict()["host"])


def test_the_copy_link_is_what_a_copy_adds_to_a_queue_operation():
    """``fit_copy_link``: each size's ``queue_copy`` less the tiny ``queue_fill`` of the same
    turn (a queue operation's own cost, which a copy command inside a program's operation does
    not pay again); load common to a turn cancels, and α + S/β comes back."""
    sizes = [1 << 12, 1 << 16, 1 << 20]
    load = [0.0, 9.0, 3.0]  # per turn, on every call of it
    fill = [5.0 + x for x in load]
    copies = [[5.0 + 2.0 + s / 20e3 + x for x in load] for s in sizes]  # α 2 µs, 20 GB/s
    fit = calibration.fit_copy_link(sizes, copies, fill)
    assert fit.latency_us == pytest.approx(2.0) and fit.bandwidth_gbps == pytest.approx(20.0)
    assert fit.points == tuple((s, pytest.approx(2.0 + s / 20e3)) for s in sizes)
    assert "less a 256-byte queue_fill" in fit.method


def test_mpi_collective_times_take_each_call_less_the_one_before_it_pairwise():
    """``@nop`` less the barrier and ``@ar_S`` less ``@nop``, as medians of per-turn pairs."""
    barrier, nop = [10.0, 50.0, 12.0], [30.0, 70.0, 32.0]
    times = calibration.mpi_collective_times(barrier, nop, [[40.0, 90.0, 45.0]], [4096])
    assert times == {"nop": pytest.approx(20.0), "4096": pytest.approx(13.0)}


def test_the_mpi_collectives_fit_the_two_rank_ring_and_keep_the_call_cost():
    """``fit_mpi_collectives``: one all_reduce per size (a call less @nop) on the 2-rank ring
    2(α + S/(2β)) gives α, β and a table of one step per size; @nop is the call cost."""
    alpha, beta = 6.0, 2.5  # µs, GB/s
    sizes = (3 << 12, 3 << 16, 3 << 20)
    times = {"nop": 19.0, **{str(s): 2 * (alpha + s / (2 * beta * 1e3)) for s in sizes}}
    link, call_us = calibration.fit_mpi_collectives(times, sizes)
    assert call_us == 19.0
    assert (link.latency_us, link.bandwidth_gbps) == (pytest.approx(alpha), pytest.approx(beta))
    assert link.points == tuple((s // 2, pytest.approx(times[str(s)] / 2)) for s in sizes)


def test_a_compute_class_fits_its_flops_and_its_bytes():
    overhead, gflops, gbps = 5.0, 100.0, 10.0

    def us(flops, nbytes):
        return overhead + flops / (gflops * 1e3) + nbytes / (gbps * 1e3)
    shapes = [(2 * m * k * n, 4 * (m * k + k * n + m * n)) for m, k, n in
              ((64, 64, 64), (256, 256, 256), (16, 256, 256), (64, 256, 1024))]
    cost = kernel_costs({"matmul": [(f, us(f, b), b) for f, b in shapes]}).get("matmul")
    assert (cost.overhead_us, cost.rate, cost.byte_rate) == pytest.approx((overhead, gflops, gbps))
    # Times that do not grow with the bytes: the flops line alone.
    flat = calibration.fit_compute([(1e6, 20.0, 1e5), (2e6, 30.0, 1e3), (4e6, 50.0, 1e2)])
    assert flat == ClassCost(pytest.approx(10.0), pytest.approx(100.0))
    falling = calibration.fit_compute([(1e6, 15.0, 1e5), (2e6, 30.0, 1e3), (4e6, 50.0, 1e2)])
    assert falling.byte_rate is None and falling.rate > 0


def test_kernel_costs_fit_each_class_with_two_sizes_or_more():
    costs = kernel_costs({"matmul": [(1e6, 12.0), (3e6, 32.0)], "copy": [(1000, 3.0), (5000, 5.0)],
                          "conv": [(1e6, 9.0)]})
    assert costs.get("matmul") == ClassCost(pytest.approx(2.0), pytest.approx(100.0))  # 1e6 flop / 10 us
    assert costs.get("copy") == ClassCost(pytest.approx(2.5), pytest.approx(2.0))     # 4000 B / 2 us
    assert costs.get("conv") is None


def _calibration(mpi=None):
    kernels = KernelCosts((("matmul", ClassCost(2.0, 100.0)), ("copy", ClassCost(1.0, 20.0)),
                           ("elementwise", ClassCost(1.5, 10.0))))
    return Calibration([URI, URI, URI], {URI: kernels}, collective_link=LinkFit(50.0, 1.5, "fit"),
                       copy_link=LinkFit(3.0, 30.0, "copies"), mpi_link=mpi, mpi_note="skipped: no mpiexec",
                       call_us={3: 300.0}, mode="quick", seconds=4.0)


def test_a_calibration_is_a_topology_of_the_measured_figures():
    result = _calibration(LinkFit(20.0, 3.0, "ping-pong"))
    topology = Topology.from_yaml(result.yaml_text())
    assert [d.name for d in topology.devices] == ["cpu0", "cpu1", "cpu2"]
    assert topology.group("all") == ("cpu0", "cpu1", "cpu2")
    cpu1 = topology.device("cpu1")
    assert (cpu1.uri, cpu1.peak_gflops, cpu1.memory_gbps, cpu1.time_model) == (URI, 100.0, 20.0, "roofline")
    assert cpu1.kernels.dispatch_us("f_dispatch_0_matmul_8x8x8_f32", 1e6, 0) == pytest.approx(12.0)
    link = topology.link("cpu0", "cpu2")
    assert (link.latency_us, link.bandwidth_gbps) == (50.0, 1.5)
    assert (topology.link("cpu1", "host").latency_us, topology.link("cpu1", "host").bandwidth_gbps) == (1.0, 20.0)
    for links, expected in (("mpi", (20.0, 3.0)), ("copy", (3.0, 30.0))):
        link = Topology.from_yaml(result.yaml_text(links)).link("cpu0", "cpu1")
        assert (link.latency_us, link.bandwidth_gbps) == expected
    header = [line for line in result.yaml_text().splitlines() if line.startswith("#")]
    assert "collective links: latency 50 us, bandwidth 1.5 GB/s: fit" in header[6]
    assert "copy links: latency 3 us, bandwidth 30 GB/s: copies" in header[7]
    assert any("3 rank(s) 300 us" in line for line in header)
    assert topology.host.call_us == 300.0
    mpi_calls = _calibration(LinkFit(20.0, 3.0, "ping-pong"))
    mpi_calls.mpi_call_us = 25.0
    assert Topology.from_yaml(mpi_calls.yaml_text("mpi")).host.call_us == 25.0
    assert Topology.from_yaml(mpi_calls.yaml_text("copy")).host.call_us == 300.0
    with pytest.raises(InvalidArgumentError, match="no MPI link was measured: skipped: no mpiexec"):
        _calibration().topology_dict("mpi")
    with pytest.raises(InvalidArgumentError, match="links must be one of collective, copy, mpi"):
        _calibration().topology_dict("nvlink")


def test_mpi_is_skipped_with_the_reason_without_mpi4py(monkeypatch):
    monkeypatch.setattr(calibration.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(NotFoundError, match="mpi4py is not installed"):
        calibration.measure_mpi("quick", 1)


@pytest.mark.slow
def test_rt_calibrate_quick_writes_a_topology_that_simulates_this_host(tmp_path):
    mpi = pytest.importorskip("mpi4py", reason="--mpi needs the mpi extra") is not None
    out = tmp_path / "host.yaml"
    done = subprocess.run([sys.executable, "-m", "rt", "calibrate", "--quick", "--mpi", "-o", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert f"wrote {out}: 2 device(s)" in done.stdout and "MPI links: latency" in done.stdout and "MPI ping-pong: latency" in done.stdout
    text = out.read_text()
    assert text.startswith("# Written by `python -m rt calibrate` (quick")
    topology = Topology.load(out)
    for device in topology.devices:
        for kind in ("matmul", "elementwise", "reduction", "copy", "fill"):
            cost = device.kernels.get(kind)
            assert cost.rate > 0 and cost.overhead_us >= 0, (kind, cost)
        assert device.peak_gflops == device.kernels.get("matmul").rate
    link = topology.link("cpu0", "cpu1")
    assert mpi and link.latency_us >= 0 and link.bandwidth_gbps > 0
    # A program simulated on it takes the calibrated classes' times: one matmul dispatch.
    a = np.ones((64, 32), np.float32)
    text = """func.func @mm(%a: tensor<64x32xf32>, %b: tensor<32x64xf32>) -> tensor<64x64xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %m = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %m : tensor<64x64xf32>
}"""
    with rt.load(rt.compile(text, data_tiling=False), topology=out) as m:
        np.testing.assert_array_equal(m.mm(a, a.T), a @ a.T)
        busy = m.report()["devices"]["cpu0"]["busy_us"]
    # the matmul class's time of the dispatch's work: its flops and, where the fit kept a byte
    # term (gbps), the bytes of its bindings (a and b read, the 64x64 result written)
    nbytes = (64 * 32 + 32 * 64 + 64 * 64) * 4
    expected = topology.device("cpu0").kernels.get("matmul").time_us(2 * 64 * 64 * 32, nbytes)
    assert busy == pytest.approx(expected, abs=1e-3)


def test_in_process_links_measured_on_ranks_bound_to_cores():
    with calibration.Turns(1) as turns:
        timed = calibration.measure_local(calibration.DEFAULT_URI, 2, "quick", turns, bind="core")
        turns.run()
    link, call_us, gap_us = timed.value
    assert len(link.points) == len(calibration.LINK_SIZES["quick"])
    assert call_us > 0 and gap_us >= 0 and link.bandwidth_gbps > 0


@pytest.mark.parametrize("flags, message", [
    (["--devices=0"], "--devices=0: expected 1 to 64 devices"),
    (["--devices=foo://x"], "--devices (device 0): devices[0].uri: unknown HAL driver 'foo'"),
    (["--devices=a,,b"], "expected a count or device URIs separated by commas"),
    (["-o", "/nonexistent-folder/h.yaml"], "folder '/nonexistent-folder' does not exist"),
    (["--links=mpi"], "--links=mpi needs --mpi"),
    (["--bind-to=socket"], "invalid choice: 'socket'")])
def test_rt_calibrate_bad_arguments_are_clear(tmp_path, flags, message, capsys):
    from rt.cli import main

    argv = ["calibrate", *flags] + ([] if "-o" in flags else ["-o", str(tmp_path / "h.yaml")])
    assert main(argv) == 1
    assert message in capsys.readouterr().err
