"""``iree-stream-materialize-copy-on-write``: a clone before every in-place update that may need one.

Input: host code in the async form (after encode-host-tensors). Output: each resource operand an
op updates in place (``stream.async.fill/update/copy/store`` targets, ``tied_operands`` of
``stream.async.dispatch/execute/concurrent``) is first copied with ``stream.async.clone`` (on the
updating op's affinity) unless a local look proves the copy useless: the operand is an op result
(not a block argument, whose value the caller may still hold), its lifetime is not ``constant``
and the updating op is its only user. The copies this leaves behind are correct but often
redundant; ``iree-stream-elide-async-copies`` removes the ones whole-function analysis can prove
unneeded. Every other op is left alone.

Example::

    %0 = stream.async.splat %c0_i32 : i32 -> !stream.resource<*>{%c64}
    %1 = stream.async.fill %c1_i32, %0[%c0 to %c16 for %c16] : i32 -> %0 as !stream.resource<*>{%c64}
    %2 = stream.async.dispatch @ex::@fn(%0[%c0 to %c64 for %c64]) : (!stream.resource<*>{%c64}) -> !stream.resource<*>{%c64}
    // -> %0 is read after the fill, so the fill writes into a copy:
    %clone = stream.async.clone %0 : !stream.resource<*>{%c64} -> !stream.resource<*>{%c64}
    %1 = stream.async.fill %c1_i32, %clone[%c0 to %c16 for %c16] : i32 -> %clone as !stream.resource<*>{%c64}

Errors: none (every input is accepted). Source followed: IREE
``Stream/Transforms/MaterializeCopyOnWrite.cpp``.
"""
import dataclasses

from xdsl.ir import BlockArgument
from xdsl.rewriter import InsertPoint, Rewriter

from rt.compiler.dialects import stream
from rt.compiler.dialects.stream_collective import AsyncCollectiveOp
from rt.compiler.dialects.stream_types import ResourceType
from rt.compiler.passes.base import Pass
from rt.compiler.helpers.stream.resources import host_callables
from rt.compiler.helpers.stream.async_ops import operand_size, tied_operand_indices

#: the ``stream.async.*`` ops
_ASYNC_OPS = (*(cls for cls in stream.ASYNC_OPS if cls is not stream.YieldOp), AsyncCollectiveOp)


@dataclasses.dataclass(frozen=True)
class MaterializeCopyOnWritePass(Pass):
    """Insert stream.async.clone for tied operands that may be observed elsewhere."""

    name = "iree-stream-materialize-copy-on-write"

    def run(self, module, ctx):
        for callable_op in host_callables(module):
            for op in list(callable_op.walk()):
                if isinstance(op, _ASYNC_OPS):
                    _materialize(op)


def is_safe_to_elide_cow(value, user):
    """True when ``user`` may update ``value`` in place without a copy (local reasoning only)."""
    if isinstance(value, BlockArgument):
        return False
    if value.type.lifetime.data == "constant":
        return False
    return all(use.operation is user for use in value.uses)


def _materialize(op):
    for index in tied_operand_indices(op):
        if index < 0:
            continue
        value = op.operands[index]
        if not isinstance(value.type, ResourceType) or is_safe_to_elide_cow(value, op):
            continue
        size = operand_size(op, index)
        affinity = op.properties.get("affinity")
        clone = stream.AsyncCloneOp.build(operands=[value, size, size], result_types=[value.type],
                                          properties={} if affinity is None else {"affinity": affinity})
        Rewriter.insert_op(clone, InsertPoint.before(op))
        for i, operand in enumerate(op.operands):
            if operand is value:
                op.operands[i] = clone.result
