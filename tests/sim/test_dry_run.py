"""Dry run (``rt.load(..., dry_run=True)``, ``--dry-run``): the same simulated times, memory
and link traffic as a computed run, no kernels, no device memory, results ``rt.NotComputed``,
out-of-memory predicted naming the device; solo collective transfers keep the link model."""
import os
import subprocess
import sys

import numpy as np
import pytest

import rt
from rt.runtime.hal.drivers.heap_allocator import VirtualHeapAllocator
from rt.runtime.sim.engine import Engine, Link

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "multi_device")

RING = """
shard.grid @grid(shape = {n})
func.func @ar(%x: tensor<{count}xf32>) -> tensor<{count}xf32> {{
  %r = shard.all_reduce %x on @grid grid_axes = [0] : tensor<{count}xf32> -> tensor<{count}xf32>
  return %r : tensor<{count}xf32>
}}
func.func @rank() -> index {{
  %i = shard.process_linear_index on @grid : index
  return %i : index
}}
"""


def _ring(n, memory="1GiB"):
    return {"name": f"ring{n}",
            "devices": [{"name": f"g{r}", "uri": "local-sync://llvm-cpu", "memory": memory,
                         "peak_gflops": 100, "memory_gbps": 200} for r in range(n)],
            "links": [{"between": [f"g{r}", f"g{(r + 1) % n}"], "bandwidth_gbps": 50,
                       "latency_us": 2} for r in range(n)]}


@pytest.fixture(scope="module")
def tp_mlp():
    with open(os.path.join(EXAMPLES, "tp_mlp.mlir"), encoding="utf-8") as f:
        return rt.compile(f.read(), devices=["llvm-cpu"])


def _tp_inputs():
    rng = np.random.default_rng(3)
    return [[rng.integers(-2, 3, s).astype(np.float32) for s in ((8, 64), (64, 32), (32,), (32, 16), (16,))]
            for _ in range(4)]


def test_dry_run_times_memory_and_traffic_equal_the_computed_run(tp_mlp):
    topo = os.path.join(EXAMPLES, "tp4.yaml")
    args = _tp_inputs()
    with rt.load(tp_mlp, topology=topo, ranks=4, deterministic=True) as real:
        computed = real.mlp.spmd(args)
        expected = real.report()
    with rt.load(tp_mlp, topology=topo, ranks=4, deterministic=True, dry_run=True) as dry:
        placeholders = dry.mlp.spmd(args)
        report = dry.report()
    assert computed[0].shape == (8, 16) and computed[0].dtype == np.float32
    assert placeholders == [rt.NotComputed((8, 16), np.float32)] * 4
    assert (report["dry_run"], expected["dry_run"]) == (True, False)
    del report["dry_run"], expected["dry_run"]
    assert report == expected
    assert report["makespan_us"] == pytest.approx(12.436, abs=1e-3)   # docs/MULTI_DEVICE.md §6
    assert report["devices"]["gpu0"]["peak_bytes"] == expected["devices"]["gpu0"]["peak_bytes"] > 0


def test_dry_run_of_a_pipeline_with_transfers_equals_the_computed_run():
    """Two stages joined by flow.tensor.transfer (queue copies between devices): the same
    times, link bytes and peak bytes (buffers held by queued work die at the same time)."""
    vmfb = rt.compile(os.path.join(EXAMPLES, "pipeline.mlir"), devices=["stage0=llvm-cpu", "stage1=llvm-cpu"])
    args = [np.ones(s, np.float32) for s in ((16, 64), (16, 64), (64, 64), (64, 32))]
    reports = []
    for dry_run in (False, True):
        with rt.load(vmfb, topology=os.path.join(EXAMPLES, "pipeline2.yaml"), deterministic=True,
                     dry_run=dry_run) as m:
            results = m.pipeline(*args)
            reports.append(m.report())
        assert results[1].shape == (16, 32)
        assert isinstance(results[1], rt.NotComputed) == dry_run
    computed, dry = reports
    assert dry.pop("dry_run") and not computed.pop("dry_run")
    assert dry == computed
    assert dry["links"]["stage0-stage1"]["bytes"] > 0 and dry["devices"]["stage0"]["peak_bytes"] > 0


def test_many_ranks_ring_all_reduce_takes_the_closed_form_time():
    n, count = 64, 4096
    with rt.load(rt.compile(RING.format(n=n, count=count), devices=["llvm-cpu"]), topology=_ring(n),
                 ranks=n, dry_run=True) as m:
        results = m.ar.spmd([[rt.NotComputed((count,), np.float32)]] * n)
        report = m.report()
        assert [int(r) for r in m.rank.spmd([[]] * n)] == list(range(n))   # the VM's scalars are real
    assert results[n - 1] == rt.NotComputed((count,), np.float32)
    chunk = count * 4 // n
    assert report["makespan_us"] == pytest.approx(2 * (n - 1) * (2 + chunk / 50e3), abs=1e-3)
    assert report["links"]["g0-g1"]["bytes"] == 2 * (n - 1) * chunk
    assert all(d["busy_us"] == report["makespan_us"] for d in report["devices"].values())


