"""Tensors across private function boundaries, as part of ``iree-stream-convert-to-stream``.

A tensor of type ``T`` crossing a call becomes the values that describe it in the stream phase:
the resource, its byte size and the dynamic dims of ``T`` (IREE's convert-to-stream expands
tensors to resource + size; its earlier expand-tensor-shapes pass adds the dims)::

    util.func private @f(%t: tensor<?xf32>) -> tensor<?xf32>
    %r = util.call @f(%x) : (tensor<?xf32>) -> tensor<?xf32>
    %d = tensor.dim %r, %c0 : tensor<?xf32>
    // ->
    util.func private @f(%t: !stream.resource<*>, %t_size: index, %t_d0: index)
        -> (!stream.resource<*>, index, index)
    %r:3 = util.call @f(%x, %x_size, %x_d0) : (!stream.resource<*>, index, index) -> (!stream.resource<*>, index, index)
    // tensor.dim %r, %c0 is replaced by %r#2

Public functions keep the ABI's ``!hal.buffer_view`` and are rejected when they still take
tensors. ``tensor.dim`` of any converted tensor folds to its static extent or dynamic dim.

Source followed: IREE ``UtilToStream/Patterns.cpp`` (FuncOp/CallOp/ReturnOp expansion) and
``Util/Transforms/ExpandTensorShapes.cpp``.
"""
from xdsl.dialects import arith
from xdsl.dialects.builtin import DYNAMIC_INDEX, ArrayAttr, DictionaryAttr, FunctionType, IntegerAttr, TensorType
from xdsl.rewriter import InsertPoint, Rewriter

from rt.compiler.dialects import stream, util
from rt.compiler.dialects.flow_types import dynamic_rank
from rt.compiler.frontend import error_at_op
from rt.compiler.helpers.stream.resources import INDEX, affinity_of


def expanded_types(types):
    """Each tensor type -> (resource, size, one index per dynamic dim); other types as they are."""
    out = []
    for type_ in types:
        if isinstance(type_, TensorType):
            out += [stream.ResourceType()] + [INDEX] * (1 + dynamic_rank(type_))
        else:
            out.append(type_)
    return out


def is_public(callable_op):
    visibility = callable_op.properties.get("sym_visibility")
    return visibility is None or visibility.data == "public"


def expand_arguments(converter, callable_op):
    """Replace tensor entry arguments by resource/size/dims arguments; returns the old arguments."""
    if isinstance(callable_op, util.InitializerOp):
        return []
    function_type = callable_op.function_type
    has_tensors = any(isinstance(t, TensorType) for t in (*function_type.inputs.data, *function_type.outputs.data))
    if not has_tensors:
        return []
    if is_public(callable_op):
        raise error_at_op(callable_op, f"public function @{callable_op.sym_name.data} takes or returns tensors; run "
                                       f"iree-abi-wrap-entry-points first so public functions use !hal.buffer_view")
    return expand_block_arguments(converter, callable_op.regions[0].blocks[0], affinity_of(callable_op))


def expand_block_arguments(converter, block, aff):
    """Add resource/size/dims arguments after each tensor argument of ``block``; returns the old ones.

    The old tensor arguments are bound in ``converter`` and must be erased (:func:`erase_arguments`)
    once every use has been converted.
    """
    old = [arg for arg in block.args if isinstance(arg.type, TensorType)]
    for arg in old:
        position = arg.index
        resource = block.insert_arg(stream.ResourceType(), position + 1)
        size = block.insert_arg(INDEX, position + 2)
        dims = [block.insert_arg(INDEX, position + 3 + k) for k in range(dynamic_rank(arg.type))]
        converter.bind(arg, resource, size, dims, aff)
    return old


def finish_signature(callable_op, old_args):
    """Erase the replaced tensor arguments and rewrite the function type to the expanded one."""
    function_type = getattr(callable_op, "function_type", None)
    outputs = function_type.outputs.data if function_type is not None else ()
    if not old_args and not any(isinstance(t, TensorType) for t in outputs):
        return
    block = callable_op.regions[0].blocks[0]
    for arg in old_args:
        if arg.uses:
            raise error_at_op(callable_op, f"argument {arg.index} of @{callable_op.sym_name.data} is still used by "
                                           f"'{next(iter(arg.uses)).operation.name}', which convert-to-stream cannot "
                                           f"convert")
        block.erase_arg(arg)
    outputs = expanded_types(outputs)
    callable_op.properties["function_type"] = FunctionType.from_lists(list(block.arg_types), outputs)
    for key, count in (("arg_attrs", len(block.args)), ("res_attrs", len(outputs))):
        if key in callable_op.properties:
            callable_op.properties[key] = ArrayAttr([DictionaryAttr({})] * count)


def expanded_values(converter, op, values):
    """``values`` with each converted tensor replaced by its resource, size and dims (in that order)."""
    out = []
    for value in values:
        if isinstance(value.type, TensorType):
            res = converter.lookup(op, value)
            out += [res.resource, res.size, *res.dims]
        else:
            out.append(value)
    return out


def convert_return(converter, op):
    """util.return / func.return of tensors -> return of their resource, size and dims."""
    if not any(isinstance(v.type, TensorType) for v in op.operands):
        return
    values = expanded_values(converter, op, op.operands)
    Rewriter.replace_op(op, op.create(operands=values, attributes=dict(op.attributes)))


def convert_call(converter, op):
    """util.call / func.call passing or returning tensors -> the expanded calling convention."""
    if not any(isinstance(v.type, TensorType) for v in (*op.operands, *op.results)):
        return
    aff = affinity_of(op)
    operands = expanded_values(converter, op, op.operands)
    result_types = expanded_types([r.type for r in op.results])
    new = op.create(operands=operands, result_types=result_types, properties=dict(op.properties),
                    attributes=dict(op.attributes))
    new.location = op.location
    Rewriter.insert_op(new, InsertPoint.before(op))
    results = iter(new.results)
    for old in op.results:
        if isinstance(old.type, TensorType):
            resource, size = next(results), next(results)
            converter.bind(old, resource, size, [next(results) for _ in range(dynamic_rank(old.type))], aff)
        else:
            old.replace_all_uses_with(next(results))
    converter.dead.append(op)


def convert_dim(converter, op):
    """tensor.dim of a converted tensor -> its static extent or the matching dynamic dim value."""
    res = converter.lookup(op, op.source)
    index_op = op.index.owner
    if not isinstance(index_op, arith.ConstantOp):
        raise error_at_op(op, "tensor.dim with a non-constant dimension index cannot be converted to the stream "
                              "dialect; use a constant index")
    index = index_op.value.value.data
    shape = op.source.type.get_shape()
    if not 0 <= index < len(shape):
        raise error_at_op(op, f"tensor.dim index {index} is out of range for {op.source.type}")
    if shape[index] != DYNAMIC_INDEX:
        const = arith.ConstantOp(IntegerAttr(shape[index], INDEX))
        Rewriter.insert_op(const, InsertPoint.before(op))
        op.result.replace_all_uses_with(const.result)
    else:
        position = sum(1 for d in shape[:index] if d == DYNAMIC_INDEX)
        op.result.replace_all_uses_with(res.dims[position])
    converter.dead.append(op)
