"""SPMD programs with collectives, end to end: upstream ``shard`` and IREE ``flow`` input,
compiled once per rank count, run on 1, 2, 3, 4 and 8 ranks (real local devices and a
simulated topology), against numpy. Sizes are not multiples of the rank count where the
collective allows it. IREE's tests/e2e/collectives cases are the reference for semantics."""
import numpy as np
import pytest

import rt
from rt.runtime.errors import DeviceError

RANKS = [1, 2, 3, 4, 8]


def program(n):
    """One module with a function per collective for an n-process grid."""
    b = 3 * n
    return f"""
shard.grid @grid(shape = {n})
func.func @sum_f32(%x: tensor<7xf32>) -> tensor<7xf32> {{
  %r = shard.all_reduce %x on @grid grid_axes = [0] : tensor<7xf32> -> tensor<7xf32>
  return %r : tensor<7xf32>
}}
func.func @max_i32(%x: tensor<5xi32>) -> tensor<5xi32> {{
  %r = shard.all_reduce %x on @grid grid_axes = [0] reduction = max : tensor<5xi32> -> tensor<5xi32>
  return %r : tensor<5xi32>
}}
func.func @min_f16(%x: tensor<3xf16>) -> tensor<3xf16> {{
  %r = shard.all_reduce %x on @grid grid_axes = [0] reduction = min : tensor<3xf16> -> tensor<3xf16>
  return %r : tensor<3xf16>
}}
func.func @product_i8(%x: tensor<6xi8>) -> tensor<6xi8> {{
  %r = shard.all_reduce %x on @grid grid_axes = [0] reduction = product : tensor<6xi8> -> tensor<6xi8>
  return %r : tensor<6xi8>
}}
func.func @gather(%x: tensor<2x5xf32>) -> tensor<2x{5 * n}xf32> {{
  %r = shard.all_gather %x on @grid grid_axes = [0] gather_axis = 1 : tensor<2x5xf32> -> tensor<2x{5 * n}xf32>
  return %r : tensor<2x{5 * n}xf32>
}}
func.func @scatter(%x: tensor<{b}x2xi64>) -> tensor<3x2xi64> {{
  %r = shard.reduce_scatter %x on @grid grid_axes = [0] scatter_axis = 0 : tensor<{b}x2xi64> -> tensor<3x2xi64>
  return %r : tensor<3x2xi64>
}}
func.func @to_all(%x: tensor<{2 * n}x3xf32>) -> tensor<2x{3 * n}xf32> {{
  %r = shard.all_to_all %x on @grid grid_axes = [0] split_axis = 0 concat_axis = 1
      : tensor<{2 * n}x3xf32> -> tensor<2x{3 * n}xf32>
  return %r : tensor<2x{3 * n}xf32>
}}
func.func @rank() -> index {{
  %i = shard.process_linear_index on @grid : index
  return %i : index
}}
func.func @shift(%x: tensor<4xf32>) -> tensor<4xf32> {{
  %ch = flow.channel.default : !flow.channel
  %r = flow.channel.rank %ch : index
  %n = flow.channel.count %ch : index
  %c1 = arith.constant 1 : index
  %next0 = arith.addi %r, %c1 : index
  %next = arith.remui %next0, %n : index
  %prev0 = arith.addi %r, %n : index
  %prev1 = arith.subi %prev0, %c1 : index
  %prev = arith.remui %prev1, %n : index
  %e = tensor.empty() : tensor<4xf32>
  %y = flow.collective.send_recv f32, %e, %x, %ch, %next, %prev
      : (tensor<4xf32>, tensor<4xf32>, !flow.channel, index, index) -> %e as tensor<4xf32>
  return %y : tensor<4xf32>
}}
"""


@pytest.fixture(scope="module")
def modules():
    return {n: rt.compile(program(n), devices=["llvm-cpu"]) for n in RANKS}


