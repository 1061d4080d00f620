"""``iree-stream-refine-usage``: give every ``!stream.resource<*>`` the lifetime its usage implies.

Input: host code in the async form (after elide-async-copies). Output: no ``*`` lifetime is
left in host code. Each resource value takes the lifetime of its usage group
(:mod:`.resource_usage`): ``external`` when it reaches an import/export (or an op rt cannot see
through), ``staging`` for host loads/stores, ``constant`` for constants and immutable globals,
``variable`` for written globals, else ``transient``. Function signatures follow their
arguments and returns. A stream op result whose explicit lifetime differs from its group's gets a
placeholder ``stream.async.transfer`` to the group's lifetime. Finally every
``stream.async.transfer`` that now copies a resource to the same lifetime on the same affinity
is removed, unless that would let an in-place update reach a buffer someone else still reads
(IREE's RedundantTransferElision, with that extra aliasing guard); unused transfers are removed.
Transfers between affinities are kept: they are device-to-device copies.

Example (the seeds' ``@test``)::

    %0 = stream.tensor.import %arg0 : !hal.buffer_view -> tensor<10xf32> in !stream.resource<external>{%c40}
    %1 = stream.async.transfer %0 : !stream.resource<external>{%c40} -> !stream.resource<*>{%c40}
    %2 = stream.async.dispatch @ex::@fn[%c10](%1[%c0 to %c40 for %c40]) : (!stream.resource<*>{%c40}) -> !stream.resource<*>{%c40}
    %3 = stream.async.transfer %2 : !stream.resource<*>{%c40} -> !stream.resource<external>{%c40}
    %4 = stream.tensor.export %3 : tensor<10xf32> in !stream.resource<external>{%c40} -> !hal.buffer_view
    // ->
    %0 = stream.tensor.import %arg0 : !hal.buffer_view -> tensor<10xf32> in !stream.resource<external>{%c40}
    %1 = stream.async.dispatch @ex::@fn[%c10](%0[%c0 to %c40 for %c40]) : (!stream.resource<external>{%c40}) -> !stream.resource<external>{%c40}
    %2 = stream.tensor.export %1 : tensor<10xf32> in !stream.resource<external>{%c40} -> !hal.buffer_view

Errors: none. Source followed: IREE ``Stream/Transforms/RefineUsage.cpp`` and
``Stream/Analysis/ResourceUsage.cpp``.
"""
import dataclasses

from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType
from xdsl.ir import BlockArgument
from xdsl.rewriter import InsertPoint, Rewriter

from rt.compiler.dialects import stream, util
from rt.compiler.dialects.stream_types import ResourceType
from rt.compiler.passes.base import Pass
from rt.compiler.helpers.stream.async_ops import known_size
from rt.compiler.helpers.stream.resource_usage import ResourceUsageAnalysis, transfer_alias_safe
from rt.compiler.helpers.stream.resources import host_callables

_FUNCTIONS = (util.FuncOp, func.FuncOp)
_RETURNS = (util.ReturnOp, func.ReturnOp)


@dataclasses.dataclass(frozen=True)
class RefineUsagePass(Pass):
    """Resolve resource lifetimes from usage; drop transfers that became no-ops."""

    name = "iree-stream-refine-usage"

    def run(self, module, ctx):
        analysis = ResourceUsageAnalysis(module)
        for value in analysis.values:
            refined = ResourceType(analysis.group_lifetime(value))
            if value.type == refined:
                continue
            if value.type.lifetime.data == "*":
                value._type = refined
            elif not isinstance(value, BlockArgument) and value.owner.dialect_name() == "stream":  # any stream op
                _insert_transition(value, refined)
        for callable_op in host_callables(module):
            if isinstance(callable_op, _FUNCTIONS):
                _update_signature(callable_op)
        for callable_op in host_callables(module):
            for op in list(callable_op.walk()):
                if isinstance(op, stream.AsyncTransferOp):
                    _elide_transfer(op)


def _insert_transition(value, refined):
    """A transfer of ``value`` (an explicitly typed op result) to ``refined``, replacing its uses."""
    uses = list(value.uses)
    if len(uses) == 1 and isinstance(uses[0].operation, stream.AsyncTransferOp) \
            and uses[0].operation.result.type.lifetime.data != "*":
        return
    owner = value.owner
    size = known_size(value)
    affinity = owner.properties.get("affinity")
    props = {} if affinity is None else {"source_affinity": affinity, "result_affinity": affinity}
    transfer = stream.AsyncTransferOp.build(operands=[value, size, size], result_types=[refined], properties=props)
    Rewriter.insert_op(transfer, InsertPoint.after(owner))
    for use in uses:
        use.operation.operands[use.index] = transfer.result


def _update_signature(function):
    block = function.regions[0].blocks[0]
    outputs = list(function.function_type.outputs.data)
    for op in function.walk():
        if isinstance(op, _RETURNS) and op.parent_op() is function:
            outputs = [v.type for v in op.operands]
            break
    function.properties["function_type"] = FunctionType.from_lists(list(block.arg_types), outputs)


def _elide_transfer(op):
    if not op.result.uses:
        Rewriter.erase_op(op)
        return
    if op.source_affinity != op.result_affinity or op.source.type != op.result.type:
        return
    if transfer_alias_safe(op):
        op.result.replace_all_uses_with(op.source)
        Rewriter.erase_op(op)
