"""rt.spmd.RankThreads: an SPMD module's ranks keep their threads between calls (rank 0 on the
caller, rank r >= 1 on ``rt rank r``), errors come back after every rank finished, a call that
finds the pool busy gets fresh threads, and ``close()`` ends the threads."""
import threading

import numpy as np
import pytest

import rt
from rt.spmd import RankThreads


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
