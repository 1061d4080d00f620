"""mmt4d over row-major matrices viewed in place (kernel_ir.Mmt4d ``bounds``, what
lowering/fold_relayouts.py makes of pack -> mmt4d -> unpack): every combination of in-place
LHS / RHS / OUT, sizes that divide the tiles and sizes that do not, dynamic sizes, several
workgroups and threads, accumulation, a K0-major RHS read with a wider LHS K0, and a binding
too small for the bounds -- all against numpy, never reading past a matrix. An in-place LHS
is packed panel by panel into the stack (mmt4d.emit_panel_pack): K longer than one panel
chunk, every M0 (transposed in registers or element by element) and the regrouped
one-m1-per-row distribution with few and many rows of tiles."""
import dataclasses

import numpy as np
import pytest

from kernel_helpers import compile_kernels, run
from rt.compiler.codegen import kernel_ir as kir
from rt.compiler.codegen.llvm_cpu import mmt4d
from rt.compiler.codegen.llvm_cpu.target import cpu_target
from rt.compiler.targets.cpu_families import family_of
from rt.runtime.errors import DeviceError

RNG = np.random.default_rng(41)
# compile_kernels builds for the host: its CPU family's panel parameters
HOST = family_of(cpu_target("host"))
PANEL_BLOCK, PANEL_K, PANEL_UNITS = HOST.panel_block, HOST.panel_k, HOST.panel_units
C = kir.Constant


def _mul(a, b):
    return a * b if isinstance(a, int) and isinstance(b, int) else kir.Expr("mul", (a, b))


