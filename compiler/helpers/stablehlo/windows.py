"""StableHLO ``gather``, ``scatter``, ``reduce_window``, ``convolution`` as ``linalg.generic``s (helper).

Called by ``iree-stablehlo-to-iree-input`` (``stablehlo_to_iree_input.py``) with the op and an
:class:`OpSink`; each returns the result values.

* ``gather``: a generic over the result whose body reads the start indices and then the operand
  with ``tensor.extract`` (rt's gathering generics), starts clamped to ``[0, dim - slice size]``
  as the spec says.
* ``reduce_window``: the operand padded with the init value, then a generic over (result dims,
  window dims) reading ``x[o * stride + w * dilation]`` and reducing with the op's region (a
  ``tensor.empty`` of the window's shape gives the window loops their extent, as
  ``linalg.pooling_*`` does).
* ``convolution``: the input dilated by ``lhs_dilation`` (zeros between elements, a generic
  reading ``x[i / f]``; transposed convolutions) and zero-padded, then a generic over (output dims, kernel spatial dims,
  input features per group) multiplying and accumulating in the result type;
  ``feature_group_count`` G splits the feature dims in (group, feature in group).

``gather`` batching dims (``operand_batching_dims`` paired with ``start_indices_batching_dims``)
read the operand at the batch coordinate of the paired indices dim.

Not converted (a located CompileError): base dilations other than 1 in ``reduce_window``,
``batch_group_count`` other than 1,
multi-operand ``reduce_window``, negative convolution padding.

Source followed: the StableHLO spec (``gather``, ``reduce_window``, ``convolution``) and IREE's
``StableHLOToLinalgConvolution.cpp`` / ``StableHLOToLinalgReduce.cpp`` for the generic forms.
"""
from xdsl.dialects import arith as xarith
from xdsl.dialects import tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, TensorType
from xdsl.dialects.linalg.ops import IndexOp
from xdsl.ir import Block, Region
from xdsl.ir.affine import AffineExpr

from rt.compiler.dialects import arith, stablehlo as hlo
from rt.compiler.dialects.flow_tensor_shape import TensorReshapeOp
from rt.compiler.dialects.linalg import FillOp
from rt.compiler.frontend.diagnostics import error_at_op
from rt.compiler.helpers.stablehlo.builders import (affine_maps, dim_exprs, empty, generic, int_list,
                                                          require_ranked, require_static)
from rt.compiler.helpers.stablehlo.elementwise import constant, convert, element_type, emit_elementwise


def _dynamic_dims(b, value):
    """``tensor.dim`` of each dynamic dim of ``value`` (a reshape's source/result sizes)."""
    return [b.add(tensor.DimOp(value, constant(b, i, IndexType())))
            for i, size in enumerate(value.type.get_shape()) if size == DYNAMIC_INDEX]


def _require_static_except(op, type_, dims):
    """CompileError at ``op`` unless every dim of ``type_`` outside ``dims`` is static: a symbolic
    batch dim (``jax.export``) passes through a window op whose window does not move along it."""
    dynamic = [d for d, size in enumerate(type_.get_shape()) if size == DYNAMIC_INDEX and d not in dims]
    if dynamic:
        raise error_at_op(op, f"'{op.name}' on {type_}: rt takes a dynamic size only in dims the window does not "
                              f"move along (a batch dim); dims {dynamic} are dynamic")


def _index(s, value):
    return s.add(arith.IndexCastOp.build(operands=[value], result_types=[IndexType()]))


def _clamp(s, value, high):
    low = s.add(xarith.MaxSIOp(value, constant(s, 0, IndexType())))
    return s.add(xarith.MinSIOp(low, constant(s, max(high, 0), IndexType())))


