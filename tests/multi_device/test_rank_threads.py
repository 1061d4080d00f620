"""rt.spmd.RankThreads: an SPMD module's ranks keep their threads between calls (rank 0 on the
caller, rank r >= 1 on ``rt rank r``), errors come back after every rank finished, a call that
finds the pool busy gets fresh threads, and ``close()`` ends the threads."""
import os
import threading

import numpy as np
import pytest

import rt
from rt.runtime.errors import InvalidArgumentError
from rt.spmd import RankThreads

CPUS = sorted(os.sched_getaffinity(0))


def test_run_calls_every_rank_on_its_own_persistent_thread():
    pool = RankThreads(3)
    seen = []
    for _ in range(3):
        names = [None] * 3
        pool.run(lambda r: names.__setitem__(r, (threading.current_thread().name,
                                                  threading.get_ident())))
        seen.append(names)
    pool.close()
    caller = (threading.current_thread().name, threading.get_ident())
    assert all(names[0] == caller for names in seen)
    assert [n for n, _ in seen[0][1:]] == ["rt rank 1", "rt rank 2"]
    assert seen[0] == seen[1] == seen[2]
    assert len({ident for _, ident in seen[0]}) == 3


def test_close_ends_the_threads():
    pool = RankThreads(4)
    pool.run(lambda r: None)
    threads = list(pool._slots.threads)
    assert all(t.is_alive() for t in threads)
    pool.close()
    assert not any(t.is_alive() for t in threads)
    pool.close()  # twice is harmless


def test_an_escaped_exception_is_raised_after_every_rank_finished_and_forgotten():
    pool = RankThreads(3)
    finished = []

    def fn(r):
        if r == 1:
            raise ValueError("rank 1")
        finished.append(r)
    with pytest.raises(ValueError, match="rank 1"):
        pool.run(fn)
    assert sorted(finished) == [0, 2]
    pool.run(lambda r: None)  # the next call does not see the old error
    pool.close()


def test_a_call_from_inside_a_rank_gets_fresh_threads():
    pool = RankThreads(2)
    inner = []

    def outer(r):
        if r == 1:
            pool.run(lambda k: inner.append((k, threading.current_thread().name)))
    pool.run(outer)
    pool.close()
    assert sorted(inner) == [(0, "rt rank 0"), (1, "rt rank 1")]


def test_one_rank_runs_on_the_caller():
    pool = RankThreads(1)
    where = []
    pool.run(lambda r: where.append((r, threading.get_ident())))
    assert where == [(0, threading.get_ident())]
    assert pool._slots is None


PROGRAM = """
shard.grid @g(shape = 2)
func.func @sum(%x: tensor<3xf32>) -> tensor<3xf32> {
  %r = shard.all_reduce %x on @g grid_axes = [0] : tensor<3xf32> -> tensor<3xf32>
  return %r : tensor<3xf32>
}
"""


def test_spmd_module_calls_reuse_the_threads_it_loaded_on_and_close_ends_them():
    module = rt.load(rt.compile(PROGRAM, devices=["llvm-cpu"]), ranks=2)
    before = {t.ident for t in threading.enumerate()}
    x = [[np.arange(3, dtype=np.float32)], [np.full(3, 10, np.float32)]]
    for _ in range(5):
        out = module.sum.spmd(x)
        np.testing.assert_array_equal(out[0], [10, 11, 12])
        np.testing.assert_array_equal(out[1], [10, 11, 12])
    assert {t.ident for t in threading.enumerate()} == before
    threads = list(module.threads._slots.threads)
    module.close()
    assert not any(t.is_alive() for t in threads)


def test_bind_core_puts_rank_r_threads_on_cpu_r_mod_n_and_leaves_the_caller_alone():
    vmfb = rt.compile(PROGRAM.replace("shape = 2", "shape = 3"), devices=["llvm-cpu"])
    before = os.sched_getaffinity(0)
    with rt.load(vmfb, ranks=3, devices=["local-task://llvm-cpu?threads=1"], bind="core") as module:
        x = [[np.full(3, r, np.float32)] for r in range(3)]
        for out in module.sum.spmd(x):
            np.testing.assert_array_equal(out, [3, 3, 3])
        for rank, loaded in enumerate(module.ranks):
            (queue,) = loaded.devices[0].queue_threads
            assert os.sched_getaffinity(queue.native_id) == {CPUS[rank % len(CPUS)]}
        for thread in module.threads._slots.threads:
            rank = int(thread.name.rsplit(" ", 1)[1])
            assert os.sched_getaffinity(thread.native_id) == {CPUS[rank % len(CPUS)]}
    assert os.sched_getaffinity(0) == before


@pytest.mark.parametrize("kwargs, message", [
    ({"ranks": 2, "bind": "socket"}, 'bind must be None or "core", got \'socket\''),
    ({"bind": "core"}, "give ranks=N too"),
    ({"ranks": 2, "bind": "core", "dry_run": True}, "runs its devices on virtual time"),
])
def test_bind_is_checked(kwargs, message):
    with pytest.raises(InvalidArgumentError, match=message):
        rt.load(rt.compile(PROGRAM, devices=["llvm-cpu"]), **kwargs)
