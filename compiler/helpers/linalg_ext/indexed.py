"""``iree_linalg_ext`` ops addressed through indices -> ``linalg.generic``s (helper, not a pass).

* ``gather`` / ``map_load``: a generic over the output whose body computes the source indices
  (from the indices tensor, or by the op's region) and reads the source with ``tensor.extract``
  (rt's gathering generics). A gather's indices are clamped into the source (IREE leaves them
  undefined out of range; rt never reads outside); map_load yields its padding value where the
  indices are out of bounds, as IREE does.
* ``scatter`` whose indices address only the leading (non-slice) dims (ScatterND,
  ScatterElements, the embedding gradient) and ``map_store`` (each source element a batch entry
  whose row is the output coordinate its region yields): :mod:`scattering` (sort the entries'
  rows, fold each row's entries in batch order, pull), O(B log B + updates + output).
* other scatters (an index landing in a slice dim: a window at an offset): a generic that
  pulls: every output element loops, in order, over every update element and applies the
  region where that element's target is this output element. O(output x updates) work.
  Both forms are exact for any region and for repeated indices (applied in batch order, as
  IREE's sequential loop does); updates whose target is out of bounds (or masked off) are
  skipped.

Source followed: IREE ``TilingInterfaceImpl.cpp`` (``ScatterOp``, ``GatherOp``, ``MapLoadOp``,
``MapStoreOp::generateScalarImplementation``).
"""
from xdsl.dialects import arith as xarith
from xdsl.dialects import tensor
from xdsl.ir.affine import AffineExpr

from rt.compiler.dialects import arith
from rt.compiler.helpers.linalg_ext.builders import (all_true, dim_size, index, index_const, inline, select,
                                                     to_index)
from rt.compiler.helpers.linalg_ext.scattering import addresses_rows, map_store_rows, scatter_rows
from rt.compiler.helpers.stablehlo.builders import affine_maps, dim_exprs, generic
from rt.compiler.helpers.stablehlo.elementwise import element_type


def _starts(s, op, batch_ivs, slice_ivs, target_rank):
    """Per dim of the scattered/gathered tensor, the index a batch element addresses: the slice
    ivs on the last dims, plus the indices' entries on the ``dimension_map`` dims (0 elsewhere)."""
    starts = [None] * (target_rank - len(slice_ivs)) + list(slice_ivs)
    has_index_dim = op.indices.type.get_num_dims() > op.batch_rank()
    for k, dim in enumerate(op.dimension_map.get_values()):
        coords = list(batch_ivs) + ([index_const(s, k)] if has_index_dim else [])
        raw = s.add(tensor.ExtractOp(op.indices, coords, element_type(op.indices.type)))
        value = to_index(s, raw)
        starts[dim] = value if starts[dim] is None else s.add(xarith.AddiOp(value, starts[dim]))
    return [index_const(s, 0) if v is None else v for v in starts]


def gather(b, op):
    """``iree_linalg_ext.gather`` -> a gathering generic over the output; the result."""
    output = op.output
    rank, batch = output.type.get_num_dims(), op.batch_rank()
    masked = op.mask is not None

    def body(s, args):
        ivs = [index(s, d) for d in range(rank)]
        starts = _starts(s, op, ivs[:batch], ivs[batch:], op.source.type.get_num_dims())
        value = s.add(tensor.ExtractOp(op.source, starts, element_type(op.source.type)))
        return [select(s, args[0], value, args[1]) if masked else value]
    inputs = [op.mask] if masked else []
    maps = affine_maps(rank, *([dim_exprs(batch)] if masked else []), dim_exprs(rank))
    return generic(b, inputs, [output], maps, ["parallel"] * rank, [output.type], body)


def scatter(b, op):
    """``iree_linalg_ext.scatter`` -> :func:`scattering.scatter_rows` where the indices address
    whole rows, else a pulling generic (see the module docstring); the result."""
    if addresses_rows(op):
        return scatter_rows(b, op)
    original, updates = op.original, op.updates
    rank, update_rank, batch = original.type.get_num_dims(), updates.type.get_num_dims(), op.batch_rank()
    masked = op.mask is not None

    def body(s, args):
        update, mask, current = (args[0], args[1], args[2]) if masked else (args[0], None, args[1])
        out = [index(s, d) for d in range(rank)]
        upd = [index(s, rank + d) for d in range(update_rank)]
        starts = _starts(s, op, upd[:batch], upd[batch:], rank)
        hit = all_true(s, [s.add(arith.CmpIOp(t, o, "eq")) for t, o in zip(starts, out)] + ([mask] if masked else []))
        combined = inline(s, op.region, [update, current])[0]
        return [select(s, hit, combined, current)]
    d = AffineExpr.dimension
    inputs = [updates] + ([op.mask] if masked else [])
    maps = affine_maps(rank + update_rank, [d(rank + k) for k in range(update_rank)],
                       *([[d(rank + k) for k in range(batch)]] if masked else []), dim_exprs(rank))
    return generic(b, inputs, [original], maps, ["parallel"] * rank + ["reduction"] * update_rank,
                   [original.type], body)


def _in_bounds(s, coords, sizes):
    return all_true(s, [s.add(xarith.AndIOp(s.add(arith.CmpIOp(c, index_const(s, 0), "sge")),
                                            s.add(arith.CmpIOp(c, n, "slt")))) for c, n in zip(coords, sizes)])


def map_load(b, op):
    """``iree_linalg_ext.map_load`` -> a gathering generic over the output; the result."""
    source, output = op.inputs[0], op.outputs[0]
    rank = output.type.get_num_dims()
    sizes = [dim_size(b, source, k) for k in range(source.type.get_num_dims())]

    def body(s, args):
        *coords, padding = inline(s, op.region, [index(s, d) for d in range(rank)])
        value = s.add(tensor.ExtractOp(source, coords, element_type(source.type)))
        inside = _in_bounds(s, coords, sizes)
        return [value if inside is None else select(s, inside, value, padding)]
    maps = affine_maps(rank, dim_exprs(rank))
    return generic(b, [], [output], maps, ["parallel"] * rank, [output.type], body)


def map_store(b, op):
    """``iree_linalg_ext.map_store`` -> :func:`scattering.map_store_rows`; the result."""
    return map_store_rows(b, op)