def _ceil(a, b):
    return -(-a // b) if isinstance(a, int) else kir.Expr("ceildiv", (a, b))


def _kernel(m, n, k, fold, tile=(16, 16), accumulate=False, k0=1, wg_tiles=(2, 2)):
    """Mmt4d whose operands named in ``fold`` (l, r, o) are row-major matrices in place."""
    m0, n0 = tile
    m1, n1, k1 = _ceil(m, m0), _ceil(n, n0), _ceil(k, k0)
    lhs = kir.View(0, "f32", (m1, k1, m0, k0), strides=(_mul(m0, k), 1, k, 1) if "l" in fold else None)
    rhs = kir.View(1, "f32", (n1, k1, n0, k0), strides=(n0, _mul(k0, n), 1, n) if "r" in fold else None)
    out = kir.View(2, "f32", (m1, n1, m0, n0), strides=(_mul(m0, n), n0, n, 1) if "o" in fold else None)
    dynamic = not isinstance(m, int)
    return kir.Kernel("mm", 3, 3 if dynamic else 0,
                      (kir.Mmt4d(lhs, rhs, out, accumulate, (m, n)),),
                      kir.Distribution((1, 0), wg_tiles, ((1, 0),)))


def _operands(m, n, k, fold, tile, k0=1, out=None):
    m0, n0 = tile
    m1, n1, k1 = _ceil(m, m0), _ceil(n, n0), _ceil(k, k0)
    a = RNG.standard_normal((m, k)).astype(np.float32)
    b = RNG.standard_normal((k, n)).astype(np.float32)
    pa = np.zeros((m1 * m0, k1 * k0), np.float32)
    pa[:m, :k] = a
    pb = np.zeros((k1 * k0, n1 * n0), np.float32)
    pb[:k, :n] = b
    lhs = a if "l" in fold else pa.reshape(m1, m0, k1, k0).transpose(0, 2, 1, 3).copy()
    rhs = b if "r" in fold else pb.reshape(k1, k0, n1, n0).transpose(2, 0, 3, 1).copy()
    if out is None:
        out = np.full((m, n) if "o" in fold else (m1, n1, m0, n0), np.nan, np.float32)
    return a, b, [lhs, rhs, out]


def _result(out, m, n, fold, tile):
    if "o" in fold:
        return out
    m0, n0 = tile
    m1, n1 = out.shape[:2]
    return out.transpose(0, 2, 1, 3).reshape(m1 * m0, n1 * n0)[:m, :n]


@pytest.mark.parametrize("fold", ["o", "r", "ro", "l", "lr", "lro"])
@pytest.mark.parametrize("m,n,k", [(64, 48, 40), (33, 17, 5), (1, 1, 1), (50, 70, 23)])
def test_in_place_views_match_numpy(fold, m, n, k):
    tile = (16, 16)
    a, b, arrays = _operands(m, n, k, fold, tile)
    lib = compile_kernels([_kernel(m, n, k, fold, tile)])
    run(lib, 0, arrays, workgroups=(_ceil(_ceil(n, 16), 2), _ceil(_ceil(m, 16), 2), 1), threads=2)
    want = a.astype(np.float64) @ b
    np.testing.assert_allclose(_result(arrays[2], m, n, fold, tile), want, rtol=1e-4, atol=1e-4)
    if "o" not in fold:  # a packed OUT gets whole tiles: its padding is zeros, not garbage
        full = arrays[2].transpose(0, 2, 1, 3).reshape(arrays[2].shape[0] * 16, -1)
        assert not np.isnan(full).any()
        assert (full[m:] == 0).all() and (full[:, n:] == 0).all()


def test_dynamic_sizes_and_accumulation():
    tile = (8, 8)
    lib = compile_kernels([_kernel(C(0), C(1), C(2), "ro", tile, accumulate=True)])
    for m, n, k in ((19, 13, 7), (16, 24, 3)):
        init = RNG.standard_normal((m, n)).astype(np.float32)
        a, b, arrays = _operands(m, n, k, "ro", tile, out=init.copy())
        run(lib, 0, arrays, constants=(m, n, k), workgroups=(2, 3, 1), threads=2)
        np.testing.assert_allclose(arrays[2], init + a.astype(np.float64) @ b, rtol=1e-4, atol=1e-4)


def test_k_major_rhs_in_place_with_a_wider_lhs_k0():
    """A propagated LHS (K0 = 4 here) reads the in-place RHS four rows of B per k1 step."""
    m, n, k, tile, k0 = 20, 21, 12, (8, 8), 4
    a, b, arrays = _operands(m, n, k, "r", tile, k0=k0)
    lib = compile_kernels([_kernel(m, n, k, "r", tile, k0=k0)])
    run(lib, 0, arrays, workgroups=(2, 2, 1))
    np.testing.assert_allclose(_result(arrays[2], m, n, "r", tile), a.astype(np.float64) @ b,
                               rtol=1e-4, atol=1e-4)


def test_a_binding_smaller_than_its_matrix_is_out_of_range():
    m, n, k = 17, 9, 6
    lib = compile_kernels([_kernel(m, n, k, "ro")])
    _, _, arrays = _operands(m, n, k, "ro", (16, 16))
    arrays[1] = arrays[1][:-1].copy()  # B one row short
    with pytest.raises(DeviceError, match="too small"):
        run(lib, 0, arrays, workgroups=(1, 1, 1))


@pytest.mark.parametrize("tile", [(16, 16), (8, 8), (4, 16), (3, 8)])
@pytest.mark.parametrize("m,n,k", [(37, 20, PANEL_K + 21), (16, 16, PANEL_K), (5, 3, 35)])
def test_lhs_panels_over_k_chunks_and_every_m0(tile, m, n, k):
    """K past one PANEL_K chunk accumulates across chunks; M0 = 3 packs element by element."""
    a, b, arrays = _operands(m, n, k, "lro", tile)
    lib = compile_kernels([_kernel(m, n, k, "lro", tile)])
    run(lib, 0, arrays, workgroups=(_ceil(_ceil(n, tile[1]), 2), _ceil(_ceil(m, tile[0]), 2), 1),
        threads=2)
    np.testing.assert_allclose(arrays[2], a.astype(np.float64) @ b, rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("m", [1, 16, 40, 16 * PANEL_UNITS + 5])
@pytest.mark.parametrize("fold", ["lro", "lo", "l"])
def test_regrouped_rows_share_their_tiles(m, fold):
    """One m1 per workgroup row (tiles (4, 1)): each row's x workgroups split its n1 tiles into
    min(x count, ceil(PANEL_UNITS / M1)) parts, the rest idle -- every tile written once."""
    n, k = 16 * 9 + 3, 70
    tile = (16, 16)
    dyn = _kernel(C(0), C(1), C(2), fold, tile, wg_tiles=(4, 1))
    static = dataclasses.replace(_kernel(m, n, k, fold, tile, wg_tiles=(4, 1)), name="mm_static")
    lib = compile_kernels([dyn, static])
    for ordinal, constants in ((0, (m, n, k)), (1, ())):
        a, b, arrays = _operands(m, n, k, fold, tile)
        run(lib, ordinal, arrays, constants=constants,
            workgroups=(_ceil(_ceil(n, 16), 4), _ceil(m, 16), 1), threads=2)
        np.testing.assert_allclose(_result(arrays[2], m, n, fold, tile),
                                   a.astype(np.float64) @ b, rtol=1e-4, atol=1e-4)


def test_lhs_panel_with_an_empty_k_writes_zeros_or_keeps_out():
    m, n, tile = 20, 18, (16, 16)
    for accumulate in (False, True):
        lib = compile_kernels([_kernel(C(0), C(1), C(2), "lro", tile, accumulate=accumulate)])
        init = RNG.standard_normal((m, n)).astype(np.float32)
        _, _, arrays = _operands(m, n, 0, "lro", tile, out=init.copy())
        run(lib, 0, arrays, constants=(m, n, 0), workgroups=(1, 2, 1), threads=2)
        np.testing.assert_array_equal(arrays[2], init if accumulate else np.zeros((m, n)))


@pytest.mark.parametrize("wg_tiles", [(8, 1), (2, 2), (3, PANEL_BLOCK + 1)])
@pytest.mark.parametrize("m,n,k", [(16 * PANEL_BLOCK * 3 + 7, 50, PANEL_K + 9), (33, 40, 20),
                                   (16 * PANEL_BLOCK, 16, 1)])
def test_lhs_panels_in_blocks_when_the_rhs_is_large(monkeypatch, wg_tiles, m, n, k):
    """An RHS over the family's panel_rhs_bytes (0 here) packs PANEL_BLOCK rows of tiles
    together and runs the block's tiles per n1 column: short last blocks, K chunks, the
    regrouped one-m1-per-row
    distribution (8, 1) and other workgroup tiles."""
    monkeypatch.setattr(mmt4d, "family_of",
                        lambda target: dataclasses.replace(family_of(target), panel_rhs_bytes=0))
    tile = (16, 16)
    lib = compile_kernels([_kernel(C(0), C(1), C(2), "lro", tile, wg_tiles=wg_tiles)])
    a, b, arrays = _operands(m, n, k, "lro", tile)
    run(lib, 0, arrays, constants=(m, n, k), threads=2,
        workgroups=(_ceil(_ceil(n, 16), wg_tiles[0]), _ceil(_ceil(m, 16), wg_tiles[1]), 1))
    np.testing.assert_allclose(arrays[2], a.astype(np.float64) @ b, rtol=1e-4, atol=1e-3)
