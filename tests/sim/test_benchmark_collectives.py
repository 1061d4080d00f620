"""``rt benchmark-collectives``: nccl-tests' columns (size, count, type, time, algbw, busbw),
simulated times equal to the α–β closed forms, measured runs on local ranks and MPI, the
``--collective-algorithm`` override of ``rt run``, and clear errors for bad flags."""
import json
import os
import re
import subprocess
import sys

import pytest

import rt
from rt.cli import main

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
FC8 = """\
name: fc8
dims:
  - {size: 8, kind: fully_connected, bandwidth_gbps: 10, latency_us: 1, algorithm: ring}
device: {uri: 'local-sync://llvm-cpu'}
collectives: {algorithm: ring}
"""


def _bench(capsys, *flags):
    assert main(["benchmark-collectives", *flags]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = [line.split() for line in lines if not line.startswith("#")]
    return lines, rows


def test_simulated_sweep_prints_time_algbw_and_busbw_of_the_closed_form(tmp_path, capsys):
    """Ring all_reduce on 8 fully connected ranks (α = 1 µs, β = 1e4 B/µs): 14(α + S/(8β))
    (sizes that split into 8 whole chunks)."""
    topo = tmp_path / "fc8.yaml"
    topo.write_text(FC8)
    lines, rows = _bench(capsys, f"--topology={topo}", "--op=all_reduce", "--sizes=32:2M", "--step=4x")
    assert lines[0] == "# rt benchmark-collectives: all_reduce of float on 8 ranks, simulated on fc8 (ring)"
    assert [int(r[0]) for r in rows] == [32 * 4**i for i in range(9)]
    for size, count, dtype, redop, root, us, algbw, busbw, algorithm in rows:
        size, us = int(size), float(us)
        assert (int(count), dtype, redop, root, algorithm) == (size // 4, "float", "sum", "-1", "ring")
        assert us == pytest.approx(14 * (1 + size / 8 / 1e4), abs=1e-3)
        assert float(algbw) == pytest.approx(size / us / 1e3, abs=0.006)
        assert float(busbw) == pytest.approx(size / us / 1e3 * 14 / 8, abs=0.006)
    assert lines[-2].startswith("# Avg bus bandwidth    : ") and lines[-1].startswith("# 9 sizes in ")


def test_gather_sizes_count_the_n_blocks_and_the_algorithm_flag_overrides(tmp_path, capsys):
    topo = tmp_path / "fc8.yaml"
    topo.write_text(FC8)
    _, rows = _bench(capsys, f"--topology={topo}", "--op=all_gather", "--sizes=100:100",
                     "--algorithm=direct", "--dtype=int32")
    # 100 bytes = 25 int32 = 3 per rank (24 in all, 96 bytes); direct: α + b/β.
    assert rows == [["96", "3", "int32", "none", "-1", "1.001", "0.10", "0.08", "direct"]]


def test_an_astra_sim_network_file_and_a_step_in_bytes(tmp_path, capsys):
    net = tmp_path / "net.yml"
    net.write_text("topology: [ FullyConnected, Switch ]\nnpus_count: [ 2, 4 ]\n"
                   "bandwidth: [ 100.0, 25.0 ]\nlatency: [ 500.0, 1000.0 ]\n")
    lines, rows = _bench(capsys, f"--topology={net}", "--op=reduce_scatter", "--sizes=1K:3K", "--step=1K")
    assert "on 8 ranks, simulated on net (hierarchical)" in lines[0]
    assert [r[0] for r in rows] == ["1024", "2048", "3072"]
    assert all(r[-1].startswith("hierarchical(0:") for r in rows)


def test_real_runs_on_local_ranks_measure_the_channel(capsys):
    _, rows = _bench(capsys, "--real", "--ranks=3", "--op=broadcast", "--sizes=64:4K", "--step=8x",
                     "--iters=2", "--warmup=1")
    assert [(r[0], r[1], r[4], r[-1]) for r in rows] == [("64", "16", "0", "local"), ("512", "128", "0", "local"),
                                                         ("4096", "1024", "0", "local")]
    assert all(float(r[5]) > 0 for r in rows)


def test_real_runs_under_mpiexec_print_on_rank_0():
    pytest.importorskip("mpi4py", reason="the MPI run needs the test extra (mpi4py, mpich)")
    from rt.runtime.hal.drivers.mpi_channel import mpiexec_path

    done = subprocess.run([str(mpiexec_path()), "-n", "2", sys.executable, "-m", "rt", "benchmark-collectives",
                           "--real", "--channel=mpi", "--sizes=1K:8K", "--step=8x", "--iters=2"],
                          capture_output=True, text=True, timeout=240, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    rows = [line.split() for line in done.stdout.splitlines() if not line.startswith("#")]
    assert [(r[0], r[1], r[-1]) for r in rows] == [("1024", "256", "mpi"), ("8192", "2048", "mpi")]
    assert "all_reduce of float on 2 ranks, measured on MPI" in done.stdout


@pytest.mark.parametrize("flags, message", [
    (["--op=allreduce"], r"--op: unknown collective 'allreduce'; expected one of all_reduce, .*; did you mean all_reduce\?"),
    (["--sizes=8"], r"--sizes: expected MIN:MAX"),
    (["--sizes=0:1K"], r"--sizes: expected a size in bytes from 1 to 1T"),
    (["--sizes=8:2T"], r"--sizes: expected a size in bytes from 1 to 1T"),
    (["--sizes=1M:8"], r"--sizes: MAX \(8\) is below MIN \(1048576\)"),
    (["--step=1x"], r"--step: a factor must be above 1"),
    (["--step=fast"], r"--step \(Fx or bytes\): expected a size"),
    (["--sizes=1:1M", "--step=1"], r"more than 1000 sizes"),
    (["--sizes=1:16", "--op=all_gather"], r"--sizes=1:16: no size holds one float per block of the 8 ranks"),
    (["--dtype=complex"], r"--dtype: unknown type 'complex'; expected one of int8"),
    (["--ranks=9"], r"--ranks=9: topology 'fc8' has 8 devices in the group"),
    (["--algorithm=star"], r"collective algorithm 'star': expected one of ring, tree"),
    (["--algorithm=hierarchical", "--topology=examples/multi_device/tp4.yaml"],
     r"'hierarchical' needs a topology with dims"),
    (["--real"], r"--topology is for simulated runs"),
])
def test_bad_flags_are_clear(tmp_path, capsys, flags, message):
    topo = tmp_path / "fc8.yaml"
    topo.write_text(FC8)
    argv = ["benchmark-collectives", *flags]
    if not any(f.startswith("--topology") for f in flags):
        argv.append(f"--topology={topo}")
    os.chdir(ROOT)
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.startswith("rt benchmark-collectives: ")
    assert re.search(message, err), err


def test_bad_flags_without_a_topology(capsys):
    # rt exits at once on a failed --channel=mpi command (its MPI peers must not wait): a process.
    done = subprocess.run([sys.executable, "-m", "rt", "benchmark-collectives", "--channel=mpi"],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 1
    assert done.stderr == "rt benchmark-collectives: --channel=mpi measures a real run: add --real\n"
    assert main(["benchmark-collectives", "--op=all_reduce"]) == 1
    assert "a simulated benchmark needs --topology=T.yaml" in capsys.readouterr().err
    assert main(["benchmark-collectives", "--real", "--iters=0"]) == 1
    assert "--iters must be from 1 to 100000, got 0" in capsys.readouterr().err
    assert main(["benchmark-collectives", "--real", "--ranks=300"]) == 1
    assert "--ranks=300: --real runs local ranks as threads, at most 256" in capsys.readouterr().err
    assert main(["benchmark-collectives", "--topology=missing.yaml"]) == 1
    assert "cannot read topology file 'missing.yaml'" in capsys.readouterr().err


RING = """
shard.grid @grid(shape = 8)
func.func @ar(%x: tensor<4096xf32>) -> tensor<4096xf32> {
  %r = shard.all_reduce %x on @grid grid_axes = [0] : tensor<4096xf32> -> tensor<4096xf32>
  return %r : tensor<4096xf32>
}
"""


def test_run_takes_a_collective_algorithm_override(tmp_path, capsys):
    """The same program on fc8: ring 14(α + M/(8β)), direct 2(α + M/(8β)), M = 16 KiB."""
    topo, vmfb = tmp_path / "fc8.yaml", tmp_path / "ar.vmfb"
    topo.write_text(FC8)
    vmfb.write_bytes(rt.compile(RING, devices=["llvm-cpu"]))
    per_chunk = 1 + 4096 * 4 / 8 / 1e4
    for algorithm, steps in (("ring", 14), ("direct", 2)):
        report = tmp_path / f"{algorithm}.json"
        assert main(["run", str(vmfb), "--function=ar", f"--topology={topo}", "--ranks=8", "--dry-run",
                     "--input=4096xf32", f"--collective-algorithm={algorithm}", f"--report={report}"]) == 0
        got = json.loads(report.read_text())
        assert got["algorithm"] == algorithm
        assert got["makespan_us"] == pytest.approx(steps * per_chunk, abs=1e-3)
    capsys.readouterr()
    assert main(["run", str(vmfb), "--function=ar", "--ranks=8", "--dry-run", "--input=4096xf32",
                 "--collective-algorithm=ring"]) == 1
    assert "--collective-algorithm needs --topology" in capsys.readouterr().err
