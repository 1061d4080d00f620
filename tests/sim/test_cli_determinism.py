"""``rt run --topology ... --deterministic``: two runs in two processes give byte-identical
results, traces and reports; the CLI flags for ranks, reports and faults."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import rt

SPMD = """
shard.grid @grid(shape = 4)
func.func @main(%x: tensor<8x6xf32>, %w: tensor<6x5xf32>) -> tensor<8x5xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x5xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<8x5xf32>) -> tensor<8x5xf32>
  %p = linalg.matmul ins(%x, %w : tensor<8x6xf32>, tensor<6x5xf32>) outs(%f : tensor<8x5xf32>) -> tensor<8x5xf32>
  %r = shard.all_reduce %p on @grid grid_axes = [0] : tensor<8x5xf32> -> tensor<8x5xf32>
  return %r : tensor<8x5xf32>
}
"""

TOPOLOGY = """\
name: ring4
devices:
  - {name: gpu0, uri: "local-task://llvm-cpu", memory: 64MiB, peak_gflops: 50, memory_gbps: 20}
  - {name: gpu1, uri: "local-task://llvm-cpu", memory: 64MiB, peak_gflops: 50, memory_gbps: 20}
  - {name: gpu2, uri: "local-sync://llvm-cpu", memory: 64MiB, peak_gflops: 50, memory_gbps: 20}
  - {name: gpu3, uri: "local-sync://llvm-cpu", memory: 64MiB, peak_gflops: 50, memory_gbps: 20}
links:
  - {between: [gpu0, gpu1], bandwidth_gbps: 2, latency_us: 1}
  - {between: [gpu1, gpu2], bandwidth_gbps: 2, latency_us: 1}
  - {between: [gpu2, gpu3], bandwidth_gbps: 2, latency_us: 1}
  - {between: [gpu3, gpu0], bandwidth_gbps: 2, latency_us: 1}
groups:
  all: [gpu0, gpu1, gpu2, gpu3]
