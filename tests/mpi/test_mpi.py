"""Issue 12: collectives across processes on MPI (mpi4py + the mpich wheel, loopback).

Every case starts ranks with ``mpiexec -n N`` (2 and 4) from the test environment's bin/ and
checks what each rank wrote (see mpi_worker.py) against the reference semantics
(rt.runtime.hal.collective.compute, itself tested against numpy), against numpy, and against
the same module run in one process with ``--ranks=N``.
"""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import rt
from rt.runtime.hal.collective import CollectiveElementType as E
from rt.runtime.hal.collective import CollectiveOp, compute
from rt.runtime.hal.drivers.mpi_channel import UNRESPONSIVE_EXIT_CODE, mpiexec_path

pytest.importorskip("mpi4py", reason="the MPI tests need the test extra (mpi4py, mpich)")

sys.path.insert(0, str(Path(__file__).parent))
import mpi_worker  # noqa: E402

WORKER = Path(__file__).parent / "mpi_worker.py"
ROOT = Path(__file__).parents[2]
MPIEXEC = mpiexec_path()


def mpiexec(n, *args, env=None, timeout=240):
    """Run ``args`` on ``n`` ranks; the CompletedProcess (stdout and stderr as text)."""
    command = [str(MPIEXEC), "-n", str(n), *map(str, args)]
    environment = {**os.environ, **(env or {})}
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=environment,
                          cwd=ROOT)


def run_worker(n, scenario, tmp_path, env=None, returncode=0):
    done = mpiexec(n, sys.executable, WORKER, scenario, tmp_path, env=env)
    assert done.returncode == returncode, done.stdout + done.stderr
    return done


def outputs(tmp_path, scenario, n):
    return [np.load(tmp_path / f"{scenario}_{r}.npz") for r in range(n)]


def errors(tmp_path, scenario, n):
    return [(tmp_path / f"{scenario}_{r}.txt").read_text() for r in range(n)]


def check_every_kind_and_type(got, n):
    for kind, reduction in mpi_worker.CASES:
        for element_type in E:
            op = CollectiveOp(kind, reduction, element_type)
            sends = [mpi_worker.send_values(op, r, n) for r in range(n)]
            params = [mpi_worker.param(op, r, n) for r in range(n)]
            expected = compute(op, mpi_worker.COUNT, sends, params)
            key = f"{kind.name}.{reduction.name}.{element_type.name}"
            for r in range(n):
                if expected[r] is None:  # this rank receives nothing: its buffer is untouched
                    assert (got[r][key] == 77).all(), (key, r)
                else:
                    np.testing.assert_array_equal(got[r][key][:expected[r].size], expected[r],
                                                  err_msg=f"{key} rank {r} of {n}")


@pytest.mark.parametrize("n", [2, 4])
def test_every_collective_kind_and_element_type(tmp_path, n):
    run_worker(n, "hal", tmp_path)
    check_every_kind_and_type(outputs(tmp_path, "hal", n), n)


def test_local_ranks_nested_in_mpi_processes(tmp_path):
    """2 processes x 2 local ranks = 4 ranks: the same results as 4 ranks of one kind."""
    run_worker(2, "nested", tmp_path)
    check_every_kind_and_type(outputs(tmp_path, "nested", 4), 4)


def test_all_reduce_sum_is_numpys_sum(tmp_path):
    """The reference itself, once more against plain numpy, for the f32 sum on 4 ranks."""
    n = 4
    run_worker(n, "hal", tmp_path)
    op = CollectiveOp(mpi_worker.K.ALL_REDUCE, mpi_worker.R.SUM, E.FLOAT_32)
    expected = np.sum([mpi_worker.send_values(op, r, n) for r in range(n)], axis=0)
    for out in outputs(tmp_path, "hal", n):
        np.testing.assert_array_equal(out["ALL_REDUCE.SUM.FLOAT_32"], expected)


@pytest.mark.parametrize("n", [2, 4])
def test_channel_split_is_mpi_comm_split(tmp_path, n):
    run_worker(n, "split", tmp_path)
    for r, out in enumerate(outputs(tmp_path, "split", n)):
        members = [m for m in range(n) if m % 2 == r % 2]
        # key = -rank: the sub-group ranks in reverse order of the world rank
        assert int(out["sub_count"]) == len(members)
        assert int(out["sub_rank"]) == sorted(members, reverse=True).index(r)
        assert int(out["sum"][0]) == sum(members)