def convert_gather(op, b):
    """``stablehlo.gather`` -> a gathering ``linalg.generic`` (see the module docstring)."""
    operand, indices = op.inputs
    type_ = op.outputs[0].type
    require_ranked(op, operand.type, indices.type, type_)
    dims = op.attributes.get("dimension_numbers")
    if not isinstance(dims, hlo.GatherDimensionNumbersAttr):
        raise error_at_op(op, "'stablehlo.gather' needs dimension_numbers = #stablehlo.gather<...>")
    offset_dims, collapsed = dims.get("offset_dims"), dims.get("collapsed_slice_dims")
    start_map, vector_dim = dims.get("start_index_map"), dims.get("index_vector_dim", 0)
    operand_batching = list(dims.get("operand_batching_dims") or [])
    indices_batching = list(dims.get("start_indices_batching_dims") or [])
    sizes = int_list(op, "slice_sizes")
    shape, rank = operand.type.get_shape(), type_.get_num_dims()
    batch_out = [d for d in range(rank) if d not in offset_dims]
    index_batch = [d for d in range(indices.type.get_num_dims()) if d != vector_dim]
    kept = [d for d in range(len(shape)) if d not in collapsed and d not in operand_batching]
    if (len(batch_out) != len(index_batch) or len(kept) != len(offset_dims) or len(sizes) != len(shape)
            or len(operand_batching) != len(indices_batching) or any(p not in index_batch for p in indices_batching)
            or any(d in start_map or not 0 <= d < len(shape) for d in operand_batching)):
        raise error_at_op(op, f"'stablehlo.gather': {dims} and slice_sizes {sizes} do not fit {operand.type}, "
                              f"{indices.type} -> {type_}")
    # a dynamic operand dim is taken whole (slice size DYNAMIC_INDEX, what the shape pass writes
    # for jax.export's x[:, ::2]); the indexed dims keep static sizes, as their clamps need
    if any((size == DYNAMIC_INDEX) != (sizes[d] == DYNAMIC_INDEX) or (size == DYNAMIC_INDEX and (d not in kept or d in start_map))
           for d, size in enumerate(shape)):
        raise error_at_op(op, f"'stablehlo.gather' of {operand.type}: rt takes a dynamic operand dim only as a whole "
                              "slice that no index moves along")

    def body(s, args):
        out = [s.add(IndexOp(d)) for d in range(rank)]
        starts = {}
        for k, operand_dim in enumerate(start_map):
            coords = []
            for p in range(indices.type.get_num_dims()):
                coords.append(constant(s, k, IndexType()) if p == vector_dim
                              else out[batch_out[index_batch.index(p)]])
            raw = s.add(tensor.ExtractOp(indices, coords, element_type(indices.type)))
            starts[operand_dim] = _clamp(s, _index(s, raw), shape[operand_dim] - sizes[operand_dim])
        coords = []
        for d in range(len(shape)):
            if d in operand_batching:  # the batch coordinate of the paired indices dim
                coords.append(out[batch_out[index_batch.index(indices_batching[operand_batching.index(d)])]])
                continue
            offset = out[offset_dims[kept.index(d)]] if d in kept else None
            start = starts.get(d)
            if start is None:
                coords.append(offset if offset is not None else constant(s, 0, IndexType()))
            else:
                coords.append(start if offset is None else s.add(xarith.AddiOp(start, offset)))
        return [s.add(tensor.ExtractOp(operand, coords, element_type(type_)))]
    sources = [(indices, index_batch[batch_out.index(d)]) if d in batch_out else None for d in range(rank)]
    for d in kept:
        if shape[d] == DYNAMIC_INDEX:
            sources[offset_dims[kept.index(d)]] = (operand, d)
    if any(size < 0 and sources[d] is None for d, size in enumerate(type_.get_shape())) \
            or indices.type.get_shape()[vector_dim:vector_dim + 1] == (DYNAMIC_INDEX,):
        raise error_at_op(op, f"'stablehlo.gather' to {type_}: only the batch dims of the indices may be dynamic")
    return generic(b, [], [empty(b, type_, sources)], affine_maps(rank, dim_exprs(rank)),
                   ["parallel"] * rank, [type_], body)


def _dilated(b, value, factors):
    """``value`` with ``factors[dim] - 1`` zeros between neighbours along each dim of ``factors``
    (a convolution's ``lhs_dilation``): element ``i`` is ``value[i / f]`` where every ``i % f`` is 0."""
    if all(f == 1 for f in factors.values()):
        return value
    shape = list(value.type.get_shape())
    out_shape = [(size - 1) * factors.get(d, 1) + 1 for d, size in enumerate(shape)]
    out_type = TensorType(element_type(value.type), out_shape)

    def body(s, args):
        coords, on_grid = [], None
        for d in range(len(shape)):
            position = s.add(IndexOp(d))
            factor = factors.get(d, 1)
            if factor == 1:
                coords.append(position)
                continue
            step = constant(s, factor, IndexType())
            coords.append(s.add(xarith.DivUIOp(position, step)))
            hit = s.add(arith.CmpIOp(s.add(xarith.RemUIOp(position, step)), constant(s, 0, IndexType()), "eq"))
            on_grid = hit if on_grid is None else s.add(xarith.AndIOp(on_grid, hit))
        read = s.add(tensor.ExtractOp(value, coords, element_type(value.type)))
        zero = constant(s, 0, element_type(value.type))
        return [s.add(arith.SelectOp.build(operands=[on_grid, read, zero], result_types=[read.type]))]
    rank = len(shape)
    sources = [(value, d) if size == DYNAMIC_INDEX else None for d, size in enumerate(shape)]
    return generic(b, [], [empty(b, out_type, sources)], affine_maps(rank, dim_exprs(rank)), ["parallel"] * rank,
                   [out_type], body)[0]


