"""``iree-dispatch-creation-bubble-up-expand-shapes``: reshapes moved out from between a grouped
convolution and its bias and epilogue, so they fuse into its dispatch.

Input: host functions after global optimization (linalg on tensors, before
``iree-flow-convert-to-flow`` turns reshapes into ``flow.tensor.reshape``). An importer writes a
grouped convolution on the group-split shapes between reshapes of the ungrouped ones (ONNX
``Conv(group=G)`` through torch-mlir: ``[N, G*F, H, W]`` <-> ``[N, G, F, H, W]``)::

    %b = linalg.broadcast ins(%bias : tensor<72xf32>) outs(%e : tensor<1x72x12x12xf32>) dimensions = [0, 2, 3]
    %i = tensor.expand_shape %b [[0], [1, 2], [3], [4]] : ... into tensor<1x4x18x12x12xf32>
    %c = linalg.conv_2d_ngchw_gfchw ins(%x, %w : ...) outs(%i : tensor<1x4x18x12x12xf32>)
    %r = tensor.collapse_shape %c [[0], [1, 2], [3], [4]] : ... into tensor<1x72x12x12xf32>
    %y = linalg.generic {identity maps, parallel} ins(%r : tensor<1x72x12x12xf32>) ... {relu}

so the bias broadcast and the relu each became a dispatch of their own. Two rewrites, applied
until none matches:

1. ``expand_shape(broadcast(%v))`` whose broadcast has no other user -> ``broadcast(expand_shape(%v))``
   on the expanded shape (a split dim of the result splits the input dim it came from, or
   stays a broadcast dim), so the broadcast is the conv's init and joins its dispatch;
2. an elementwise ``linalg.generic`` (parallel loops, identity maps, no ``linalg.index``) reading
   ``collapse_shape(%c)`` where ``%c`` is a convolution's or another such generic's result ->
   the generic on ``%c``'s shape (its other operands expanded the same way), then one
   ``collapse_shape`` of its result, so it is the conv's consumer and fuses as its epilogue.

Only static shapes are rewritten; a reshape of a reshape then folds to a plain host reshape.

Source followed: IREE ``DispatchCreation/BubbleUpExpandShapes.cpp`` (linalg's fusion of
reshapes by expansion: expand_shape bubbled up through producers, collapse_shape sunk below
consumers, so reshapes do not split dispatches).
"""
import dataclasses

from xdsl.dialects import tensor
from xdsl.dialects.builtin import (AffineMapAttr, ArrayAttr, DenseArrayBase, IntegerAttr, TensorType, i64)
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import OpResult
from xdsl.ir.affine import AffineMap
from xdsl.rewriter import InsertPoint, Rewriter

from rt.compiler.dialects.linalg import GenericOp
from rt.compiler.helpers.dispatch import op_kinds as kinds
from rt.compiler.helpers.dispatch.dce import erase_dead_ops
from rt.compiler.passes.base import Pass


def _groups(op):
    return [[int(d.value.data) for d in g.data] for g in op.reassociation.data]


def _static(value):
    return isinstance(value.type, TensorType) and all(s >= 0 for s in value.type.get_shape())


def _located(op, like):
    op.location = like.location
    return op


def _reassociation(groups):
    return ArrayAttr([ArrayAttr([IntegerAttr(d, i64) for d in g]) for g in groups])


def _expand(value, groups, shape, like):
    return _located(tensor.ExpandShapeOp.build(
        operands=[value, []], result_types=[TensorType(value.type.element_type, shape)],
        properties={"reassociation": _reassociation(groups),
                    "static_output_shape": DenseArrayBase.from_list(i64, list(shape))}), like)


def _collapse(value, groups, type_, like):
    return _located(tensor.CollapseShapeOp.build(operands=[value], result_types=[type_],
                                                 properties={"reassociation": _reassociation(groups)}), like)