def _inputs(n, rank):
    rng = np.random.default_rng(rank)
    return {
        "sum_f32": rng.integers(-9, 9, 7).astype(np.float32),
        "max_i32": rng.integers(-100, 100, 5).astype(np.int32),
        "min_f16": rng.integers(-50, 50, 3).astype(np.float16),
        "product_i8": rng.choice([1, 2, -1], 6).astype(np.int8),
        "gather": rng.integers(0, 9, (2, 5)).astype(np.float32),
        "scatter": rng.integers(-9, 9, (3 * n, 2)).astype(np.int64),
        "to_all": rng.integers(0, 99, (2 * n, 3)).astype(np.float32),
        "shift": np.full(4, rank, np.float32),
    }


def _check(n, name, results, inputs):
    xs = [inputs[r][name] for r in range(n)]
    if name in ("sum_f32", "max_i32", "min_f16", "product_i8"):
        fn = {"sum_f32": np.add, "max_i32": np.maximum, "min_f16": np.minimum, "product_i8": np.multiply}[name]
        expected = xs[0]
        for x in xs[1:]:
            expected = fn(expected, x)
        for got in results:
            np.testing.assert_array_equal(got, expected)
    elif name == "gather":
        for got in results:
            np.testing.assert_array_equal(got, np.concatenate(xs, axis=1))
    elif name == "scatter":
        total = np.sum(xs, axis=0)
        for r, got in enumerate(results):
            np.testing.assert_array_equal(got, total[3 * r:3 * r + 3])
    elif name == "to_all":
        for r, got in enumerate(results):
            np.testing.assert_array_equal(got, np.concatenate([x[2 * r:2 * r + 2] for x in xs], axis=1))
    elif name == "shift":
        for r, got in enumerate(results):
            np.testing.assert_array_equal(got, np.full(4, (r - 1) % n, np.float32))


NAMES = ["sum_f32", "max_i32", "min_f16", "product_i8", "gather", "scatter", "to_all", "shift"]


@pytest.mark.parametrize("n", RANKS)
def test_collectives_on_real_devices(modules, n):
    inputs = [_inputs(n, r) for r in range(n)]
    with rt.load(modules[n], ranks=n) as m:
        assert [int(v) for v in m.rank.spmd([[]] * n)] == list(range(n))
        for name in NAMES:
            _check(n, name, m[name].spmd([[inputs[r][name]] for r in range(n)]), inputs)


@pytest.mark.parametrize("n", [2, 4])
def test_collectives_on_a_simulated_topology(modules, n):
    topo = {"devices": [{"name": f"gpu{r}", "uri": "local-sync://llvm-cpu", "peak_gflops": 10,
                         "memory_gbps": 10} for r in range(n)],
            "links": [{"between": [f"gpu{r}", f"gpu{(r + 1) % n}"], "bandwidth_gbps": 1, "latency_us": 1}
                      for r in range(n if n > 2 else 1)]}
    inputs = [_inputs(n, r) for r in range(n)]
    with rt.load(modules[n], topology=topo, ranks=n, deterministic=True) as m:
        for name in NAMES:
            _check(n, name, m[name].spmd([[inputs[r][name]] for r in range(n)]), inputs)
        report = m.report()
    assert report["makespan_us"] > 0 and all(l["bytes"] > 0 for l in report["links"].values())


def test_single_rank_module_runs_without_spmd(modules):
    with rt.load(modules[1]) as m:
        x = np.arange(7, dtype=np.float32)
        np.testing.assert_array_equal(m.sum_f32(x), x)
        np.testing.assert_array_equal(m.sum_f32.spmd([[x]])[0], x)


def test_a_failing_rank_fails_the_others_without_hanging(modules):
    n = 2
    with rt.load(modules[n], ranks=n) as m:
        with pytest.raises(rt.InvalidArgumentError, match="input 0 of @sum_f32"):
            m.sum_f32.spmd([[np.zeros(7, np.float32)], [np.zeros(6, np.float32)]])
        x = np.ones(7, np.float32)
        results = m.sum_f32.spmd([[x], [x]])
        np.testing.assert_array_equal(results[1], 2 * x)
        with pytest.raises(rt.InvalidArgumentError, match="runs on 2 rank"):
            m.sum_f32(x)
        with pytest.raises(rt.InvalidArgumentError, match="2 argument lists were given|1 argument lists"):
            m.sum_f32.spmd([[x]])