def _pairs(op, key, rank, what):
    flat = int_list(op, key, [0] * (2 * rank))
    if len(flat) != 2 * rank:
        raise error_at_op(op, f"'{op.name}': {key} needs {rank} (low, high) pairs for {what}, got {flat}")
    return flat[0::2], flat[1::2]


def _padded(b, op, value, low, high, pad_value):
    """``value`` padded by ``low``/``high`` (>= 0) with the scalar ``pad_value``."""
    if not any(low) and not any(high):
        return value
    if any(v < 0 for v in low + high):
        raise error_at_op(op, f"'{op.name}' with negative padding ({low}, {high}) is not supported by rt")
    shape = [s + lo + hi for s, lo, hi in zip(value.type.get_shape(), low, high)]
    block = Block(arg_types=[IndexType()] * len(shape))
    block.add_op(tensor.YieldOp(pad_value))
    return b.add(tensor.PadOp(value, [], [], Region(block), low, high, TensorType(element_type(value.type), shape)))


def convert_reduce_window(op, b, reduction_body):
    """``stablehlo.reduce_window`` (one operand) -> pad + a windowed reduction ``linalg.generic``."""
    if len(op.inputs) != 2:
        raise error_at_op(op, "'stablehlo.reduce_window' of several operands is not supported by rt")
    value, init = op.inputs
    type_ = op.outputs[0].type
    rank = value.type.get_num_dims()
    window = int_list(op, "window_dimensions")
    strides = int_list(op, "window_strides", [1] * rank)
    dilations = int_list(op, "window_dilations", [1] * rank)
    if any(v != 1 for v in int_list(op, "base_dilations", [1] * rank)):
        raise error_at_op(op, "'stablehlo.reduce_window' with base_dilations is not supported by rt")
    low, high = _pairs(op, "padding", rank, "the operand")
    fixed = [d for d in range(rank) if window[d] == strides[d] == 1 and low[d] == high[d] == 0]
    _require_static_except(op, value.type, fixed)
    _require_static_except(op, type_, fixed)
    init_scalar = b.add(tensor.ExtractOp(init, [], element_type(init.type)))
    padded = _padded(b, op, value, low, high, init_scalar)
    window_type = TensorType(element_type(type_), window)
    sources = [(value, d) if size == DYNAMIC_INDEX else None for d, size in enumerate(type_.get_shape())]
    out = b.add(FillOp([init_scalar], [empty(b, type_, sources)], [type_]))
    d = AffineExpr.dimension
    x_map = [d(i) * strides[i] + d(rank + i) * dilations[i] for i in range(rank)]
    maps = affine_maps(2 * rank, x_map, [d(rank + i) for i in range(rank)], [d(i) for i in range(rank)])
    iterators = ["parallel"] * rank + ["reduction"] * rank
    return generic(b, [padded, empty(b, window_type)], [out], maps, iterators, [type_],
                           lambda s, args: reduction_body(s, [args[0], args[2]]))


