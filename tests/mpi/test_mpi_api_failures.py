"""``rt.load(..., channel="mpi")`` from Python (issue 25, item 3): a rank whose input is rejected
posts its cause to the other ranks at once, as ``rt run --channel=mpi`` does, instead of leaving
them in their collective until ``RT_MPI_TIMEOUT`` and then blaming the wrong rank.

The job runs with ``RT_MPI_TIMEOUT=600`` under a 240 s test timeout: before the fix the waiting
ranks sat out the whole deadline, so the test failed by timing out."""
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import rt
from rt.runtime.hal.drivers.mpi_channel import mpiexec_path

pytest.importorskip("mpi4py", reason="the MPI tests need the test extra (mpi4py, mpich)")

ROOT = Path(__file__).parents[2]
PROGRAM = """shard.grid @grid(shape = {n})
func.func @sum_f32(%x: tensor<7xf32>) -> tensor<7xf32> {{
  %r = shard.all_reduce %x on @grid grid_axes = [0] : tensor<7xf32> -> tensor<7xf32>
  return %r : tensor<7xf32>
}}
"""
RANK = textwrap.dedent('''
    import sys
    import numpy as np
    import rt
    from mpi4py import MPI

    rank, bad, mode = MPI.COMM_WORLD.Get_rank(), int(sys.argv[3]), sys.argv[4]
    with rt.load(sys.argv[1], channel="mpi") as m:
        x = np.full(7 if rank != bad else 6, rank + 1, np.float32)
        try:
            if mode == "prepare":
                m.sum_f32.invoke(m.sum_f32.prepare(x))
            else:
                m.sum_f32(x)
            result = "ok"
        except rt.RtError as e:
            result = f"{type(e).__name__}: {e}"
    with open(f"{sys.argv[2]}/rank_{rank}.txt", "w") as f:
        f.write(result)
''')


@pytest.mark.parametrize("n, bad", [(2, 1), (4, 2)])
@pytest.mark.parametrize("mode", ["call", "prepare"])
def test_a_rejected_input_fails_every_rank_with_its_cause(tmp_path, n, bad, mode):
    vmfb = tmp_path / "m.vmfb"
    vmfb.write_bytes(rt.compile(PROGRAM.format(n=n), devices=["llvm-cpu"]))
    script = tmp_path / "rank.py"
    script.write_text(RANK)
    done = subprocess.run([str(mpiexec_path()), "-n", str(n), sys.executable, str(script), str(vmfb), str(tmp_path),
                           str(bad), mode], capture_output=True, text=True, timeout=240, cwd=ROOT,
                          env={**os.environ, "RT_MPI_TIMEOUT": "600"})
    assert done.returncode == 0, done.stdout + done.stderr
    texts = [(tmp_path / f"rank_{r}.txt").read_text() for r in range(n)]
    rejected = "input 0 of @sum_f32: expected tensor<7xf32>, got 6xf32"
    assert texts[bad].startswith("InvalidArgumentError: ") and rejected in texts[bad]
    for r in range(n):
        if r != bad:
            assert f"rank {bad} failed: " in texts[r] and rejected in texts[r], (r, texts[r])