@pytest.fixture(scope="module")
def collectives_program(tmp_path_factory):
    """tests/multi_device's collective program for each rank count, compiled once."""
    sys.path.insert(0, str(ROOT / "tests" / "multi_device"))
    from test_spmd_collectives import NAMES, _inputs, program

    def build(n):
        directory = tmp_path_factory.mktemp(f"program{n}")
        vmfb = rt.compile(program(n), devices=["llvm-cpu"])
        (directory / "program.vmfb").write_bytes(vmfb)
        inputs = [_inputs(n, r) for r in range(n)]
        for r in range(n):
            np.savez(directory / f"inputs_{r}.npz", **inputs[r])
        return directory, vmfb, inputs, NAMES

    return build


@pytest.mark.parametrize("n", [2, 4])
def test_compiled_module_gives_the_in_process_results(collectives_program, n):
    directory, vmfb, inputs, names = collectives_program(n)
    run_worker(n, "module", directory)
    got = outputs(directory, "module", n)
    with rt.load(vmfb, ranks=n) as m:
        for name in names:
            expected = m[name].spmd([[inputs[r][name]] for r in range(n)])
            for r in range(n):
                np.testing.assert_array_equal(got[r][name], expected[r], err_msg=f"@{name} rank {r}")
    assert [int(out["rank"]) for out in got] == list(range(n))


def _tp_inputs(directory):
    rng = np.random.default_rng(7)
    x = rng.standard_normal((8, 64)).astype(np.float32)
    w1 = rng.standard_normal((64, 128)).astype(np.float32)
    b1 = rng.standard_normal(128).astype(np.float32)
    w2 = rng.standard_normal((128, 16)).astype(np.float32)
    b2 = rng.standard_normal(16).astype(np.float32)
    np.save(directory / "x.npy", x)
    np.save(directory / "b2.npy", b2)
    for r in range(4):
        np.save(directory / f"w1_{r}.npy", w1[:, 32 * r:32 * r + 32])
        np.save(directory / f"b1_{r}.npy", b1[32 * r:32 * r + 32])
        np.save(directory / f"w2_{r}.npy", w2[32 * r:32 * r + 32])
    return np.maximum(x @ w1 + b1, 0) @ w2 + b2


def _tp_flags(directory, output="y"):
    d = directory
    return [f"--input=@{d}/x.npy", f"--input=@{d}/w1_{{rank}}.npy", f"--input=@{d}/b1_{{rank}}.npy",
            f"--input=@{d}/w2_{{rank}}.npy", f"--input=@{d}/b2.npy", f"--output=@{d}/{output}_{{rank}}.npy"]


@pytest.fixture(scope="module")
def tp_mlp(tmp_path_factory):
    directory = tmp_path_factory.mktemp("tp")
    vmfb = directory / "tp_mlp.vmfb"
    vmfb.write_bytes(rt.compile(str(ROOT / "examples" / "multi_device" / "tp_mlp.mlir"),
                                devices=["llvm-cpu"]))
    return directory, vmfb, _tp_inputs(directory)


def test_sharded_example_across_4_processes_equals_the_in_process_run(tp_mlp):
    directory, vmfb, expected = tp_mlp
    done = mpiexec(4, sys.executable, "-m", "rt", "run", vmfb, "--function=mlp", "--channel=mpi",
                   *_tp_flags(directory))
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("EXEC @mlp on 4 MPI rank(s)\nrank 0:\nrank 1:\nrank 2:\nrank 3:")
    local = subprocess.run([sys.executable, "-m", "rt", "run", str(vmfb), "--function=mlp",
                            "--ranks=4", *_tp_flags(directory, "local")],
                           capture_output=True, text=True, cwd=ROOT, timeout=240)
    assert local.returncode == 0, local.stderr
    for r in range(4):
        y = np.load(directory / f"y_{r}.npy")
        np.testing.assert_allclose(y, expected, rtol=1e-4, atol=1e-4)
        np.testing.assert_array_equal(y, np.load(directory / f"local_{r}.npy"))


