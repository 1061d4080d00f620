"""Dynamic dims of host tensors: where each ``?`` of a tensor value comes from.

Flow and HAL ops carry the dynamic dims of their tensors as index operands
(``tensor<?x4xf32>{%d}``); ``tensor.empty`` carries its sizes; DPS ops (linalg, pack/unpack)
have the shape of their init. :func:`known_dims` follows those facts without creating IR;
:func:`materialize_dims` returns index values for every dynamic dim of a value, computing
collapses/slices/pads with arith ops or falling back to ``tensor.dim`` (which
:func:`fold_tensor_dims` later resolves). Used by the ABI and dispatch-creation passes.

Source followed: IREE ``Util/IR/UtilInterfaces`` (ShapeAwareOpInterface) and
``IREE::Util::buildDynamicDimsForValue``.
"""
from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, IntegerAttr, TensorType
from xdsl.dialects.linalg.ops import BroadcastOp, ReduceOp
from xdsl.ir import OpResult
from xdsl.rewriter import Rewriter

from rt.compiler.dialects import flow, hal, util
from rt.compiler.dialects._linalg_ext_attention import AttentionOp, OnlineAttentionOp
from rt.compiler.dialects.flow_types import split_dims
from rt.compiler.dialects.iree_encoding import SetEncodingOp, UnsetEncodingOp
from rt.compiler.dialects.linalg import PackOp, SoftmaxOp, UnPackOp

INDEX = IndexType()


def _dims_of_result(op, index):
    """Dims held by ``op`` for its result ``index``, or None when ``op`` does not record them."""
    if isinstance(op, (flow.DispatchOp, flow.DispatchRegionOp, flow.DispatchWorkgroupsOp)):
        return split_dims([r.type for r in op.results], list(op.result_dims))[index]
    if isinstance(op, (flow.TensorReshapeOp, flow.TensorBitCastOp, flow.TensorEmptyOp, flow.TensorAllocaOp,
                       flow.TensorSplatOp, flow.TensorCloneOp, flow.TensorSliceOp)):
        return list(op.result_dims)
    if isinstance(op, (flow.TensorUpdateOp, flow.TensorStoreOp)):
        return list(op.target_dims)
    if isinstance(op, flow.TensorTieShapeOp):
        return list(op.dynamic_dims)
    if isinstance(op, flow.TensorTransferOp):
        return list(op.operand_dims)
    if isinstance(op, hal.TensorImportOp):
        return list(op.target_dims)
    if isinstance(op, tensor.EmptyOp):
        return list(op.dynamic_sizes)
    if isinstance(op, (SetEncodingOp, UnsetEncodingOp)) and (op.result_dims or isinstance(op, UnsetEncodingOp)):
        return list(op.result_dims)
    return None


def _tied_source(op, index):
    """The operand whose shape result ``index`` of ``op`` has (DPS init, barrier operand), or None."""
    outputs = getattr(op, "outputs", None)
    # every linalg op with outputs is destination-passing
    if outputs is not None and op.dialect_name() == "linalg" and index < len(outputs):
        return outputs[index]
    if isinstance(op, (BroadcastOp, ReduceOp)):  # xDSL names their inits ``init``
        return op.init
    if isinstance(op, (PackOp, UnPackOp, tensor.InsertSliceOp, tensor.InsertOp)):
        return op.dest
    if isinstance(op, SoftmaxOp):
        return op.output
    if isinstance(op, (AttentionOp, OnlineAttentionOp)):
        return op.outputs[index]
    if isinstance(op, util.OptimizationBarrierOp):
        return op.operands[index]
    if isinstance(op, SetEncodingOp):
        return op.source
    return None


def known_dims(value):
    """Index values for the dynamic dims of ``value`` found without creating IR, or None."""
    if not isinstance(value.type, TensorType):
        return []
    if dynamic_count(value.type) == 0:
        return []
    while isinstance(value, OpResult):
        dims = _dims_of_result(value.op, value.index)
        if dims is not None:
            return dims
        source = _tied_source(value.op, value.index)
        if source is None:
            return None
        value = source
    return None


def dynamic_count(type_):
    return sum(1 for d in type_.get_shape() if d == DYNAMIC_INDEX)


def _insert(ops, before):
    for op in ops:
        op.location = before.location
        before.parent_block().insert_op_before(op, before)


def _constant(value, before):
    op = arith.ConstantOp(IntegerAttr(value, INDEX))
    _insert([op], before)
    return op.result


