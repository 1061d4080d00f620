"""batch_mmt4d Generics with ``bounds`` (kernel_ir.Generic; what lowering/fold_relayouts.py makes
of pack -> batch_mmt4d -> unpack): the RHS ``B[b, K, N]`` and / or OUT ``C[b, M, N]`` read and
written in place per batch slice, against numpy -- sizes that divide the tiles and sizes that
do not, dynamic sizes, several workgroups and threads, the zero fill absorbed or an
accumulating OUT, and the refusals: a split of the inner tiles, a binding too small for its
matrix, a bounded form the tile kernel cannot run."""
import numpy as np
import pytest

from kernel_helpers import compile_kernels, d, op, run
from rt.compiler.codegen import kernel_ir as kir
from rt.runtime.errors import CompileError, DeviceError

RNG = np.random.default_rng(43)
C = kir.Constant
P, R = "parallel", "reduction"
MAC = (op("arith.mulf", (0, 1), "f32"), op("arith.addf", (3, 2), "f32"))


def _mul(a, b):
    return a * b if isinstance(a, int) and isinstance(b, int) else kir.Expr("mul", (a, b))


def _ceil(a, b):
    return -(-a // b) if isinstance(a, int) else kir.Expr("ceildiv", (a, b))


def _kernel(bsz, m, n, k, fold, tile=(16, 16), fill=True, split=False, etype="f32"):
    """A packed LHS and a (bsz, M, N, K) batch_mmt4d whose RHS ("r") / OUT ("o") are in place."""
    m0, n0 = tile
    m1, n1 = _ceil(m, m0), _ceil(n, n0)
    lhs = kir.View(0, etype, (bsz, m1, k, m0, 1))
    rhs = kir.View(1, etype, (bsz, n1, k, n0, 1),
                   strides=(_mul(k, n), n0, n, 1, n) if "r" in fold else None)
    out = kir.View(2, etype, (bsz, m1, n1, m0, n0),
                   strides=(_mul(m, n), _mul(m0, n), n0, n, 1) if "o" in fold else None)
    g = kir.Generic((bsz, m1, n1, k, m0, n0, 1), (P, P, P, R, P, P, R), (lhs, rhs), (out,),
                    (d(0, 1, 3, 4, 6), d(0, 2, 3, 5, 6), d(0, 1, 2, 4, 5)), MAC, (4,),
                    "batch_mmt4d", (m, n))
    ops, dims = (g,), ((2, 1, 0),)
    if fill:
        zero = op("arith.constant", (), etype, value=0.0)
        ops = (kir.Generic((bsz, m1, n1, m0, n0), (P,) * 5, (), (out,), (d(0, 1, 2, 3, 4),),
                           (zero,), (1,), "fill"), g)
        dims = ((2, 1, 0),) * 2
    dist = kir.Distribution((2, 1, 0), (2, 1, 1), dims)
    if split:  # N0 in halves: not whole inner tiles
        dist = kir.Distribution((5 if not fill else 4,), (n0 // 2,), ((4,), (5,))[-len(ops):])
    dynamic = not isinstance(m, int)
    return kir.Kernel("bmm", 3, 4 if dynamic else 0, ops, dist)


def _operands(bsz, m, n, k, fold, tile, init=None):
    m0, n0 = tile
    m1, n1 = _ceil(m, m0), _ceil(n, n0)
    a = RNG.standard_normal((bsz, m, k)).astype(np.float32)
    b = RNG.standard_normal((bsz, k, n)).astype(np.float32)
    pa = np.zeros((bsz, m1 * m0, k), np.float32)
    pa[:, :m] = a
    pb = np.zeros((bsz, k, n1 * n0), np.float32)
    pb[:, :, :n] = b
    lhs = pa.reshape(bsz, m1, m0, k, 1).transpose(0, 1, 3, 2, 4).copy()
    rhs = b if "r" in fold else pb.reshape(bsz, k, n1, n0, 1).transpose(0, 2, 1, 3, 4).copy()
    if "o" in fold:
        out = np.full((bsz, m, n), np.nan, np.float32) if init is None else init.copy()
    else:
        out = np.full((bsz, m1, n1, m0, n0), np.nan, np.float32)
    return a, b, [lhs, rhs, out]


def _result(out, m, n, fold, tile):
    if "o" in fold:
        return out
    bsz, m1, n1, m0, n0 = out.shape
    return out.transpose(0, 1, 3, 2, 4).reshape(bsz, m1 * m0, n1 * n0)[:, :m, :n]


@pytest.mark.parametrize("fold", ["r", "o", "ro"])
@pytest.mark.parametrize("bsz,m,n,k", [(2, 32, 48, 16), (3, 17, 20, 33), (1, 1, 1, 1), (2, 50, 35, 7)])
def test_in_place_views_match_numpy(fold, bsz, m, n, k):
    tile = (16, 16)
    a, b, arrays = _operands(bsz, m, n, k, fold, tile)
    lib = compile_kernels([_kernel(bsz, m, n, k, fold, tile)])
    run(lib, 0, arrays, workgroups=(_ceil(_ceil(n, 16), 2), _ceil(m, 16), bsz), threads=2)
    np.testing.assert_allclose(_result(arrays[2], m, n, fold, tile), np.matmul(a.astype(np.float64), b),
                               rtol=1e-4, atol=1e-4)
    if "o" not in fold:  # a packed OUT gets whole tiles: zero padding, nothing left unwritten
        assert not np.isnan(arrays[2]).any()


def test_dynamic_sizes_and_an_accumulating_out():
    tile = (8, 8)
    lib = compile_kernels([_kernel(C(0), C(1), C(2), C(3), "ro", tile, fill=False)])
    for bsz, m, n, k in ((2, 19, 13, 7), (3, 16, 24, 3)):
        init = RNG.standard_normal((bsz, m, n)).astype(np.float32)
        a, b, arrays = _operands(bsz, m, n, k, "ro", tile, init=init)
        run(lib, 0, arrays, constants=(bsz, m, n, k), workgroups=(2, 3, bsz), threads=2)
        np.testing.assert_allclose(arrays[2], init + np.matmul(a.astype(np.float64), b),
                                   rtol=1e-4, atol=1e-4)


def test_a_split_of_the_inner_tiles_is_refused_not_run_past_the_matrices():
    bsz, m, n, k = 1, 5, 9, 3
    lib = compile_kernels([_kernel(bsz, m, n, k, "ro", split=True)])
    _, _, arrays = _operands(bsz, m, n, k, "ro", (16, 16))
    with pytest.raises(DeviceError):
        run(lib, 0, arrays, workgroups=(2, 1, 1))
    assert np.isnan(arrays[2]).all()


def test_a_binding_smaller_than_its_matrix_is_out_of_range():
    bsz, m, n, k = 2, 17, 9, 6
    lib = compile_kernels([_kernel(bsz, m, n, k, "ro")])
    _, _, arrays = _operands(bsz, m, n, k, "ro", (16, 16))
    arrays[1] = arrays[1][:, :-1].copy()  # each B one row short: the last batch reaches past
    with pytest.raises(DeviceError, match="too small"):
        run(lib, 0, arrays, workgroups=(1, 1, 1))


def test_a_bounded_form_the_tile_kernel_cannot_run_is_a_compile_error():
    with pytest.raises(CompileError, match="batch_mmt4d with bounds"):
        compile_kernels([_kernel(2, 17, 9, 6, "ro", etype="f16")])
