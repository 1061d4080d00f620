"""Independent dispatches of one command buffer run side by side (issue 10, item 4).

The compiler records no execution barrier between the dispatches of one concurrent region
(iree-stream-schedule-concurrency); on more than one thread, llvm-cpu's replay hands such a run
of dispatches to its worker pool as one job (IREE's task command buffer issuing a concurrent
region). Values are checked against numpy on both devices; that the dispatches were scheduled
together is read from the pool's job counters, not from timings. These heads are small enough
that the launcher runs them on the calling thread alone (its serial threshold, issue 22), so
the tests of the pool's grouping turn that threshold off.
"""
import numpy as np
import pytest

import rt
from rt.devices.llvm_cpu import _launcher

# Three independent ops on the arguments (two small matmuls and an elementwise exp), each with
# little parallelism, then one op that needs all three: one concurrent region, a barrier, one
# dispatch.
SOURCE = """
func.func @heads(%x: tensor<8x16xf32>, %w1: tensor<16x24xf32>, %w2: tensor<16x24xf32>,
                 %y: tensor<8x24xf32>) -> (tensor<8x24xf32>, tensor<8x24xf32>, tensor<8x24xf32>, tensor<8x24xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x24xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x24xf32>) -> tensor<8x24xf32>
  %a = linalg.matmul ins(%x, %w1 : tensor<8x16xf32>, tensor<16x24xf32>) outs(%f : tensor<8x24xf32>) -> tensor<8x24xf32>
  %b = linalg.matmul ins(%x, %w2 : tensor<8x16xf32>, tensor<16x24xf32>) outs(%f : tensor<8x24xf32>) -> tensor<8x24xf32>
  %c = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<8x24xf32>) outs(%e : tensor<8x24xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = math.exp %in : f32
    linalg.yield %v : f32
  } -> tensor<8x24xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>,
                                        affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%a, %b, %c : tensor<8x24xf32>, tensor<8x24xf32>, tensor<8x24xf32>) outs(%e : tensor<8x24xf32>) {
  ^bb0(%p: f32, %q: f32, %r: f32, %out: f32):
    %t = arith.subf %p, %q : f32
    %u = arith.addf %t, %r : f32
    linalg.yield %u : f32
  } -> tensor<8x24xf32>
  return %a, %b, %c, %s : tensor<8x24xf32>, tensor<8x24xf32>, tensor<8x24xf32>, tensor<8x24xf32>
}
"""

DEVICES = {"llvm-cpu": "local-task://llvm-cpu?threads=2", "vmvx": "local-sync://vmvx"}


@pytest.fixture
def split_every_dispatch():
    """Hand even the smallest dispatches to the pool (the launcher's serial threshold off)."""
    previous = _launcher.set_serial_threshold(0)
    yield
    _launcher.set_serial_threshold(previous)


def _inputs():
    rng = np.random.default_rng(7)
    return [rng.standard_normal(s).astype(np.float32) for s in ((8, 16), (16, 24), (16, 24), (8, 24))]


def _expected(x, w1, w2, y):
    a, b, c = x @ w1, x @ w2, np.exp(y)
    return a, b, c, a - b + c


@pytest.mark.parametrize("target", sorted(DEVICES))
def test_independent_dispatches_match_numpy(target, split_every_dispatch):
    module = rt.load(rt.compile(SOURCE, devices=[target]), devices=[DEVICES[target]])
    args = _inputs()
    jobs, dispatches = _launcher.concurrency_stats()
    for _ in range(3):  # repeated calls reuse the pool (and, if memoized, the command buffer)
        got = module.heads(*args)
        for g, want in zip(got, _expected(*args)):
            np.testing.assert_allclose(np.asarray(g), want, rtol=1e-5, atol=1e-5)
    if target == "llvm-cpu":
        # Data tiled: per call, the pack of x and the exp, then the two mmt4ds (reading the
        # weights and writing their results in place: form-dispatch-regions rule 5; each result
        # is read by the sum and returned, so no elementwise op fuses with its unpack).
        after = _launcher.concurrency_stats()
        assert (after[0] - jobs, after[1] - dispatches) == (3 * 2, 3 * 4)


def test_independent_dispatches_are_one_pool_job(split_every_dispatch):
    # Without data tiling each matmul is one dispatch (with it, the packs, the mmt4ds and the
    # unpacks form three concurrent regions of their own).
    module = rt.load(rt.compile(SOURCE, devices=["llvm-cpu"], data_tiling=False),
                     devices=[DEVICES["llvm-cpu"]])
    args = _inputs()
    jobs, dispatches = _launcher.concurrency_stats()
    got = module.heads(*args)
    jobs_after, dispatches_after = _launcher.concurrency_stats()
    np.testing.assert_allclose(np.asarray(got[3]), _expected(*args)[3], rtol=1e-5, atol=1e-5)
    # The three independent heads (two matmuls, the exp) went to the pool as one job; the sum
    # after the barrier ran alone.
    assert (jobs_after - jobs, dispatches_after - dispatches) == (1, 3)


def _assert_heads_run_without_pool_jobs(module):
    args = _inputs()
    before = _launcher.concurrency_stats()
    got = module.heads(*args)
    assert _launcher.concurrency_stats() == before
    for g, want in zip(got, _expected(*args)):
        np.testing.assert_allclose(np.asarray(g), want, rtol=1e-5, atol=1e-5)


def test_one_thread_runs_dispatches_one_by_one():
    _assert_heads_run_without_pool_jobs(rt.load(rt.compile(SOURCE, devices=["llvm-cpu"]),
                                                devices=["local-task://llvm-cpu?threads=1"]))


def test_small_dispatches_run_on_the_calling_thread():
    # Each head's estimated single-thread time (the compiler's flops and bytes) is far under
    # the launcher's serial threshold: no pool job, results unchanged.
    _assert_heads_run_without_pool_jobs(
        rt.load(rt.compile(SOURCE, devices=["llvm-cpu"], data_tiling=False),
                devices=[DEVICES["llvm-cpu"]]))