SKIPS_ON_RANK_1 = """
shard.grid @grid(shape = 2)
func.func @f(%x: tensor<4xf32>, %which: index) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %is0 = arith.cmpi eq, %which, %c0 : index
  %r = scf.if %is0 -> (tensor<4xf32>) {
    %a = shard.all_reduce %x on @grid grid_axes = [0] : tensor<4xf32> -> tensor<4xf32>
    scf.yield %a : tensor<4xf32>
  } else {
    scf.yield %x : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
"""


def test_mismatched_programs_across_ranks_fail_in_simulation():
    """Ranks that join different collectives: every rank fails, nothing hangs."""
    vmfb = rt.compile(SKIPS_ON_RANK_1, devices=["llvm-cpu"])
    topo = {"devices": [{"name": f"g{r}", "uri": "local-sync://llvm-cpu"} for r in range(2)],
            "links": [{"between": ["g0", "g1"], "bandwidth_gbps": 1}]}
    x = np.ones(4, np.float32)
    with rt.load(vmfb, topology=topo, ranks=2, deterministic=True) as m:
        with pytest.raises(DeviceError, match="never joined"):
            m.f.spmd([[x, 0], [x, 1]])
        np.testing.assert_array_equal(m.f.spmd([[x, 0], [x, 0]])[0], 2 * x)


@pytest.mark.parametrize("uri", ["local-task://llvm-cpu", "local-sync://llvm-cpu"])
def test_a_rank_that_skips_a_collective_is_named_and_the_next_call_works(uri):
    """Rank 1 returns without joining rank 0's all_reduce: rank 0's rendezvous (run by its
    queue thread without the GIL, or inline) fails naming rank 1, repeatedly, and a matching
    call afterwards computes."""
    vmfb = rt.compile(SKIPS_ON_RANK_1, devices=["llvm-cpu"])
    x = np.ones(4, np.float32)
    with rt.load(vmfb, ranks=2, devices=[uri]) as m:
        for _ in range(3):
            with pytest.raises(DeviceError, match=r"rank\(s\) 1 of 2 finished their call without "
                                                  r"joining it"):
                m.f.spmd([[x, 0], [x, 1]])
            np.testing.assert_array_equal(m.f.spmd([[x, 0], [x, 0]])[0], 2 * x)


SLOW_RANK = """
shard.grid @grid(shape = 2)
func.func @f(%x: tensor<4xf32>, %a: tensor<256x256xf32>, %n: index) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %a) -> (tensor<256x256xf32>) {
    %e = tensor.empty() : tensor<256x256xf32>
    %f = linalg.fill ins(%z : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
    %m = linalg.matmul ins(%acc, %a : tensor<256x256xf32>, tensor<256x256xf32>) outs(%f : tensor<256x256xf32>) -> tensor<256x256xf32>
    scf.yield %m : tensor<256x256xf32>
  }
  %s = tensor.extract_slice %r[0, 0] [1, 4] [1, 1] : tensor<256x256xf32> to tensor<4xf32>
  %y = arith.addf %x, %s : tensor<4xf32>
  %out = shard.all_reduce %y on @grid grid_axes = [0] : tensor<4xf32> -> tensor<4xf32>
  return %out : tensor<4xf32>
}
"""


def test_a_collective_waits_out_a_rank_that_arrives_much_later():
    """Rank 1 runs ~100 ms of matmuls before the all_reduce that rank 0 reaches at once: rank
    0's wait (on the caller's thread, which waits for a collective in 50 ms slices so that
    Ctrl-C can end it) outlasts several slices and the result is right."""
    vmfb = rt.compile(SLOW_RANK, devices=["llvm-cpu"])
    x, a = np.ones(4, np.float32), np.full((256, 256), 1e-3, np.float32)
    slow = a.astype(np.float64)
    for _ in range(300):
        slow = slow @ a
    expected = (x + a[0, :4]) + (x + slow[0, :4].astype(np.float32))
    with rt.load(vmfb, ranks=2, devices=["local-task://llvm-cpu?threads=1"]) as m:
        for _ in range(2):
            out = m.f.spmd([[x, a, 0], [x, a, 300]])
            for got in out:
                np.testing.assert_allclose(got, expected, rtol=1e-6)
