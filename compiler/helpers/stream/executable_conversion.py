"""flow.executable -> stream.executable, as part of ``iree-stream-convert-to-stream``.

Exports keep their workgroup-count region (``flow.return`` -> ``stream.return``); each dispatch
function argument of type ``!flow.dispatch.tensor<...>`` becomes ``!stream.binding`` and is
reopened at function entry. The dynamic dims of the reopened binding come from a
``flow.dispatch.tie_shape`` of the argument when there is one (IREE's older form), else from the
dims its ``flow.dispatch.tensor.load``/``store`` ops carry (the form the flow phase emits: dims are
index arguments, usually behind ``flow.dispatch.workload.ordinal``); the subspan is placed right
after the last of those dims is defined::

    func.func @fn(%arg0: !flow.dispatch.tensor<readonly:tensor<?xf32>>, %arg1: index, ...) {
      %d = flow.dispatch.workload.ordinal %arg1, 0 : index
      %x = flow.dispatch.tensor.load %arg0, offsets = [0], sizes = [%d], strides = [1]
          : !flow.dispatch.tensor<readonly:tensor<?xf32>>{%d} -> tensor<?xf32>
    // ->
    func.func @fn(%arg0: !stream.binding, %arg1: index, ...) {
      %c0 = arith.constant 0 : index
      %d = flow.dispatch.workload.ordinal %arg1, 0 : index
      %0 = stream.binding.subspan %arg0[%c0] : !stream.binding -> !flow.dispatch.tensor<readonly:tensor<?xf32>>{%d}
      %x = flow.dispatch.tensor.load %0, offsets = [0], sizes = [%d], strides = [1] ...

Source followed: IREE ``Stream/Transforms/ConvertToStream.cpp`` (convertExecutableOp) and
``FlowToStream/Patterns.cpp``.
"""
from xdsl.dialects.builtin import FunctionType, ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.rewriter import InsertPoint, Rewriter

from rt.compiler.dialects import flow, stream
from rt.compiler.dialects.flow_types import DispatchTensorType, dynamic_rank
from rt.compiler.frontend import error_at_op
from rt.compiler.helpers.stream.resources import index_constant


def convert_executable(exe):
    """Replace flow.executable ``exe`` by an equivalent stream.executable (in place in its parent)."""
    props = {"sym_name": exe.sym_name} | ({"sym_visibility": exe.sym_visibility} if exe.sym_visibility else {})
    body = exe.body.blocks[0]
    new = stream.ExecutableOp.build(properties=props, attributes=dict(exe.attributes), regions=[_region_of(body)])
    Rewriter.replace_op(exe, new)
    for op in list(new.body.block.ops):
        if isinstance(op, flow.ExecutableExportOp):
            _convert_export(op)
        elif isinstance(op, ModuleOp):
            for func in op.body.block.ops:
                if isinstance(func, FuncOp):
                    _convert_function(func)
    return new


def _region_of(block):
    from xdsl.ir import Region

    if block.parent is not None:
        block.parent.detach_block(block)
    return Region(block)


def _convert_export(export):
    region = export.workgroup_count.clone()
    for op in list(region.walk()):
        if isinstance(op, flow.ReturnOp):
            Rewriter.replace_op(op, stream.ReturnOp.build(operands=[list(op.values)]))
    props = {"sym_name": export.sym_name} | ({"sym_visibility": export.sym_visibility} if export.sym_visibility else {})
    Rewriter.replace_op(export, stream.ExecutableExportOp.build(properties=props, regions=[region],
                                                                attributes=dict(export.attributes)))


def _convert_function(func):
    block = func.body.blocks[0]
    zero = None
    for arg in list(block.args):
        if not isinstance(arg.type, DispatchTensorType):
            continue
        if zero is None:
            zero = index_constant(0)
            Rewriter.insert_op(zero, InsertPoint.at_start(block))
        binding = block.insert_arg(stream.BindingType(), arg.index)
        ties = [use.operation for use in arg.uses if isinstance(use.operation, flow.DispatchTieShapeOp)]
        dims = list(ties[0].dynamic_dims) if ties else _access_dims(func, arg)
        subspan = stream.BindingSubspanOp.build(operands=[binding, zero.result, dims], result_types=[arg.type])
        Rewriter.insert_op(subspan, InsertPoint.after(ties[0] if ties else _last_definition(func, block, dims, zero)))
        for tie in ties:
            tie.result.replace_all_uses_with(subspan.result)
            tie.erase()
        arg.replace_all_uses_with(subspan.result)
        block.erase_arg(arg)
    func.properties["function_type"] = FunctionType.from_lists(list(block.arg_types), list(func.function_type.outputs))


def _access_dims(func, arg):
    """The dynamic dims of dispatch argument ``arg`` as its first load/store names them."""
    want = dynamic_rank(arg.type)
    if want == 0:
        return []
    for use in arg.uses:
        op = use.operation
        if isinstance(op, flow.DispatchTensorLoadOp) and op.source is arg:
            return list(op.source_dims)
        if isinstance(op, flow.DispatchTensorStoreOp) and op.target is arg:
            return list(op.target_dims)
    raise error_at_op(func, f"argument {arg.index - 1} of @{func.sym_name.data} has type {arg.type} with {want} "
                            f"dynamic dims but neither a flow.dispatch.tie_shape nor a flow.dispatch.tensor.load/"
                            f"store giving them")


def _last_definition(func, block, dims, zero):
    """The op after which every value of ``dims`` is defined (``zero`` when all are arguments)."""
    order = {op: i for i, op in enumerate(block.ops)}
    anchor = zero
    for dim in dims:
        owner = dim.owner
        if owner is block:
            continue
        if owner not in order:
            raise error_at_op(func, f"a dynamic dim of a dispatch argument of @{func.sym_name.data} is defined "
                                    f"inside a nested region; dims must be computed in the function's entry block")
        if order[owner] > order[anchor]:
            anchor = owner
    return anchor
