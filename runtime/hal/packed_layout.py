"""Row-major numpy arrays of tensors stored in a packed layout (a resolved data-tiling encoding).

A buffer holding a data-tiled tensor is tagged with its layout identifier
(``Buffer.encoding``, written by the compiler's ``hal.buffer.set_encoding``), e.g.
``packed<f32, innerDimsPos = [0, 1], innerTileSizes = [8, 1], outerDimsPerm = [0, 1]>``: the
tensor.pack of its logical shape with those attributes (outer dims rounded up to whole tiles,
permuted by outerDimsPerm, then the inner tiles; padding past the logical extent). The buffer
view keeps the logical shape. :func:`view_to_numpy` reads such a view back in row-major order
(``linalg.unpack``), and a plain view as it is.

Source followed: MLIR ``linalg.pack`` / ``linalg.unpack`` semantics
(``mlir/Dialect/Linalg/IR/LinalgOps.td``); the identifier format is
rt.compiler.helpers.hal.layouts.layout_identifier.
"""
import math
import re

import numpy as np

from rt.runtime.errors import InvalidArgumentError
from rt.runtime.hal.element_type import element_type_to_dtype, is_sub_byte

_PACKED = re.compile(r"packed<[^,]+, innerDimsPos = \[([\d, ]*)\], innerTileSizes = \[([\d, ]*)\], "
                     r"outerDimsPerm = \[([\d, ]*)\]>")


def _ints(text):
    return tuple(int(t) for t in text.split(",") if t.strip())


def parse_layout(identifier):
    """``(inner_dims_pos, inner_tile_sizes, outer_dims_perm)`` of a ``packed<...>`` layout
    identifier, or None for any other identifier."""
    match = _PACKED.fullmatch(identifier or "")
    return None if match is None else tuple(_ints(g) for g in match.groups())


def unpack(flat, shape, inner_dims_pos, inner_tile_sizes, outer_dims_perm):
    """The row-major array of logical ``shape`` held packed in the 1-D array ``flat``.

    Raises InvalidArgumentError when the attributes do not describe a packing of ``shape`` or
    ``flat`` is shorter than the packed tensor.
    """
    rank = len(shape)
    tiles = dict(zip(inner_dims_pos, inner_tile_sizes))
    if (len(tiles) != len(inner_dims_pos) or sorted(outer_dims_perm) != list(range(rank))
            or any(not 0 <= d < rank for d in tiles) or any(t <= 0 for t in inner_tile_sizes)):
        raise InvalidArgumentError(f"packed layout innerDimsPos={list(inner_dims_pos)} innerTileSizes="
                                   f"{list(inner_tile_sizes)} outerDimsPerm={list(outer_dims_perm)} "
                                   f"does not pack a tensor of shape {list(shape)}")
    outer = [-(-shape[d] // tiles[d]) if d in tiles else shape[d] for d in range(rank)]
    packed_shape = [outer[d] for d in outer_dims_perm] + list(inner_tile_sizes)
    count = math.prod(packed_shape)
    if flat.size < count:
        raise InvalidArgumentError(f"a packed tensor of shape {packed_shape} needs {count} elements; "
                                   f"the buffer holds {flat.size}")
    array = flat[:count].reshape(packed_shape)
    order, sizes = [], []
    for d in range(rank):
        order.append(outer_dims_perm.index(d))
        sizes.append(outer[d])
        if d in tiles:
            order.append(rank + inner_dims_pos.index(d))
            sizes[-1] *= tiles[d]
    array = array.transpose(order).reshape(sizes)
    return np.ascontiguousarray(array[tuple(slice(0, n) for n in shape)])


def view_to_numpy(view):
    """A row-major copy of buffer view ``view``'s tensor, unpacked when its buffer is tagged
    with a ``packed<...>`` layout (plain views and other tags are copied as they are)."""
    layout = parse_layout(view.buffer.encoding)
    if layout is None or is_sub_byte(view.element_type):
        return view.to_numpy(copy=True)
    dtype = np.dtype(element_type_to_dtype(view.element_type))
    flat = view.buffer.to_numpy(dtype, (view.buffer.byte_length // dtype.itemsize,))
    return unpack(flat, tuple(view.shape), *layout)