def test_sharded_example_on_2_processes_of_2_local_ranks(tp_mlp):
    directory, vmfb, expected = tp_mlp
    done = mpiexec(2, sys.executable, "-m", "rt", "run", vmfb, "--function=mlp", "--channel=mpi",
                   "--ranks=2", *_tp_flags(directory, "nested"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("EXEC @mlp on 4 rank(s) in 2 MPI processes\nrank 0:\nrank 1:\n"
                                  "rank 2:\nrank 3:")
    for r in range(4):
        np.testing.assert_allclose(np.load(directory / f"nested_{r}.npy"), expected, rtol=1e-4, atol=1e-4)


def test_a_failing_rank_fails_the_others_with_its_cause(tp_mlp, tmp_path):
    directory, vmfb, _ = tp_mlp
    flags = _tp_flags(directory)
    for r in (0, 2, 3):  # the example's grid has 4 processes (a load-time check)
        np.save(tmp_path / f"w1_{r}.npy", np.load(directory / f"w1_{r}.npy"))
    np.save(tmp_path / "w1_1.npy", np.zeros((64, 31), np.float32))  # rank 1: a wrong shape
    flags[1] = f"--input=@{tmp_path}/w1_{{rank}}.npy"
    done = mpiexec(4, sys.executable, "-m", "rt", "run", vmfb, "--function=mlp", "--channel=mpi",
                   *flags, timeout=120)
    assert done.returncode == 1  # FAILED_EXIT_CODE: the failed rank ends the job with MPI_Abort
    assert "input 1 of @mlp: expected tensor<64x32xf32>" in done.stderr
    # rank 0 was waiting in the all_reduce: it names rank 1 and its cause instead of hanging
    assert "rank 1 failed: input 1 of @mlp" in done.stderr


def test_mismatched_collectives_are_reported_on_every_rank(tmp_path):
    run_worker(2, "mismatch", tmp_path)
    for text in errors(tmp_path, "mismatch", 2):
        assert text.startswith("DeviceError: collectives on channel 'mpi:' do not match")
        assert "rank 0 runs #0 all_reduce with sum : f32 x8" in text
        assert "rank 1 runs #0 all_reduce with sum : f32 x4" in text


def test_a_collective_nobody_joins_ends_at_the_deadline(tmp_path):
    # a deadline means a peer may never answer: the job ends with MPI_Abort (exit code 4)
    done = run_worker(2, "timeout", tmp_path, env={"RT_MPI_TIMEOUT": "2"},
                      returncode=UNRESPONSIVE_EXIT_CODE)
    assert "MPI_Abort(MPI_COMM_WORLD, 4)" in done.stdout + done.stderr
    text = (tmp_path / "timeout_0.txt").read_text()
    assert text.startswith("DeadlineExceededError: collective all_reduce with sum : f32 x4")
    assert "within 2 s" in text
    assert not (tmp_path / "timeout_1.txt").exists()


def test_a_killed_rank_ends_the_job_without_a_hang(tmp_path):
    done = mpiexec(2, sys.executable, WORKER, "kill", tmp_path, timeout=120)
    assert done.returncode != 0
    assert "BAD TERMINATION" in done.stdout + done.stderr
    assert "signal 9" in done.stdout + done.stderr


def test_rt_load_channel_mpi_without_mpiexec_is_one_rank(tmp_path, collectives_program):
    """A singleton MPI process: the module runs as rank 0 of 1."""
    directory, _, _, _ = collectives_program(1)
    code = ("import numpy as np, rt\n"
            f"m = rt.load({str(directory / 'program.vmfb')!r}, channel='mpi')\n"
            "x = np.arange(7, dtype=np.float32)\n"
            "print(int(m.rank()), m.sum_f32(x).tolist())\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[0] == "0 [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0]"


def test_bad_channel_arguments_are_clear_errors(collectives_program):
    _, vmfb, _, _ = collectives_program(1)
    with pytest.raises(rt.InvalidArgumentError, match="channel must be None, 'mpi' or a ChannelProvider"):
        rt.load(vmfb, channel="nccl")