def test_out_of_memory_is_predicted_naming_the_device(tp_mlp):
    small = _ring(4, memory="4KiB")
    small["devices"][2]["memory"] = "1KiB"
    with rt.load(tp_mlp, topology=small, ranks=4, dry_run=True) as m:
        with pytest.raises(rt.ResourceExhaustedError, match=r"g2: .*exceed the heap capacity of 1024 bytes"):
            m.mlp.spmd(_tp_inputs())


def test_heaps_have_no_memory_and_results_no_values(tp_mlp):
    with rt.load(tp_mlp, topology=os.path.join(EXAMPLES, "tp4.yaml"), ranks=4, dry_run=True) as m:
        device = m.ranks[0].devices[0]
        assert isinstance(device.allocator, VirtualHeapAllocator)
        buffer = device.allocator.allocate_buffer(256)
        assert device.allocator.query_statistics().bytes_live == 256
        with pytest.raises(rt.InvalidArgumentError, match="has no memory: .*dry run"):
            buffer.read()
        with pytest.raises(rt.InvalidArgumentError, match=r"allocation #\d+ has no memory \(a dry run"):
            memoryview(buffer.allocation)
        reserved = device.allocator.reserve_buffer(64)
        with pytest.raises(rt.InvalidArgumentError, match=r"allocation #\d+ is reserved"):
            memoryview(reserved.allocation)
        ys = m.mlp.spmd(_tp_inputs(), to_host=False)
        assert ys[1].shape == (8, 16)
        with pytest.raises(rt.InvalidArgumentError, match="has no memory"):
            ys[1].to_host()
    with pytest.raises(rt.InvalidArgumentError, match=r"8x16xf32=<not computed> has no values"):
        np.asarray(rt.NotComputed((8, 16), np.float32))


def test_not_computed_inputs_need_a_dry_run_and_bad_options_are_clear(tp_mlp):
    one = rt.compile(RING.format(n=1, count=4), devices=["llvm-cpu"])
    with rt.load(one) as m:
        with pytest.raises(rt.InvalidArgumentError, match="input 0 of @ar is rt.NotComputed.*dry_run=True"):
            m.ar(rt.NotComputed((4,), np.float32))
    with rt.load(one, dry_run=True) as m:
        assert m.ar(np.ones(4, np.float32)) == rt.NotComputed((4,), np.float32)
        with pytest.raises(rt.InvalidArgumentError, match="input 0 of @ar: expected tensor<4xf32>"):
            m.ar(rt.NotComputed((5,), np.float32))
    with pytest.raises(rt.InvalidArgumentError, match="dry_run must be True or False"):
        rt.load(one, dry_run="yes")
    from rt.runtime.hal.drivers.local_channel import LocalWorld

    with pytest.raises(rt.InvalidArgumentError, match="channel= runs real devices across processes"):
        rt.load(one, dry_run=True, channel=LocalWorld(1).provider(0))


@pytest.mark.parametrize("second_start", [0.5, 1.2, 1.9, 2.0, 3.5])
def test_a_solo_transfer_shared_later_ends_as_an_ordinary_one(second_start):
    """Link 1000 B/µs, 1 µs latency; a 1000 B transfer at 0 (solo or ordinary), another at
    ``second_start``: the same end times and busy time either way."""
    def run(solo):
        engine = Engine()
        link = Link(engine, "a -> b", bandwidth=1000.0, latency=1.0)
        ends = {}

        def first():
            if solo:
                t = link.start_solo(1000, lambda f: ends.__setitem__(0, engine.now))
                engine.at(t.end, (2,), lambda: link.finish_solo(t))
            else:
                link.transfer(1000, lambda f: ends.__setitem__(0, engine.now))
        engine.at(0.0, (0,), first)
        engine.at(second_start, (1,), lambda: link.transfer(1000, lambda f: ends.__setitem__(1, engine.now)))
        engine.run()
        return ends[0], ends[1], link.meter.busy_us

    solo, ordinary = run(True), run(False)
    assert solo == pytest.approx(ordinary, abs=1e-9)
    assert run(True)[0] == pytest.approx(2.0 if second_start >= 2.0 else ordinary[0])


def test_cli_dry_run_prints_not_computed_and_a_report(tmp_path):
    n = 8
    src = tmp_path / "ar.mlir"
    src.write_text(RING.format(n=n, count=64))
    lines = ["name: ring8", "devices:"] + [
        f"  - {{name: g{r}, uri: local-sync://llvm-cpu, memory: 1MiB}}" for r in range(n)] + ["links:"] + [
        f"  - {{between: [g{r}, g{(r + 1) % n}], bandwidth_gbps: 50, latency_us: 2}}" for r in range(n)]
    (tmp_path / "t.yaml").write_text("\n".join(lines) + "\n")
    out = subprocess.run([sys.executable, "-m", "rt", "run", str(src), f"--topology={tmp_path / 't.yaml'}",
                          f"--ranks={n}", "--dry-run", "--function=ar", "--input=64xf32", f"--report={tmp_path / 'r.json'}"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("64xf32=<not computed>") == n
    assert "(dry run: nothing computed)" in out.stdout
    import json

    report = json.loads((tmp_path / "r.json").read_text())
    assert report["dry_run"] is True
    assert report["makespan_us"] == pytest.approx(2 * (n - 1) * (2 + 32 / 50e3), abs=1e-3)
