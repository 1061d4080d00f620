"""``iree-flow-convert-to-flow``: host-side tensor ops -> ``flow.tensor.*``.

Input: util.func and util.initializer bodies after ``iree-abi-wrap-entry-points`` (tensor,
linalg, arith ops).
Output: the tensor ops that only move or reinterpret data become flow ops carrying their
dynamic dims; compute stays in tensor/linalg for dispatch formation:

* ``tensor.empty`` -> ``flow.tensor.empty``; ``tensor.splat`` and splat ``arith.constant``
  tensors -> ``flow.tensor.splat`` of a scalar constant (never expanded);
* ``tensor.expand_shape`` / ``collapse_shape`` / ``reshape`` / ``cast`` (all metadata-only on
  dense row-major tensors) -> ``flow.tensor.reshape`` (a cast to the same type disappears);
* ``tensor.extract_slice`` / ``insert_slice`` with unit strides whose slice is contiguous
  (every dim inside the first partial one is full, every dim outside it has size 1) ->
  ``flow.tensor.slice`` / ``flow.tensor.update`` (plus a reshape for rank-reducing slices);
  other slices stay for dispatch formation;
* ``tensor.concat`` along a dim whose outer dims all have size 1 -> ``flow.tensor.empty`` +
  one ``flow.tensor.update`` per input; other concats stay for dispatch formation;
* ``tensor.extract`` / ``insert`` / ``from_elements`` -> ``flow.tensor.load`` / ``store``;
* ``tensor.dim`` of values whose dims are known folds to those dims;
* ``flow.tensor.slice`` / ``flow.tensor.update`` written in the input whose window is not
  provably contiguous become ``tensor.extract_slice`` / ``insert_slice`` for dispatch formation
  (IREE's encode-host-tensors assumes contiguity and would copy the wrong bytes).
``util.unfoldable_constant``, ``flow.tensor.transfer`` and non-splat constants are kept.

Example::

    %0 = tensor.collapse_shape %arg0 [[0, 1]] : tensor<1x10xf32> into tensor<10xf32>
    %1 = tensor.empty() : tensor<10xf32>
    // ->
    %0 = flow.tensor.reshape %arg0 : tensor<1x10xf32> -> tensor<10xf32>
    %1 = flow.tensor.empty : tensor<10xf32>

Source followed: IREE ``DispatchCreation/ConvertTensorToFlow.cpp`` and
``Flow/Conversion/TensorToFlow/Patterns.cpp`` (contiguity rule of ``isOffsetSizeAndStrideMappableToFlow``).
"""
import dataclasses

from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, AnyFloat, FloatAttr, IndexType, IntegerAttr, TensorType
from xdsl.rewriter import Rewriter

from rt.compiler.dialects import flow, util
from rt.compiler.dialects.flow_types import constant_index
from rt.compiler.frontend import is_splat, splat_value
from rt.compiler.op_handlers import OpHandlers, handles
from rt.compiler.passes.base import Pass
from rt.compiler.helpers.dispatch.dce import erase_dead_ops
from rt.compiler.helpers.dispatch.shapes import fold_tensor_dims, materialize_dims

INDEX = IndexType()


def _at(op):
    """Helper that inserts new ops before ``op`` with its location; returns the new op."""
    def insert(new):
        new.location = op.location
        op.parent_block().insert_op_before(new, op)
        return new
    return insert


def _index(insert, value):
    """An index SSA value for an int or pass an SSA value through."""
    if isinstance(value, int):
        return insert(arith.ConstantOp(IntegerAttr(value, INDEX))).result
    return value


def _mixed(static, dynamic):
    dynamic = list(dynamic)
    return [dynamic.pop(0) if s == DYNAMIC_INDEX else s for s in static]


def _reshape(insert, value, value_dims, result_type, result_dims):
    return insert(flow.TensorReshapeOp.build(operands=[value, list(value_dims), list(result_dims)],
                                             result_types=[result_type])).result


def _full_type(sizes, element_type):
    return TensorType(element_type, [s if isinstance(s, int) else DYNAMIC_INDEX for s in sizes])


