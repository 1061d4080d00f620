"""``iree-dispatch-creation-convert-dispatch-regions-to-workgroups``: isolate each dispatch region.

Input: ``flow.dispatch.region`` ops capturing host values. Output: ``flow.dispatch.workgroups``
ops, isolated from above: every captured tensor becomes an operand (with its dynamic dims as
extra index operands) read inside through a ``!flow.dispatch.tensor<readonly:...>`` argument
and ``flow.dispatch.tensor.load``; captured scalars/indices become operands; scalar constants
are cloned in; every result is written with ``flow.dispatch.tensor.store`` into a trailing
``!flow.dispatch.tensor<writeonly:...>`` argument. Index operands that are also workload values
are tagged with ``flow.dispatch.workload.ordinal``. The ``count`` region moves over unchanged.

Example::

    %r = flow.dispatch.region[%d] -> (tensor<?xf32>{%d}) {
      ... uses %a : tensor<?xf32> ...
      flow.return %v : tensor<?xf32>
    } count(...) {...}
    // ->
    %r = flow.dispatch.workgroups[%d](%a, %d) : (tensor<?xf32>{%d}, index) -> tensor<?xf32>{%d} =
        (%arg0: !flow.dispatch.tensor<readonly:tensor<?xf32>>, %arg1: index,
         %arg2: !flow.dispatch.tensor<writeonly:tensor<?xf32>>) {
      %0 = flow.dispatch.workload.ordinal %arg1, 0 : index
      %1 = flow.dispatch.tensor.load %arg0, offsets = [0], sizes = [%0], strides = [1] : ... -> tensor<?xf32>
      ...
      flow.dispatch.tensor.store %v, %arg2, offsets = [0], sizes = [%0], strides = [1] : ...
      flow.return
    } count(...) {...}

Source followed: IREE ``DispatchCreation/ConvertDispatchRegionsToWorkgroups.cpp`` and
``rewriteFlowDispatchRegionToFlowDispatchWorkgroups`` (RegionOpUtils.cpp).
"""
import dataclasses

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, StringAttr, TensorType
from xdsl.ir import Block, Region
from xdsl.rewriter import Rewriter

from rt.compiler.dialects import flow, util
from rt.compiler.dialects.flow_types import split_dims
from rt.compiler.passes.base import Pass
from rt.compiler.helpers.dispatch.dce import erase_dead_ops
from rt.compiler.helpers.dispatch.shapes import materialize_dims

INDEX = IndexType()


def _is_inside(op, region_op):
    while op is not None:
        if op is region_op:
            return True
        op = op.parent_op()
    return False


def _captured(region_op):
    """Values used inside ``region_op``'s body but defined outside it, in first-use order."""
    seen, order = set(), []
    for op in region_op.body.walk():
        for value in op.operands:
            owner = value.owner
            defining = owner if not isinstance(owner, Block) else owner.parent_op()
            if defining is not None and _is_inside(defining, region_op):
                continue
            if id(value) not in seen:
                seen.add(id(value))
                order.append(value)
    return order


def _is_scalar_constant(value):
    op = getattr(value, "op", None)
    return isinstance(op, arith.ConstantOp) and not isinstance(value.type, TensorType)


def convert_region(region_op):
    """Replace one flow.dispatch.region with an equivalent flow.dispatch.workgroups."""
    captured = _captured(region_op)
    tensors = [v for v in captured if isinstance(v.type, TensorType)]
    tensor_dims = [materialize_dims(v, region_op) for v in tensors]
    scalars = [v for v in captured if not isinstance(v.type, TensorType) and not _is_scalar_constant(v)]
    for value in [d for dims in tensor_dims for d in dims] + list(region_op.result_dims):
        if value not in scalars:
            scalars.append(value)
    arguments = tensors + scalars
    result_types = [r.type for r in region_op.results]
    body = Block(arg_types=[flow.DispatchTensorType(StringAttr("readonly"), v.type) for v in tensors]
                 + [v.type for v in scalars]
                 + [flow.DispatchTensorType(StringAttr("writeonly"), t) for t in result_types])
    inner = {}
    workload = list(region_op.workload)
    for value, arg in zip(scalars, body.args[len(tensors):]):
        inner[value] = arg
        if value in workload:
            tag = flow.DispatchWorkloadOrdinalOp.build(operands=[arg], result_types=[INDEX],
                                                       properties={"ordinal": IntegerAttr(workload.index(value), INDEX)})
            body.add_op(tag)
            inner[value] = tag.result
    for value in [v for v in captured if _is_scalar_constant(v)]:
        clone = value.op.clone()
        body.add_op(clone)
        inner[value] = clone.result
    for value, dims, arg in zip(tensors, tensor_dims, body.args):
        load = flow.DispatchTensorLoadOp.whole(arg, [inner[d] for d in dims], value.type)
        load.location = region_op.location
        body.add_op(load)
        inner[value] = load.result
    for op in region_op.body.walk():
        for i, operand in enumerate(op.operands):
            if operand in inner:
                op.operands[i] = inner[operand]
    old_block = region_op.body.block
    terminator = old_block.last_op
    for op in list(old_block.ops):
        if op is terminator:
            continue
        op.detach()
        body.add_op(op)
    outputs = body.args[len(arguments):]
    result_dims = split_dims(result_types, list(region_op.result_dims))
    for value, out, dims in zip(terminator.values, outputs, result_dims):
        store = flow.DispatchTensorStoreOp.whole(value, out, [inner[d] for d in dims])
        store.location = terminator.location
        body.add_op(store)
    body.add_op(flow.ReturnOp.build(operands=[[]]))
    count = Region()
    region_op.workgroup_count.move_blocks(count)
    arg_dims = [d for dims in tensor_dims for d in dims]
    workgroups = flow.DispatchWorkgroupsOp.build(
        operands=[workload, arguments, arg_dims, list(region_op.result_dims)],
        result_types=[result_types], regions=[Region(body), count])
    workgroups.location = region_op.location
    Rewriter.replace_op(region_op, workgroups)
    return workgroups


@dataclasses.dataclass(frozen=True)
class ConvertDispatchRegionsToWorkgroupsPass(Pass):
    """flow.dispatch.region -> isolated flow.dispatch.workgroups."""

    name = "iree-dispatch-creation-convert-dispatch-regions-to-workgroups"

    def run(self, module, ctx):
        for region_op in [op for op in module.walk() if isinstance(op, flow.DispatchRegionOp)]:
            convert_region(region_op)
        for fn in [op for op in module.body.block.ops if isinstance(op, util.FuncOp)]:
            erase_dead_ops(fn)