def _dim_value(value, d, before):
    """Index value of dim ``d`` of ``value`` (constant when static)."""
    size = value.type.get_shape()[d]
    if size != DYNAMIC_INDEX:
        return _constant(size, before)
    dims = materialize_dims(value, before)
    return dims[sum(1 for s in value.type.get_shape()[:d] if s == DYNAMIC_INDEX)]


def _derived_dims(value, before):
    """Dims computed from the defining op's operands (collapse, expand, slice, pad, concat), or None."""
    op = value.op if isinstance(value, OpResult) else None
    shape = value.type.get_shape()
    dynamic = [d for d, s in enumerate(shape) if s == DYNAMIC_INDEX]
    if isinstance(op, tensor.CollapseShapeOp):
        groups = [[x.value.data for x in g.data] for g in op.reassociation.data]
        out = []
        for d in dynamic:
            total = None
            for src_dim in groups[d]:
                size = _dim_value(op.src, src_dim, before)
                if total is None:
                    total = size
                else:
                    mul = arith.MuliOp(total, size)
                    _insert([mul], before)
                    total = mul.result
            out.append(total)
        return out
    if isinstance(op, tensor.ExpandShapeOp):
        return list(op.dynamic_output_shape)
    if isinstance(op, tensor.ExtractSliceOp) and len(op.static_sizes.get_values()) == len(shape):
        return list(op.sizes)
    if isinstance(op, tensor.PadOp):
        out = []
        lows = _mixed(op.static_low.get_values(), op.low)
        highs = _mixed(op.static_high.get_values(), op.high)
        for d in dynamic:
            total = _dim_value(op.source, d, before)
            for pad in (lows[d], highs[d]):
                pad = _constant(pad, before) if isinstance(pad, int) else pad
                add = arith.AddiOp(total, pad)
                _insert([add], before)
                total = add.result
            out.append(total)
        return out
    if isinstance(op, tensor.ConcatOp):
        axis = op.dim.value.data
        out = []
        for d in dynamic:
            if d != axis:
                out.append(_dim_value(op.inputs[0], d, before))
                continue
            total = None
            for item in op.inputs:
                size = _dim_value(item, d, before)
                if total is None:
                    total = size
                else:
                    add = arith.AddiOp(total, size)
                    _insert([add], before)
                    total = add.result
            out.append(total)
        return out
    return None


def _mixed(static, dynamic):
    dynamic = list(dynamic)
    return [dynamic.pop(0) if s == DYNAMIC_INDEX else s for s in static]


def materialize_dims(value, before):
    """Index values for every dynamic dim of ``value``, creating ops before ``before`` if needed."""
    dims = known_dims(value)
    if dims is not None:
        return dims
    current = value
    while isinstance(current, OpResult) and _tied_source(current.op, current.index) is not None:
        current = _tied_source(current.op, current.index)
    if isinstance(current, OpResult):
        derived = _derived_dims(current, before)
        if derived is not None:
            return derived
    out = []  # dims of the tied source: ``value`` itself may be defined by ``before`` (a dispatch root)
    for d, size in enumerate(value.type.get_shape()):
        if size == DYNAMIC_INDEX:
            index = arith.ConstantOp(IntegerAttr(d, INDEX))
            dim = tensor.DimOp(current, index)
            _insert([index, dim], before)
            out.append(dim.result)
    return out


def fold_tensor_dims(root):
    """Replace ``tensor.dim`` ops under ``root`` whose answer is known (static size or recorded dim)."""
    changed = False
    for op in [o for o in root.walk() if isinstance(o, tensor.DimOp)]:
        index_op = op.index.op if isinstance(op.index, OpResult) else None
        if not isinstance(index_op, arith.ConstantOp) or not isinstance(op.source.type, TensorType):
            continue
        d = index_op.value.value.data
        shape = op.source.type.get_shape()
        if not 0 <= d < len(shape):
            continue
        if shape[d] != DYNAMIC_INDEX:
            new = arith.ConstantOp(IntegerAttr(shape[d], INDEX))
            new.location = op.location
            Rewriter.replace_op(op, new)
            changed = True
            continue
        dims = known_dims(op.source)
        if dims is None:
            continue
        known = dims[sum(1 for s in shape[:d] if s == DYNAMIC_INDEX)]
        if known is op.result:
            continue
        Rewriter.replace_op(op, [], [known])
        changed = True
    return changed