def bubble_expand_through_broadcast(expand):
    """Rule 1 for one expand_shape; returns whether it rewrote."""
    bcast = expand.src.op if isinstance(expand.src, OpResult) else None
    if not isinstance(bcast, linalg.BroadcastOp) or len(list(bcast.result[0].uses)) != 1:
        return False
    if not (_static(expand.result) and _static(bcast.input)):
        return False
    added = set(bcast.dimensions.get_values())
    shape = expand.result.type.get_shape()
    in_groups, in_shape, new_added, k = [], [], [], 0
    for d, group in enumerate(_groups(expand)):
        if d in added:
            new_added.extend(group)
            continue
        in_groups.append(list(range(k, k + len(group))))
        in_shape.extend(shape[p] for p in group)
        k += len(group)
    element = expand.result.type.element_type
    new_input = _expand(bcast.input, in_groups, in_shape, expand) if in_shape != list(
        bcast.input.type.get_shape()) else None
    empty = _located(tensor.EmptyOp([], TensorType(element, shape)), expand)
    new = _located(linalg.BroadcastOp(new_input.result if new_input else bcast.input, empty.tensor,
                                      DenseArrayBase.from_list(i64, new_added)), expand)
    ops = ([new_input] if new_input else []) + [empty, new]
    Rewriter.insert_op(ops, InsertPoint.before(expand))
    expand.result.replace_all_uses_with(new.result[0])
    expand.parent_block().erase_op(expand)
    return True


def _identity_elementwise(op):
    """Whether ``op`` is a linalg.generic with parallel loops, identity maps, one result and no
    linalg.index in its body."""
    if not isinstance(op, linalg.GenericOp) or len(op.results) != 1:
        return False
    if any(str(it.data).lower().find("parallel") < 0 for it in op.iterator_types.data):
        return False
    if not all(kinds.is_identity(m.data) for m in op.indexing_maps.data):
        return False
    return not any(isinstance(inner, linalg.IndexOp) for inner in op.body.walk())


def sink_collapse_below_elementwise(collapse):
    """Rule 2 for one collapse_shape; returns the new collapse_shape, or None."""
    source = collapse.src
    producer = source.op if isinstance(source, OpResult) else None
    if not (isinstance(producer, kinds.CONVOLUTIONS) or _identity_elementwise(producer)):
        return None
    if not (_static(source) and _static(collapse.result)):
        return None
    uses = [u.operation for u in collapse.result.uses]
    if len(uses) != 1 or not _identity_elementwise(uses[0]) or uses[0].parent_block() is not collapse.parent_block():
        return None
    user = uses[0]
    groups = _groups(collapse)
    shape = source.type.get_shape()
    flat = collapse.result.type
    ops, inputs = [], []
    for v in user.inputs:
        if v is collapse.result:
            inputs.append(source)
        elif isinstance(v.type, TensorType) and v.type.get_shape() == flat.get_shape():
            ops.append(_expand(v, groups, shape, user))
            inputs.append(ops[-1].result)
        else:
            return None
    empty = _located(tensor.EmptyOp([], TensorType(user.results[0].type.element_type, shape)), user)
    rank = len(shape)
    identity = AffineMapAttr(AffineMap.identity(rank))
    generic = _located(GenericOp(inputs, [empty.tensor], user.regions[0].clone(),
                                        [identity] * (len(inputs) + 1),
                                        ArrayAttr([user.iterator_types.data[0]] * rank),
                                        [TensorType(user.results[0].type.element_type, shape)]), user)
    for name, attr in user.attributes.items():
        if name not in generic.attributes and name not in ("indexing_maps", "iterator_types"):
            generic.attributes[name] = attr
    new_collapse = _collapse(generic.results[0], groups, user.results[0].type, user)
    Rewriter.insert_op(ops + [empty, generic, new_collapse], InsertPoint.before(user))
    user.results[0].replace_all_uses_with(new_collapse.result)
    user.parent_block().erase_op(user)
    return new_collapse


@dataclasses.dataclass(frozen=True)
class BubbleUpExpandShapesPass(Pass):
    """Move reshapes out from between a grouped conv, its bias broadcast and its elementwise
    epilogue (see the module docstring)."""

    name = "iree-dispatch-creation-bubble-up-expand-shapes"

    def run(self, module, ctx):
        changed = False
        for op in [op for op in module.walk() if isinstance(op, tensor.ExpandShapeOp)]:
            changed |= bubble_expand_through_broadcast(op)
        work = [op for op in module.walk() if isinstance(op, tensor.CollapseShapeOp)]
        while work:
            collapse = work.pop()
            if collapse.parent is None:
                continue
            new = sink_collapse_below_elementwise(collapse)
            if new is not None:
                changed = True
                work.append(new)
        if changed:
            erase_dead_ops(module)