"""


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("det")
    (d / "m.vmfb").write_bytes(rt.compile(SPMD, devices=["llvm-cpu"]))
    (d / "t.yaml").write_text(TOPOLOGY)
    rng = np.random.default_rng(0)
    for r in range(4):
        np.save(d / f"x_{r}.npy", rng.standard_normal((8, 6)).astype(np.float32))
        np.save(d / f"w_{r}.npy", rng.standard_normal((6, 5)).astype(np.float32))
    return d


def _rt(*args, cwd):
    env = dict(os.environ, PYTHONHASHSEED="random")
    return subprocess.run([sys.executable, "-m", "rt", *args], capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=300)


def _run(files, tag, *extra):
    return _rt("run", "m.vmfb", "--topology=t.yaml", "--ranks=4", "--deterministic", "--input=@x_{rank}.npy",
               "--input=@w_{rank}.npy", f"--output=@y{tag}_{{rank}}.npy", f"--trace=trace{tag}.json",
               f"--report=report{tag}.json", *extra, cwd=files)


def test_two_runs_in_two_processes_are_byte_identical(files):
    first, second = _run(files, "a"), _run(files, "b")
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    assert first.stdout == second.stdout
    for name in ("trace{}.json", "report{}.json") + tuple(f"y{{}}_{r}.npy" for r in range(4)):
        assert (files / name.format("a")).read_bytes() == (files / name.format("b")).read_bytes(), name
    xs = [np.load(files / f"x_{r}.npy") for r in range(4)]
    ws = [np.load(files / f"w_{r}.npy") for r in range(4)]
    expected = sum(x @ w for x, w in zip(xs, ws))
    for r in range(4):
        np.testing.assert_allclose(np.load(files / f"ya_{r}.npy"), expected, rtol=1e-5, atol=1e-5)
    report = json.loads((files / "reporta.json").read_text())
    assert report["topology"] == "ring4" and report["deterministic"] and report["makespan_us"] > 0
    assert set(report["devices"]) == {"gpu0", "gpu1", "gpu2", "gpu3"}
    assert all(link["bytes"] > 0 for link in report["links"].values())
    assert "simulated on ring4: makespan" in first.stdout and "gpu3" in first.stdout


def test_cli_errors_name_what_is_wrong(files):
    (files / "bad.yaml").write_text("devices:\n  - name: gpu0\n    uri: local-sync://llvm-cpu\n    memory: x\n")
    bad = _rt("run", "m.vmfb", "--topology=bad.yaml", "--ranks=4", cwd=files)
    assert bad.returncode == 1 and "bad.yaml:4: devices[0].memory: expected a size" in bad.stderr
    fault = _rt("run", "m.vmfb", "--topology=t.yaml", "--ranks=4", "--inject=device=gpu9,fail_at=1",
                "--input=@x_{rank}.npy", "--input=@w_{rank}.npy", cwd=files)
    assert fault.returncode == 1 and "no device 'gpu9'" in fault.stderr
    failing = _rt("run", "m.vmfb", "--topology=t.yaml", "--ranks=4", "--deterministic",
                  "--inject=device=gpu2,fail_at=1", "--input=@x_{rank}.npy", "--input=@w_{rank}.npy",
                  cwd=files)
    assert failing.returncode == 1 and "injected fault 'device=gpu2,fail_at=1'" in failing.stderr
    same = _rt("run", "m.vmfb", "--ranks=4", "--input=@x_0.npy", "--input=@w_0.npy", cwd=files)
    assert same.returncode == 1 and "{rank}" in same.stderr


def test_bind_to_core_runs_real_ranks_bound_and_is_checked(files):
    bound = _rt("run", "m.vmfb", "--ranks=4", "--bind-to=core", "--input=@x_{rank}.npy",
                "--input=@w_{rank}.npy", "--output=@yb_{rank}.npy", cwd=files)
    assert bound.returncode == 0, bound.stderr
    xs = [np.load(files / f"x_{r}.npy") for r in range(4)]
    ws = [np.load(files / f"w_{r}.npy") for r in range(4)]
    expected = sum(x @ w for x, w in zip(xs, ws))
    for r in range(4):
        np.testing.assert_allclose(np.load(files / f"yb_{r}.npy"), expected, rtol=1e-5)
    alone = _rt("run", "m.vmfb", "--bind-to=core", cwd=files)
    assert alone.returncode == 1 and "--bind-to=core binds SPMD ranks' threads" in alone.stderr
    simulated = _rt("run", "m.vmfb", "--topology=t.yaml", "--ranks=4", "--bind-to=core",
                    "--input=@x_{rank}.npy", "--input=@w_{rank}.npy", cwd=files)
    assert simulated.returncode == 1 and "virtual time" in simulated.stderr


def test_benchmark_reports_the_simulated_time_per_call(files):
    (files / "one.vmfb").write_bytes(rt.compile(SPMD.replace("shape = 4", "shape = 1"), devices=["llvm-cpu"]))
    out = _rt("benchmark", "one.vmfb", "--topology=t.yaml", "--deterministic", "--repetitions=3",
              "--warmup=0", "--input=@x_0.npy", "--input=@w_0.npy", "--json=bench.json",
              "--report=bench_report.json", cwd=files)
    assert out.returncode == 0, out.stderr
    bench = json.loads((files / "bench.json").read_text())
    report = json.loads((files / "bench_report.json").read_text())
    assert bench["repetitions"] == 3 and bench["simulated_min_us"] == bench["simulated_max_us"] > 0
    assert abs(3 * bench["simulated_median_us"] - report["makespan_us"]) < 0.01
    row = next(line for line in out.stdout.splitlines() if line.startswith("BM_main/simulated_time_median"))
    assert row.split()[1:] == [f"{bench['simulated_median_us']:.3f}", "us", "3"]
