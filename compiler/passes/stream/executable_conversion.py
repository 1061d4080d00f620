"""flow.executable -> stream.executable, as part of ``iree-stream-convert-to-stream``.

Exports keep their workgroup-count region (``flow.return`` -> ``stream.return``); each dispatch
function argument of type ``!flow.dispatch.tensor<...>`` becomes ``!stream.binding`` and is
reopened at function entry::

    func.func @fn(%arg0: !flow.dispatch.tensor<readonly:tensor<?xf32>>, %d: index) {
      %0 = flow.dispatch.tie_shape %arg0 : !flow.dispatch.tensor<readonly:tensor<?xf32>>{%d}
    // ->
    func.func @fn(%arg0: !stream.binding, %d: index) {
      %c0 = arith.constant 0 : index
      %0 = stream.binding.subspan %arg0[%c0] : !stream.binding -> !flow.dispatch.tensor<readonly:tensor<?xf32>>{%d}

Source followed: IREE ``Stream/Transforms/ConvertToStream.cpp`` (convertExecutableOp) and
``FlowToStream/Patterns.cpp``.
"""
from xdsl.dialects.builtin import FunctionType
from xdsl.rewriter import InsertPoint, Rewriter

from rt.compiler.dialects import flow, stream
from rt.compiler.dialects.flow_types import DispatchTensorType, dynamic_rank
from rt.compiler.frontend import error_at_op
from rt.compiler.passes.stream.resources import index_constant


def convert_executable(exe):
    """Replace flow.executable ``exe`` by an equivalent stream.executable (in place in its parent)."""
    props = {"sym_name": exe.sym_name} | ({"sym_visibility": exe.sym_visibility} if exe.sym_visibility else {})
    body = exe.body.blocks[0]
    new = stream.ExecutableOp.build(properties=props, attributes=dict(exe.attributes), regions=[_region_of(body)])
    Rewriter.replace_op(exe, new)
    for op in list(new.body.block.ops):
        if isinstance(op, flow.ExecutableExportOp):
            _convert_export(op)
        elif op.name == "builtin.module":
            for func in op.body.block.ops:
                if func.name == "func.func":
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
        dims = list(ties[0].dynamic_dims) if ties else []
        if len(dims) != dynamic_rank(arg.type):
            raise error_at_op(func, f"argument {arg.index - 1} of @{func.sym_name.data} has type {arg.type} with "
                              f"dynamic dims but no flow.dispatch.tie_shape giving them")
        subspan = stream.BindingSubspanOp.build(operands=[binding, zero.result, dims], result_types=[arg.type])
        anchor = ties[0] if ties else zero
        Rewriter.insert_op(subspan, InsertPoint.after(anchor) if ties else InsertPoint.after(zero))
        for tie in ties:
            tie.result.replace_all_uses_with(subspan.result)
            tie.erase()
        arg.replace_all_uses_with(subspan.result)
        block.erase_arg(arg)
    func.properties["function_type"] = FunctionType.from_lists(list(block.arg_types), list(func.function_type.outputs))