def _is_contiguous(full_shape, full_dims, offsets, sizes, strides):
    """IREE's rule: unit strides; inside the first partial dim all full, outside it all size 1."""
    if any(s != 1 for s in strides):
        return False
    dims = list(full_dims)
    extents = [dims.pop(0) if s == DYNAMIC_INDEX else s for s in full_shape]
    d = len(sizes) - 1
    while d >= 0 and offsets[d] == 0 and (sizes[d] is extents[d] or sizes[d] == extents[d]):
        d -= 1
    return all(s == 1 for s in sizes[:max(d, 0)])


def _window(values):
    """Offsets or lengths of a flow op: constants as ints, other values as they are."""
    return [v if constant_index(v) is None else constant_index(v) for v in values]


def _assumed_zero(offsets):
    """Offsets for the contiguity rule: an unknown offset of a full dim can only be 0 in bounds."""
    return [o if isinstance(o, int) else 0 for o in offsets]


def _dynamic_values(sizes):
    return [s for s in sizes if not isinstance(s, int)]


def _concat_extents(op, axis):
    """The dims of ``op``'s (a tensor.concat's) result: an int or an index value per dim.

    The result's concat dim is the inputs' sum. Every other dim is one value that the result and
    every input's update share (a static size where the result or any input has one, else the
    first input's dim): the inputs agree there (rt-insert-shape-checks asserts it at run time),
    and iree-stream-encode-host-tensors proves an update one contiguous byte range only when its
    row extents are the target's own values.
    """
    result_dims = materialize_dims(op.result, op)
    extents = []
    for d, size in enumerate(_mixed(op.result.type.get_shape(), result_dims)):
        if d != axis and not isinstance(size, int):
            size = next((item.type.get_shape()[d] for item in op.inputs
                         if item.type.get_shape()[d] != DYNAMIC_INDEX), size)
        extents.append(size)
    return extents


