"""The innermost two loop dims of a fill/copy dispatch merged where every view is contiguous
across them.

A ``tensor.pad`` becomes a fill of its result and a copy of its source into the interior
(placement.py). When the innermost dim is not padded and narrow -- the 3 channels of an NHWC
image padded for a stride-2 convolution, ``1x64x64x3 -> 1x65x65x3`` -- the loops run that dim
as the vector dim, 3 of 16 lanes, so the copy is scalar code per pixel (11 us for 48 KiB). Every
view of such a kernel holds the last two dims contiguously (stride of the second-to-last dim =
extent of the last, which all views share), so the two dims are one: ``1x64x192`` copied into
rows of 195, runs of 192 contiguous floats. IREE gets the same from collapsing the dims of the
``slow_memcpy`` dispatch it makes of such a pad (``iree-dispatch-creation-collapse-dimensions``).

Applied only to kernels whose ops are all fill / copy Generics with identity maps over static
views of bindings (no scratch, no ``linalg.index`` in a body), and only when the innermost
extent is under ``NARROW`` (a wider dim already fills the vectors). Sub-views recorded by
placement (``{view: (parent, offsets)}``, the copy's interior inside the fill's result) are
rewritten the same way, their offset along the merged dim becoming ``offset * extent``.
"""
from dataclasses import replace

from rt.compiler.codegen import kernel_ir as kir

#: Innermost extents (elements) from which merging no longer pays: a full AVX-512 f32 vector.
NARROW = 16


def _identity(rank):
    return tuple(kir.AffineExpr.dim(d) for d in range(rank))


def _strides(view):
    if view.strides is not None:
        return tuple(view.strides)
    strides, step = [], 1
    for size in reversed(view.shape):
        strides.append(step)
        step *= size
    return tuple(reversed(strides))


def _views(op):
    return (*op.inputs, *op.outputs)


def _eligible(ops, binding_count, subviews):
    """The common rank of the ops, or None when the kernel is not a narrow contiguous copy."""
    if not ops or not all(isinstance(op, kir.Generic) and op.kind in ("fill", "copy") for op in ops):
        return None
    rank = len(ops[0].domain)
    if rank < 2:
        return None
    inner = ops[0].domain[-1]
    for op in ops:
        if (len(op.domain) != rank or set(op.iterator_types) != {"parallel"} or op.gathers
                or any(s.opcode is kir.Opcode.INDEX for s in op.body)
                or any(m != _identity(rank) for m in op.indexing_maps)):
            return None
        for view in _views(op):
            shape, strides = tuple(view.shape), view.strides
            if (len(shape) != rank or view.binding >= binding_count
                    or not all(isinstance(s, int) for s in (*shape, *(strides or ()), view.offset))):
                return None
            if shape[-1] != inner or _strides(view)[-2:] != (inner, 1):
                return None
            if view in subviews and subviews[view][1][-1] != 0:
                return None
    return rank if isinstance(inner, int) and inner < NARROW else None


def _collapse(view):
    shape = (*view.shape[:-2], view.shape[-2] * view.shape[-1])
    strides = None if view.strides is None else (*view.strides[:-2], 1)
    return replace(view, shape=shape, strides=strides)


def collapse_copy_dims(ops, binding_count, subviews):
    """``(ops, subviews)`` with the last two dims merged (see the module docstring), or the
    arguments unchanged where the kernel does not qualify."""
    rank = _eligible(ops, binding_count, subviews)
    if rank is None:
        return ops, subviews
    inner = ops[0].domain[-1]
    merged = {v: _collapse(v) for op in ops for v in _views(op)}
    new_ops = [replace(op, domain=(*op.domain[:-2], op.domain[-2] * op.domain[-1]),
                       iterator_types=("parallel",) * (rank - 1),
                       inputs=tuple(merged[v] for v in op.inputs),
                       outputs=tuple(merged[v] for v in op.outputs),
                       indexing_maps=(_identity(rank - 1),) * len(op.indexing_maps))
               for op in ops]
    new_subviews = {}
    for view, (parent, offsets) in subviews.items():
        if view in merged and len(offsets) == rank:
            offsets = (*offsets[:-2], offsets[-2] * inner)
            new_subviews[merged[view]] = (merged.get(parent, parent), offsets)
        else:
            new_subviews[view] = (parent, offsets)
    return new_ops, new_subviews
