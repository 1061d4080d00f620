"""Vector Pack (relayout_vector.py): row copies and tile transposes vs numpy.

Each case compiles a Pack (and its Unpack) with a distribution that cuts the plain edges and
the transpose column blocks at odd places, checks the packed bytes against a numpy model of
linalg.pack (padding included) and the round trip, and checks which vector path the layout
took in the LLVM IR (masked loads for row copies, shufflevector for transposes).
"""
import numpy as np
import pytest

from kernel_helpers import DTYPES, run
from rt.compiler.codegen import kernel_ir as kir
from rt.compiler.codegen.llvm_cpu.kernel_codegen import emit_kernel
from rt.compiler.codegen.llvm_cpu.library import LibraryBuilder
from rt.compiler.codegen.llvm_cpu.target import cpu_target
from rt.devices.llvm_cpu import LOADER

C = kir.Constant
RNG = np.random.default_rng(11)


def np_pack(x, inner_dims_pos, tiles, perm, pad):
    """linalg.pack of ``x`` in numpy: pad to whole tiles, split, move the tiles inward."""
    r = x.ndim
    tile_of = dict(zip(inner_dims_pos, tiles))
    padded_shape = [-(-n // tile_of[s]) * tile_of[s] if s in tile_of else n
                    for s, n in enumerate(x.shape)]
    padded = np.full(padded_shape, pad, x.dtype)
    padded[tuple(slice(0, n) for n in x.shape)] = x
    split, outer_axis, inner_axis = [], {}, {}
    for s in range(r):
        outer_axis[s] = len(split)
        if s in tile_of:
            split += [padded_shape[s] // tile_of[s]]
            inner_axis[s] = len(split)
            split += [tile_of[s]]
        else:
            split += [padded_shape[s]]
    perm = perm or tuple(range(r))
    order = [outer_axis[s] for s in perm] + [inner_axis[s] for s in inner_dims_pos]
    return padded.reshape(split).transpose(order)


def _compile(kernels):
    lb = LibraryBuilder("relayout", cpu_target("host"))
    for k in kernels:
        emit_kernel(lb, k)
    text = str(lb.module)
    obj = lb.build()
    return LOADER.load(obj.format, obj.data, obj.metadata), text


def _case(shape, inner_dims_pos, tiles, perm, pad, dtype, dist_tiles):
    r = len(shape)
    plain = kir.View(0, dtype, tuple(C(i) for i in range(r)))
    tile_of = dict(zip(inner_dims_pos, tiles))
    outer = [-(-n // tile_of[s]) if s in tile_of else n for s, n in enumerate(shape)]
    outer_p = [outer[s] for s in (perm or range(r))]
    packed_shape = (*outer_p, *tiles)
    packed = kir.View(1, dtype, packed_shape)
    back = kir.View(2, dtype, tuple(C(i) for i in range(r)))
    dims = tuple(reversed(range(r)))[:len(dist_tiles)]
    dist = kir.Distribution(dims, dist_tiles, (dims,))
    pk = kir.Kernel("pack", 3, r, (kir.Pack(plain, packed, inner_dims_pos, tiles, perm, pad),),
                    dist)
    up = kir.Kernel("unpack", 3, r, (kir.Unpack(packed, back, inner_dims_pos, tiles, perm),),
                    dist)
    lib, text = _compile([pk, up])
    grid = [-(-packed_shape[dim] // t) for dim, t in zip(dims, dist_tiles)]
    grid = tuple(grid + [1] * (3 - len(grid)))
    np_type = DTYPES[dtype]
    if np.issubdtype(np_type, np.floating):
        x = RNG.standard_normal(shape).astype(np_type)
    else:
        x = RNG.integers(-100, 100, shape).astype(np_type)
    p = np.full(packed_shape, 77, np_type)
    y = np.full(shape, 55, np_type)
    run(lib, 0, [x, p, y], shape, grid, threads=2)
    want = np_pack(x, inner_dims_pos, tiles, perm, np_type(pad or 0))
    np.testing.assert_array_equal(p, want)
    run(lib, 1, [x, p, y], shape, grid, threads=2)
    np.testing.assert_array_equal(y, x)
    return text


@pytest.mark.parametrize("shape,dtype,dist_tiles", [
    ((37, 45), "f32", (20, 3)),     # leftover columns after blocks of 16, padded rows
    ((64, 32), "f32", (32, 4)),     # whole tiles only
    ((19, 40), "f16", (24, 2)),
    ((21, 33), "i8", (16, 1)),
])
def test_lhs_pack_transposes_16x16_blocks(shape, dtype, dist_tiles):
    text = _case(shape, (0, 1), (16, 1), None, 0.0, dtype, dist_tiles)
    assert "shufflevector" in text


@pytest.mark.parametrize("tile", [4, 8])
def test_lhs_pack_transposes_narrow_tiles(tile):
    text = _case((13, 29), (0, 1), (tile, 1), None, -1.0, "f32", (8, 2))
    assert "shufflevector" in text


@pytest.mark.parametrize("shape,dtype", [((45, 37), "f32"), ((16, 64), "f32"),
                                          ((9, 23), "i32"), ((7, 30), "f64")])
def test_rhs_pack_copies_rows_with_masked_edges(shape, dtype):
    text = _case(shape, (1, 0), (16, 1), (1, 0), 0.5 if dtype.startswith("f") else 3,
                 dtype, (4, 2))
    assert "llvm.masked.load" in text


@pytest.mark.parametrize("shape", [(40, 35), (32, 48), (3, 5)])
def test_result_pack_and_unpack_with_square_tiles(shape):
    text = _case(shape, (0, 1), (16, 16), None, 0.0, "f32", (2, 3))
    assert "llvm.masked.load" in text


def test_batched_pack_transposes_per_batch():
    text = _case((3, 21, 18), (1, 2), (8, 1), None, 2.0, "f32", (5, 2, 1))
    assert "shufflevector" in text


def test_layouts_without_a_vector_path_still_pack_exactly():
    # K0 = 2 along the contiguous dim: neither a row copy of width >= 2 on the last packed
    # dim of a transposable tile, so the element loop runs.
    _case((11, 10), (1, 0), (8, 2), (1, 0), 0.0, "f32", (3, 2))
    _case((12, 10), (0, 1), (16, 2), None, 0.0, "i8", (3, 2))


def test_distributed_inner_dims_fall_back_to_the_element_loop():
    src = kir.View(0, "f32", (C(0), C(1)))
    packed = kir.View(1, "f32", (2, 3, 16, 1))
    k = kir.Kernel("pack", 2, 2, (kir.Pack(src, packed, (0, 1), (16, 1), None, 0.0),),
                   kir.Distribution((2,), (4,), ((2,),)))
    lib, _ = _compile([k])
    x = RNG.standard_normal((20, 3)).astype(np.float32)
    p = np.zeros((2, 3, 16, 1), np.float32)
    run(lib, 0, [x, p], x.shape, (4, 1, 1), threads=2)
    np.testing.assert_array_equal(p, np_pack(x, (0, 1), (16, 1), None, np.float32(0)))