@dataclasses.dataclass(frozen=True)
class ConvertToFlowPass(Pass):
    """Host tensor data movement -> flow.tensor.* ops."""

    name = "iree-flow-convert-to-flow"
    handler = OpHandlers()

    def run(self, module, ctx):
        for fn in [op for op in module.body.block.ops if isinstance(op, (util.FuncOp, util.InitializerOp))]:
            fold_tensor_dims(fn)
            for op in list(fn.walk()):
                if self._in_linalg_body(op):
                    continue
                handler = self.handler(op)
                if handler is not None:
                    handler(op)
            fold_tensor_dims(fn)
            erase_dead_ops(fn)

    @staticmethod
    def _in_linalg_body(op):
        parent = op.parent_op()
        while parent is not None:
            # any linalg op's region is a payload body
            if parent.dialect_name() == "linalg" or isinstance(parent, tensor.PadOp):
                return True
            parent = parent.parent_op()
        return False

    @handles(tensor.EmptyOp)
    def _tensor_empty(self, op):
        new = flow.TensorEmptyOp.build(operands=[list(op.dynamic_sizes)], result_types=[op.tensor.type])
        new.location = op.location
        Rewriter.replace_op(op, new)

    @handles(tensor.SplatOp)
    def _tensor_splat(self, op):
        new = flow.TensorSplatOp.build(operands=[op.input, list(op.dynamicSizes)], result_types=[op.result.type])
        new.location = op.location
        Rewriter.replace_op(op, new)

    @handles(arith.ConstantOp)
    def _arith_constant(self, op):
        type_ = op.result.type
        if not isinstance(type_, TensorType) or not is_splat(op.value):
            return
        insert = _at(op)
        element = type_.element_type
        value = splat_value(op.value)
        attr = FloatAttr(float(value), element) if isinstance(element, AnyFloat) else IntegerAttr(int(value), element)
        scalar = insert(arith.ConstantOp(attr, element))
        new = flow.TensorSplatOp.build(operands=[scalar.result, []], result_types=[type_])
        new.location = op.location
        Rewriter.replace_op(op, new)

    def _reshape_like(self, op, source, result_dims):
        src_dims = materialize_dims(source, op)
        new = flow.TensorReshapeOp.build(operands=[source, src_dims, result_dims], result_types=[op.results[0].type])
        new.location = op.location
        Rewriter.replace_op(op, new)

    @handles(tensor.CollapseShapeOp)
    def _tensor_collapse_shape(self, op):
        self._reshape_like(op, op.src, materialize_dims(op.result, op))

    @handles(tensor.ExpandShapeOp)
    def _tensor_expand_shape(self, op):
        self._reshape_like(op, op.src, list(op.dynamic_output_shape))

    @handles(tensor.CastOp)
    def _tensor_cast(self, op):
        src_type, dst_type = op.source.type, op.dest.type
        if not isinstance(src_type, TensorType) or not isinstance(dst_type, TensorType):
            return
        if src_type == dst_type:
            Rewriter.replace_op(op, [], [op.source])
            return
        insert = _at(op)
        src_dims = materialize_dims(op.source, op)
        all_dims = _mixed(src_type.get_shape(), src_dims)
        result_dims = [_index(insert, all_dims[d]) for d, s in enumerate(dst_type.get_shape()) if s == DYNAMIC_INDEX]
        self._reshape_like(op, op.source, result_dims)

    @handles(tensor.ReshapeOp)
    def _tensor_reshape(self, op):
        insert = _at(op)
        result_dims = []
        for d, size in enumerate(op.result.type.get_shape()):
            if size != DYNAMIC_INDEX:
                continue
            shape_dims = materialize_dims(op.shape, op)
            value = insert(flow.TensorLoadOp.build(
                operands=[op.shape, shape_dims, [_index(insert, d)]],
                result_types=[op.shape.type.element_type])).result
            if not isinstance(value.type, IndexType):
                value = insert(arith.IndexCastOp(value, INDEX)).result
            result_dims.append(value)
        self._reshape_like(op, op.source, result_dims)

    @handles(tensor.ExtractSliceOp)
    def _tensor_extract_slice(self, op):
        offsets = _mixed(op.static_offsets.get_values(), op.offsets)
        sizes = _mixed(op.static_sizes.get_values(), op.sizes)
        strides = _mixed(op.static_strides.get_values(), op.strides)
        src_dims = materialize_dims(op.source, op)
        if not _is_contiguous(op.source.type.get_shape(), src_dims, offsets, sizes, strides):
            return
        insert = _at(op)
        full_type = _full_type(sizes, op.source.type.element_type)
        sliced = insert(flow.TensorSliceOp.build(
            operands=[op.source, src_dims, [_index(insert, o) for o in offsets], [_index(insert, s) for s in sizes],
                      _dynamic_values(sizes)],
            result_types=[full_type])).result
        if full_type != op.result.type:
            result_dims = [s for s in sizes if not isinstance(s, int)]
            if len(result_dims) != sum(1 for d in op.result.type.get_shape() if d == DYNAMIC_INDEX):
                return
            sliced = _reshape(insert, sliced, _dynamic_values(sizes), op.result.type, result_dims)
        Rewriter.replace_op(op, [], [sliced])

    @handles(tensor.InsertSliceOp)
    def _tensor_insert_slice(self, op):
        offsets = _mixed(op.static_offsets.get_values(), op.offsets)
        sizes = _mixed(op.static_sizes.get_values(), op.sizes)
        strides = _mixed(op.static_strides.get_values(), op.strides)
        dest_dims = materialize_dims(op.dest, op)
        if not _is_contiguous(op.dest.type.get_shape(), dest_dims, offsets, sizes, strides):
            return
        insert = _at(op)
        update = op.source
        update_dims = materialize_dims(update, op)
        full_type = _full_type(sizes, update.type.element_type)
        if full_type != update.type:
            update = _reshape(insert, update, update_dims, full_type, _dynamic_values(sizes))
            update_dims = _dynamic_values(sizes)
        new = insert(flow.TensorUpdateOp.build(
            operands=[op.dest, dest_dims, [_index(insert, o) for o in offsets], update, update_dims],
            result_types=[op.result.type]))
        Rewriter.replace_op(op, [], [new.result])

    @handles(tensor.ConcatOp)
    def _tensor_concat(self, op):
        axis = op.dim.value.data
        result_type = op.result.type
        if any(s != 1 for s in result_type.get_shape()[:axis]):
            return
        insert = _at(op)
        shape = result_type.get_shape()
        extents = _concat_extents(op, axis)
        result_dims = [_index(insert, extents[d]) for d, s in enumerate(shape) if s == DYNAMIC_INDEX]
        current = insert(flow.TensorEmptyOp.build(operands=[result_dims], result_types=[result_type])).result
        offset = _index(insert, 0)
        for item in op.inputs:
            own = _mixed(item.type.get_shape(), materialize_dims(item, op))
            item_dims = [own[d] if d == axis else _index(insert, extents[d])
                         for d, s in enumerate(item.type.get_shape()) if s == DYNAMIC_INDEX]
            starts = [offset if d == axis else _index(insert, 0) for d in range(len(shape))]
            current = insert(flow.TensorUpdateOp.build(
                operands=[current, result_dims, starts, item, item_dims], result_types=[result_type])).result
            size = _mixed(item.type.get_shape(), item_dims)[axis]
            offset = insert(arith.AddiOp(offset, _index(insert, size))).result
        Rewriter.replace_op(op, [], [current])

    @handles(flow.TensorSliceOp)
    def _flow_tensor_slice(self, op):
        offsets, sizes = _window(op.start_indices), _window(op.lengths)
        if _is_contiguous(op.source.type.get_shape(), op.source_dims, _assumed_zero(offsets), sizes, [1] * len(sizes)):
            return
        new = tensor.ExtractSliceOp(op.source, offsets, sizes, [1] * len(sizes), op.result.type)
        new.location = op.location
        Rewriter.replace_op(op, new)

    @handles(flow.TensorUpdateOp)
    def _flow_tensor_update(self, op):
        offsets = _window(op.start_indices)
        sizes = _mixed(op.update.type.get_shape(), op.update_dims)
        if _is_contiguous(op.target.type.get_shape(), op.target_dims, _assumed_zero(offsets), sizes, [1] * len(sizes)):
            return
        static_offsets = [o if isinstance(o, int) else DYNAMIC_INDEX for o in offsets]
        static_sizes = [s if isinstance(s, int) else DYNAMIC_INDEX for s in sizes]
        new = tensor.InsertSliceOp.get(op.update, op.target, static_sizes, static_offsets,
                                       offsets=[o for o in offsets if not isinstance(o, int)],
                                       sizes=[s for s in sizes if not isinstance(s, int)], result_type=op.result.type)
        new.location = op.location
        Rewriter.replace_op(op, new)

    @handles(tensor.ExtractOp)
    def _tensor_extract(self, op):
        new = flow.TensorLoadOp.build(operands=[op.tensor, materialize_dims(op.tensor, op), list(op.indices)],
                                      result_types=[op.result.type])
        new.location = op.location
        Rewriter.replace_op(op, new)

    @handles(tensor.InsertOp)
    def _tensor_insert(self, op):
        new = flow.TensorStoreOp.build(operands=[op.scalar, op.dest, materialize_dims(op.dest, op), list(op.indices)],
                                       result_types=[op.result.type])
        new.location = op.location
        Rewriter.replace_op(op, new)

    @handles(tensor.FromElementsOp)
    def _tensor_from_elements(self, op):
        insert = _at(op)
        type_ = op.result.type
        current = insert(flow.TensorEmptyOp.build(operands=[[]], result_types=[type_])).result
        shape = type_.get_shape()
        for flat, element in enumerate(op.elements):
            index, rest = [], flat
            for size in reversed(shape):
                index.insert(0, rest % size)
                rest //= size
            current = insert(flow.TensorStoreOp.build(
                operands=[element, current, [], [_index(insert, i) for i in index]], result_types=[type_])).result
        Rewriter.replace_op(op, [], [current])

