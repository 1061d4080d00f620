"""Work distribution that scales past a few threads (issue 22): a batch_matmul splits over
batch x tiles in every dispatch (its operand pack too, not tiles alone), and large matmuls
over two dims of tiles, each with enough workgroups for 16 threads."""
import pathlib

import numpy as np
import pytest

import rt
from rt.trace import Tracer

ROOT = pathlib.Path(__file__).resolve().parents[2]
RNG = np.random.default_rng(7)


def _workgroups(program, fn, args):
    """{dispatch name: workgroup count (x, y, z)} of one call on local-task://llvm-cpu."""
    tracer = Tracer()
    with rt.load(rt.compile(program), devices=["local-task://llvm-cpu"], tracer=tracer) as m:
        result = getattr(m, fn)(*args)
    return result, {e["name"]: tuple(e["args"]["workgroups"]) for e in tracer.events
                    if "workgroups" in e.get("args", {})}


def test_batch_matmul_splits_every_dispatch_over_batch_and_tiles():
    a, b = (RNG.standard_normal((16, 256, 256), dtype=np.float32) for _ in range(2))
    result, grids = _workgroups(ROOT / "benchmarks" / "programs" / "batch_matmul_16x256.mlir",
                                "bmm", [a, b])
    np.testing.assert_allclose(result, a @ b, rtol=1e-4, atol=1e-3)
    assert grids and all(z == 16 for (_, _, z) in grids.values()), grids
    assert all(x * y * z >= 4 * 16 for (x, y, z) in grids.values()), grids


@pytest.mark.parametrize("n", [1024])
def test_large_matmul_splits_two_dims_of_tiles(n):
    a, b = (RNG.standard_normal((n, n), dtype=np.float32) for _ in range(2))
    result, grids = _workgroups(ROOT / "examples" / "matmul_f32.mlir", "foo", [a, b])
    np.testing.assert_allclose(result, a @ b, rtol=1e-3, atol=1e-2)
    (grid,) = [g for name, g in grids.items() if "matmul" in name]
    assert grid[0] > 1 and grid[1] > 1 and grid[0] * grid[1] >= 16 * 4, grids
