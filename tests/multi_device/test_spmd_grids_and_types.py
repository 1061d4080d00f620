"""SPMD collectives through the compiler on both devices (llvm-cpu and vmvx), against numpy:

* multi-axis grids, the cases of IREE's tests/e2e/collectives (FourRanks): a 2x2 grid reduced
  along axis 1, along axis 0 and along both, a 1x2x1x2 grid reduced and all_to_all'd along
  axis 1, a gather along one axis (split channels: color = the index over the other axes,
  key = the index over the group's axes);
* every reduction kind (sum, product, min, max) on every element type the frontend has
  (i8, i16, i32, i64, f16, bf16, f32, f64), 3 ranks, 5 elements (not divisible by 3);
* IREE's flow spellings the shard dialect has no word for: ``average`` and an unsigned
  element type (``ui32`` over a signless tensor compares as unsigned).
"""
import ml_dtypes
import numpy as np
import pytest

import rt

DEVICES = ["llvm-cpu", "vmvx"]

GRIDS = """
shard.grid @g22(shape = 2x2)
shard.grid @g4(shape = 1x2x1x2)
func.func @along1(%x: tensor<3xf32>) -> tensor<3xf32> {
  %r = shard.all_reduce %x on @g22 grid_axes = [1] : tensor<3xf32> -> tensor<3xf32>
  return %r : tensor<3xf32>
}
func.func @along0(%x: tensor<3xf32>) -> tensor<3xf32> {
  %r = shard.all_reduce %x on @g22 grid_axes = [0] : tensor<3xf32> -> tensor<3xf32>
  return %r : tensor<3xf32>
}
func.func @along_both(%x: tensor<3xi32>) -> tensor<3xi32> {
  %r = shard.all_reduce %x on @g22 grid_axes = [1, 0] reduction = max : tensor<3xi32> -> tensor<3xi32>
  return %r : tensor<3xi32>
}
func.func @four_d(%x: tensor<3xf32>) -> tensor<3xf32> {
  %r = shard.all_reduce %x on @g4 grid_axes = [1] : tensor<3xf32> -> tensor<3xf32>
  return %r : tensor<3xf32>
}
func.func @four_d_to_all(%x: tensor<2x1xf32>) -> tensor<1x2xf32> {
  %r = shard.all_to_all %x on @g4 grid_axes = [1] split_axis = 0 concat_axis = 1
      : tensor<2x1xf32> -> tensor<1x2xf32>
  return %r : tensor<1x2xf32>
}
func.func @gather_along1(%x: tensor<2xf32>) -> tensor<4xf32> {
  %r = shard.all_gather %x on @g22 grid_axes = [1] gather_axis = 0 : tensor<2xf32> -> tensor<4xf32>
  return %r : tensor<4xf32>
}
"""

TYPES = {"i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64, "f16": np.float16,
         "bf16": ml_dtypes.bfloat16, "f32": np.float32, "f64": np.float64}
KINDS = {"sum": np.add, "product": np.multiply, "min": np.minimum, "max": np.maximum}


def _reductions():
    functions = [f"""func.func @{kind}_{t}(%x: tensor<5x{t}>) -> tensor<5x{t}> {{
  %r = shard.all_reduce %x on @g grid_axes = [0] reduction = {kind} : tensor<5x{t}> -> tensor<5x{t}>
  return %r : tensor<5x{t}>
}}""" for t in TYPES for kind in KINDS]
    return "shard.grid @g(shape = 3)\n" + "\n".join(functions) + """
func.func @average(%x: tensor<5xf32>) -> tensor<5xf32> {
  %ch = flow.channel.default : !flow.channel
  %e = tensor.empty() : tensor<5xf32>
  %r = flow.collective.all_reduce average, f32, %e, %x, %ch
      : (tensor<5xf32>, tensor<5xf32>, !flow.channel) -> %e as tensor<5xf32>
  return %r : tensor<5xf32>
}
func.func @unsigned_max(%x: tensor<5xi32>) -> tensor<5xi32> {
  %ch = flow.channel.default : !flow.channel
  %e = tensor.empty() : tensor<5xi32>
  %r = flow.collective.all_reduce maximum, ui32, %e, %x, %ch
      : (tensor<5xi32>, tensor<5xi32>, !flow.channel) -> %e as tensor<5xi32>
  return %r : tensor<5xi32>
}
"""


@pytest.fixture(scope="module", params=DEVICES)
def device(request):
    return request.param


def _rows(n, width, dtype=np.float32):
    """Rank r holds ``10 * r + [0, 1, ...]``: every value says which rank it came from."""
    return [(np.arange(width) + 10 * r).astype(dtype) for r in range(n)]


def test_grid_axes_follow_iree_collectives(device):
    with rt.load(rt.compile(GRIDS, devices=[device]), ranks=4) as m:
        xs = _rows(4, 3)
        # 2x2 grid, ranks row-major: axis 1 groups {0, 1} and {2, 3}; axis 0 {0, 2} and {1, 3}.
        for f, groups in ((m.along1, [[0, 1], [0, 1], [2, 3], [2, 3]]),
                          (m.along0, [[0, 2], [1, 3], [0, 2], [1, 3]]),
                          (m.four_d, [[0, 2], [1, 3], [0, 2], [1, 3]])):
            got = f.spmd([[x] for x in xs])
            for r in range(4):
                np.testing.assert_array_equal(got[r], xs[groups[r][0]] + xs[groups[r][1]])
        ints = _rows(4, 3, np.int32)
        for got in m.along_both.spmd([[x] for x in ints]):
            np.testing.assert_array_equal(got, ints[3])
        # 1x2x1x2, along axis 1: rank r exchanges with rank r ^ 2; it keeps row (r >> 1) of each.
        blocks = [np.array([[2 * r + 1], [2 * r + 2]], np.float32) for r in range(4)]
        got = m.four_d_to_all.spmd([[b] for b in blocks])
        for r in range(4):
            pair = sorted([r, r ^ 2])
            np.testing.assert_array_equal(got[r], np.concatenate([blocks[p][r >> 1:(r >> 1) + 1]
                                                                  for p in pair], axis=1))
        halves = [x[:2] for x in xs]
        got = m.gather_along1.spmd([[h] for h in halves])
        for r in range(4):
            row = r & ~1
            np.testing.assert_array_equal(got[r], np.concatenate([halves[row], halves[row + 1]]))


def test_every_reduction_kind_and_element_type(device):
    with rt.load(rt.compile(_reductions(), devices=[device]), ranks=3) as m:
        for t, dtype in TYPES.items():
            for kind, fn in KINDS.items():
                xs = [np.random.default_rng(r).choice([-2, -1, 1, 2, 3], 5).astype(dtype)
                      for r in range(3)]
                expected = fn(fn(xs[0], xs[1]), xs[2])
                for got in m[f"{kind}_{t}"].spmd([[x] for x in xs]):
                    assert got.dtype == expected.dtype, (kind, t)
                    np.testing.assert_array_equal(got, expected, err_msg=f"{kind} {t}")
        xs = [np.arange(5, dtype=np.float32) * (r + 1) for r in range(3)]
        for got in m.average.spmd([[x] for x in xs]):
            np.testing.assert_array_equal(got, np.mean(xs, axis=0))
        xs = [np.array([-1, 2, 3, -5, 0], np.int32) * (r + 1) for r in range(3)]
        expected = np.max([x.view(np.uint32) for x in xs], axis=0).view(np.int32)
        for got in m.unsigned_max.spmd([[x] for x in xs]):
            np.testing.assert_array_equal(got, expected)