def convert_convolution(op, b):
    """``stablehlo.convolution`` -> zero padding + a contraction ``linalg.generic``."""
    lhs, rhs = op.inputs
    type_ = op.outputs[0].type
    require_static(op, rhs.type)
    dims = op.attributes.get("dimension_numbers")
    if not isinstance(dims, hlo.ConvDimensionNumbersAttr):
        raise error_at_op(op, "'stablehlo.convolution' needs dimension_numbers = #stablehlo.conv<...>")
    _require_static_except(op, lhs.type, [dims.get("input_batch_dimension")])
    _require_static_except(op, type_, [dims.get("output_batch_dimension")])
    source = lhs  # the batch size of the result
    n = len(dims.get("input_spatial_dimensions"))
    base_dilations = int_list(op, "lhs_dilation", [1] * n)
    if len(base_dilations) != n or any(v < 1 for v in base_dilations):
        raise error_at_op(op, f"'stablehlo.convolution': lhs_dilation {base_dilations} needs {n} factors >= 1")
    if int_list(op, "batch_group_count", [1])[0] != 1:
        raise error_at_op(op, "'stablehlo.convolution' with batch_group_count > 1 is not supported by rt")
    groups = int_list(op, "feature_group_count", [1])[0]
    strides = int_list(op, "window_strides", [1] * n)
    dilations = int_list(op, "rhs_dilation", [1] * n)
    in_spatial, k_spatial = dims.get("input_spatial_dimensions"), dims.get("kernel_spatial_dimensions")
    out_spatial = dims.get("output_spatial_dimensions")
    in_b, in_f = dims.get("input_batch_dimension"), dims.get("input_feature_dimension")
    k_i, k_o = dims.get("kernel_input_feature_dimension"), dims.get("kernel_output_feature_dimension")
    out_b, out_f = dims.get("output_batch_dimension"), dims.get("output_feature_dimension")
    lhs = _dilated(b, lhs, {dim: f for dim, f in zip(dims.get("input_spatial_dimensions"), base_dilations)})
    low_s, high_s = _pairs(op, "padding", n, "the spatial dims")
    low, high = [0] * (n + 2), [0] * (n + 2)
    for i, dim in enumerate(in_spatial):
        low[dim], high[dim] = low_s[i], high_s[i]
    padded = _padded(b, op, lhs, low, high, constant(b, 0, element_type(lhs.type)))
    rank = n + 2
    channels, outputs = lhs.type.get_shape()[in_f], rhs.type.get_shape()[k_o]
    per_group = rhs.type.get_shape()[k_i]
    if channels != per_group * groups or outputs % groups:
        raise error_at_op(op, f"'stablehlo.convolution': {channels} input features, kernel {rhs.type} and "
                              f"feature_group_count {groups} do not fit")
    # With G feature groups the feature dims are split in (group, feature in group): the input's
    # C into (G, C/G), the kernel's and the output's O into (G, O/G) (metadata-only reshapes), so
    # every indexing expression stays a sum of dims times constants.
    split = groups != 1
    if split:
        padded = _split_dim(b, padded, in_f, groups)
        rhs = _split_dim(b, rhs, k_o, groups)
    out_type = _split_type(type_, out_f, groups) if split else type_

    def at(dim, split_at):
        """The position of an unsplit dim once the dim ``split_at`` became two."""
        return dim + 1 if split and dim > split_at else dim

    d = AffineExpr.dimension
    out_rank = rank + (1 if split else 0)
    window = [d(out_rank + i) for i in range(n)]
    channel = d(out_rank + n)
    lhs_exprs = [None] * out_rank
    lhs_exprs[at(in_b, in_f)] = d(at(out_b, out_f))
    for i in range(n):
        lhs_exprs[at(in_spatial[i], in_f)] = d(at(out_spatial[i], out_f)) * strides[i] + window[i] * dilations[i]
    rhs_exprs = [None] * out_rank
    rhs_exprs[at(k_i, k_o)] = channel
    for i in range(n):
        rhs_exprs[at(k_spatial[i], k_o)] = window[i]
    if split:
        lhs_exprs[in_f], lhs_exprs[in_f + 1] = d(out_f), channel
        rhs_exprs[k_o], rhs_exprs[k_o + 1] = d(out_f), d(out_f + 1)
    else:
        lhs_exprs[in_f], rhs_exprs[k_o] = channel, d(out_f)
    element = element_type(type_)
    batch = [(source, in_b) if d == at(out_b, out_f) and size == DYNAMIC_INDEX else None
             for d, size in enumerate(out_type.get_shape())]
    init = b.add(FillOp([constant(b, 0, element)], [empty(b, out_type, batch)], [out_type]))

    def body(s, args):
        x, w, acc = (convert(s, op, v, element) for v in args)
        product = emit_elementwise(s, op, [x, w], element, kind=hlo.MulOp)
        return [emit_elementwise(s, op, [acc, product], element, kind=hlo.AddOp)]
    maps = affine_maps(out_rank + n + 1, lhs_exprs, rhs_exprs, dim_exprs(out_rank))
    iterators = ["parallel"] * out_rank + ["reduction"] * (n + 1)
    result = generic(b, [padded, rhs], [init], maps, iterators, [out_type], body)
    if split:
        sizes = _dynamic_dims(b, result[0])
        result = [b.add(TensorReshapeOp.build(operands=[result[0], sizes, sizes], result_types=[type_]))]
    return result


