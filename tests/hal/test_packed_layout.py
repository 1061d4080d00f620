"""runtime/hal/packed_layout: packed buffers read back row-major, as linalg.unpack would."""
import numpy as np
import pytest

from rt.runtime.errors import InvalidArgumentError
from rt.runtime.hal.packed_layout import parse_layout, unpack


def _pack(array, inner_dims_pos, tiles, outer_dims_perm):
    """A reference linalg.pack (zero padding), written with explicit loops over the packed
    tensor: element [outer..., inner...] is source[outer_d * tile_d + inner_d] (or padding)."""
    rank = array.ndim
    tile_of = dict(zip(inner_dims_pos, tiles))
    outer = [-(-array.shape[d] // tile_of[d]) if d in tile_of else array.shape[d] for d in range(rank)]
    packed = np.zeros([outer[d] for d in outer_dims_perm] + list(tiles), array.dtype)
    for index in np.ndindex(*packed.shape):
        source = [0] * rank
        for k, d in enumerate(outer_dims_perm):
            source[d] = index[k] * tile_of.get(d, 1)
        for j, d in enumerate(inner_dims_pos):
            source[d] += index[rank + j]
        if all(s < n for s, n in zip(source, array.shape)):
            packed[index] = array[tuple(source)]
    return packed.ravel()


@pytest.mark.parametrize("shape, inner, tiles, perm", [
    ((5, 7), (0, 1), (4, 2), (0, 1)),      # LHS-like, padded on both dims
    ((7, 5), (1, 0), (8, 1), (1, 0)),      # RHS-like (transposed outer dims)
    ((3, 6, 4), (2,), (3,), (2, 0, 1)),    # one tiled dim, permuted outer dims
    ((6,), (0,), (6,), (0,)),              # exact fit
])
def test_unpack_inverts_pack(shape, inner, tiles, perm):
    source = np.arange(np.prod(shape), dtype=np.float32).reshape(shape) + 1
    flat = _pack(source, inner, tiles, perm)
    np.testing.assert_array_equal(unpack(flat, shape, inner, tiles, perm), source)


def test_parse_layout_reads_the_compiler_identifier():
    text = "packed<f32, innerDimsPos = [0, 1], innerTileSizes = [8, 4], outerDimsPerm = [1, 0]>"
    assert parse_layout(text) == ((0, 1), (8, 4), (1, 0))
    assert parse_layout(None) is None and parse_layout("#iree_encoding.layout<x>") is None


def test_bad_layouts_are_errors():
    with pytest.raises(InvalidArgumentError, match="does not pack a tensor of shape"):
        unpack(np.zeros(64, np.float32), (4, 4), (0, 0), (2, 2), (0, 1))
    with pytest.raises(InvalidArgumentError, match="needs 64 elements; the buffer holds 16"):
        unpack(np.zeros(16, np.float32), (5, 5), (0, 1), (8, 8), (0, 1))
