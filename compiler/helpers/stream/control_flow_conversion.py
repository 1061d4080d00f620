"""Tensors carried by structured and unstructured control flow, as part of ``iree-stream-convert-to-stream``.

A tensor yielded by ``scf.if``, carried by ``scf.for``/``scf.while`` or passed to a block by ``cf.br`` /
``cf.cond_br`` becomes the values that describe it in the stream phase: the resource, its byte
size and the dynamic dims of its type (the expansion :mod:`.call_conversion` uses for calls)::

    %r = scf.if %c -> (tensor<?xf32>) {
      scf.yield %a : tensor<?xf32>
    } else {
      scf.yield %b : tensor<?xf32>
    }
    // ->
    %r:3 = scf.if %c -> (!stream.resource<*>, index, index) {
      scf.yield %a_resource, %a_size, %a_d0 : !stream.resource<*>, index, index
    } else {
      scf.yield %b_resource, %b_size, %b_d0 : !stream.resource<*>, index, index
    }

    %r = scf.for %i = %lb to %ub step %s iter_args(%acc = %x) -> (tensor<4xf32>) {...}
    // ->
    %r:2 = scf.for %i = %lb to %ub step %s iter_args(%acc = %x_resource, %acc_size = %x_size)
        -> (!stream.resource<*>, index) {...}

Each branch may yield a resource of a different size; the size travels with it. Resources that
cross these boundaries stay awaited values (see iree-stream-propagate-timepoints).

Errors: CompileError at the op for other region ops (``scf.index_switch``, ``scf.execute_region``,
...) that carry tensors. Source followed: IREE ``Stream/Transforms/ConvertToStream.cpp`` and
``Dialect/Stream/Conversion/StandardToStream`` / ``UtilToStream`` structural patterns
(scf.if/for/while/yield/condition, cf.br/cond_br operand and block-argument expansion).
"""
from xdsl.dialects import cf, scf
from xdsl.dialects.builtin import TensorType
from xdsl.rewriter import InsertPoint, Rewriter

from rt.compiler.dialects.flow_types import dynamic_rank
from rt.compiler.helpers.stream.call_conversion import (
    expand_block_arguments,
    expanded_types,
    expanded_values,
)
from rt.compiler.helpers.stream.resources import affinity_of


def carries_tensors(op):
    """True when ``op`` has tensor operands or results, or blocks with tensor arguments."""
    values = [*op.operands, *op.results] + [a for r in op.regions for b in r.blocks for a in b.args]
    return any(isinstance(v.type, TensorType) for v in values)


def erase_arguments(args, error):
    """Erase replaced tensor block arguments; ``error(arg, user)`` builds the error for one still used."""
    for arg in args:
        if arg.uses:
            raise error(arg, next(iter(arg.uses)).operation)
        arg.block.erase_arg(arg)


def _bind_results(converter, old_op, new_op, aff):
    results = iter(new_op.results)
    for old in old_op.results:
        if isinstance(old.type, TensorType):
            resource, size = next(results), next(results)
            converter.bind(old, resource, size, [next(results) for _ in range(dynamic_rank(old.type))], aff)
        else:
            old.replace_all_uses_with(next(results))


def _yielded_affinity(converter, op):
    """The affinity of the first converted tensor a region of ``op`` yields, else where ``op`` runs."""
    for region in op.regions:
        for block in region.blocks:
            terminator = block.last_op
            for value in terminator.operands if terminator is not None else ():
                res = converter.map.get(value)
                if res is not None and res.affinity is not None:
                    return res.affinity
    return affinity_of(op)


def convert_yield(converter, op):
    """scf.yield of tensors -> yield of their resource, size and dims."""
    if not any(isinstance(v.type, TensorType) for v in op.operands):
        return
    new = op.create(operands=expanded_values(converter, op, op.operands), attributes=dict(op.attributes))
    new.location = op.location
    Rewriter.replace_op(op, new)


def convert_if(converter, op):
    """scf.if yielding tensors -> scf.if yielding resource/size/dims (branches converted first)."""
    for region in op.regions:
        converter.convert_region(region)
    if not carries_tensors(op):
        return
    aff = _yielded_affinity(converter, op)
    then_region, else_region = (op.detach_region(r) for r in list(op.regions))
    new = scf.IfOp(op.cond, expanded_types([r.type for r in op.results]), then_region, else_region,
                   attr_dict=dict(op.attributes))
    new.location = op.location
    Rewriter.insert_op(new, InsertPoint.before(op))
    _bind_results(converter, op, new, aff)
    converter.dead.append(op)


def convert_for(converter, op):
    """scf.for carrying tensors -> scf.for carrying resource/size/dims (body converted first)."""
    if not carries_tensors(op):
        converter.convert_region(op.body)
        return
    aff = affinity_of(op)
    body = op.body.blocks[0]
    converter.old_block_args += expand_block_arguments(converter, body, aff)
    converter.convert_region(op.body)
    inits = expanded_values(converter, op, op.iter_args)
    new = scf.ForOp(op.lb, op.ub, op.step, inits, op.detach_region(op.body))
    new.attributes.update(op.attributes)
    new.location = op.location
    Rewriter.insert_op(new, InsertPoint.before(op))
    _bind_results(converter, op, new, aff)
    converter.dead.append(op)


def convert_while(converter, op):
    """scf.while carrying tensors -> scf.while carrying resource/size/dims in both regions."""
    if not carries_tensors(op):
        for region in op.regions:
            converter.convert_region(region)
        return
    aff = affinity_of(op)
    for region in op.regions:
        converter.old_block_args += expand_block_arguments(converter, region.blocks[0], aff)
        converter.convert_region(region)
    before, after = (op.detach_region(r) for r in list(op.regions))
    new = scf.WhileOp(expanded_values(converter, op, op.arguments), expanded_types([r.type for r in op.results]),
                      before, after)
    new.attributes.update(op.attributes)
    new.location = op.location
    Rewriter.insert_op(new, InsertPoint.before(op))
    _bind_results(converter, op, new, aff)
    converter.dead.append(op)


def convert_condition(converter, op):
    """scf.condition forwarding tensors -> forwarding their resource, size and dims."""
    if not any(isinstance(v.type, TensorType) for v in op.args):
        return
    new = scf.ConditionOp(op.condition, *expanded_values(converter, op, op.args))
    new.attributes.update(op.attributes)
    new.location = op.location
    Rewriter.replace_op(op, new)


def convert_branch(converter, op):
    """cf.br / cf.cond_br passing tensors -> the expanded operands of the expanded target blocks."""
    if not any(isinstance(v.type, TensorType) for v in op.operands):
        return
    if isinstance(op, cf.BranchOp):
        new = cf.BranchOp(op.successor, *expanded_values(converter, op, op.arguments))
    else:
        new = cf.ConditionalBranchOp(op.cond, op.then_block, expanded_values(converter, op, op.then_arguments),
                                     op.else_block, expanded_values(converter, op, op.else_arguments))
    new.attributes.update(op.attributes)
    new.location = op.location
    Rewriter.replace_op(op, new)