def _split_type(type_, dim, groups):
    shape = list(type_.get_shape())
    shape[dim:dim + 1] = [groups, shape[dim] // groups]
    return TensorType(element_type(type_), shape)


def _split_dim(b, value, dim, groups):
    """``value`` with dim ``dim`` split in (groups, size / groups): a metadata-only reshape."""
    sizes = _dynamic_dims(b, value)
    return b.add(TensorReshapeOp.build(operands=[value, sizes, sizes], result_types=[_split_type(value.type, dim, groups)]))


def convert_scatter(op, b, combine):
    """``stablehlo.scatter`` (one operand) -> a ``linalg.generic`` that pulls: for every operand
    element and every update element, in update order, the combiner applies when the update's
    target (its start index from the indices plus its window offset) is that element.
    O(operand x updates) work, but any combiner and repeated indices (the last update wins for a
    replacing combiner) are exact; ``combine(sink, [update, current])`` is the combiner region."""
    if len(op.inputs) != 3:
        raise error_at_op(op, "'stablehlo.scatter' of several operands is not supported by rt")
    operand, indices, updates = op.inputs
    type_ = op.outputs[0].type
    require_ranked(op, operand.type, indices.type, updates.type, type_)
    dims = op.attributes.get("scatter_dimension_numbers")
    if not isinstance(dims, hlo.ScatterDimensionNumbersAttr):
        raise error_at_op(op, "'stablehlo.scatter' needs scatter_dimension_numbers = #stablehlo.scatter<...>")
    if dims.get("input_batching_dims") or dims.get("scatter_indices_batching_dims"):
        raise error_at_op(op, "'stablehlo.scatter' with batching dims is not supported by rt")
    window, inserted = dims.get("update_window_dims"), dims.get("inserted_window_dims")
    to_operand, vector_dim = dims.get("scatter_dims_to_operand_dims"), dims.get("index_vector_dim", 0)
    rank, update_rank, index_rank = operand.type.get_num_dims(), updates.type.get_num_dims(), indices.type.get_num_dims()
    scatter_dims = [d for d in range(update_rank) if d not in window]
    index_batch = [d for d in range(index_rank) if d != vector_dim]
    kept = [d for d in range(rank) if d not in inserted]
    if len(scatter_dims) != len(index_batch) or len(kept) != len(window):
        raise error_at_op(op, f"'stablehlo.scatter': {dims} does not fit {operand.type}, {indices.type}, "
                              f"{updates.type}")

    def body(s, args):
        update, current = args
        out = [s.add(IndexOp(d)) for d in range(rank)]
        upd = [s.add(IndexOp(rank + d)) for d in range(update_rank)]
        start = {}
        for k, operand_dim in enumerate(to_operand):
            coords = [constant(s, k, IndexType()) if p == vector_dim else upd[scatter_dims[index_batch.index(p)]]
                      for p in range(index_rank)]
            raw = s.add(tensor.ExtractOp(indices, coords, element_type(indices.type)))
            start[operand_dim] = _index(s, raw)
        match = None
        for d in range(rank):
            target = start.get(d)
            if d in kept:
                offset = upd[window[kept.index(d)]]
                target = offset if target is None else s.add(xarith.AddiOp(target, offset))
            if target is None:
                target = constant(s, 0, IndexType())
            same = s.add(arith.CmpIOp(target, out[d], "eq"))
            match = same if match is None else s.add(xarith.AndIOp(match, same))
        combined = combine(s, [update, current])[0]
        return [s.add(arith.SelectOp.build(operands=[match, combined, current], result_types=[element_type(type_)]))]
    maps = affine_maps(rank + update_rank, [AffineExpr.dimension(rank + d) for d in range(update_rank)],
                       dim_exprs(rank))
    return generic(b, [updates], [operand], maps, ["parallel"] * rank + ["reduction"] * update_rank, [type_], body)
