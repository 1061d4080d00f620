"""A module whose shard grid has N processes loads only on N ranks: on any other rank count
its collectives would silently gather or reduce over the wrong processes, so the initializer
iree-convert-shard-to-flow adds fails the load on every rank, naming the grid and the fix."""
import numpy as np
import pytest

import rt

PROGRAM = """
shard.grid @grid(shape = 2)
func.func @total(%x: tensor<5xf32>) -> tensor<5xf32> {
  %r = shard.all_reduce %x on @grid grid_axes = [0] : tensor<5xf32> -> tensor<5xf32>
  return %r : tensor<5xf32>
}
"""


@pytest.fixture(scope="module")
def vmfb():
    return rt.compile(PROGRAM, devices=["llvm-cpu"])


@pytest.mark.parametrize("ranks", [None, 1, 3])
def test_a_grid_on_the_wrong_rank_count_fails_to_load_naming_the_grid(vmfb, ranks):
    with pytest.raises(rt.RtError, match=r"shard.grid @grid of shape 2 runs on 2 rank\(s\), but its "
                                         r"channel has another rank count: load it with ranks=2"):
        rt.load(vmfb, ranks=ranks)


def test_the_right_rank_count_loads_and_runs(vmfb):
    xs = [np.arange(5, dtype=np.float32) * (r + 1) for r in range(2)]
    with rt.load(vmfb, ranks=2) as m:
        for got in m.total.spmd([[x] for x in xs]):
            np.testing.assert_array_equal(got, xs[0] + xs[1])
