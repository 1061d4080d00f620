"""``iree-stream-schedule-execution``: group streamable async ops into ``stream.async.execute`` regions.

Input: host code after refine-usage — ``stream.async.*`` ops (dispatch, splat, clone, copy,
transfer, ...) interleaved with host ops. Output: each block's streamable ops are partitioned
(per execution affinity, never mixing affinities) into ``stream.async.execute`` regions; values
from outside become region operands, values used outside are yielded and read back through a
``stream.timepoint.await`` placed right after the region. Results that update an operand in
place are tied to it (``%arg as T{%s}`` in the result list).

Partitioning (a forward variant of IREE's reference partitioner): ops are visited in block
order and appended to the open partition of their affinity. A partition is closed (its region
emitted after its last op) when a host op uses one of its values, when a partition of another
affinity consumes one of its values, or at a host op that may have side effects on resources
(calls, check ops, ops with regions — whose blocks are partitioned on their own). An op that
consumes a value of another affinity's partition which the open partition of its own affinity
does not already wait on starts a new partition: the work before it stays in a region that
waits on nothing from that device, so two devices' independent work runs concurrently (a
result transferred back from device b does not hold up device a's own dispatches).

Example (seed 000, ``@test``)::

    %0 = stream.tensor.import %arg0 : !hal.buffer_view -> tensor<1x10xf32> in !stream.resource<external>{%c40}
    %2 = stream.async.dispatch @ex::@fn[%c10](%0[%c0 to %c40 for %c40]) : (!stream.resource<external>{%c40}) -> !stream.resource<external>{%c40}
    %3 = stream.tensor.export %2 : tensor<1x10xf32> in !stream.resource<external>{%c40} -> !hal.buffer_view
    // ->
    %results, %result_timepoint = stream.async.execute with(%0 as %arg1: !stream.resource<external>{%c40}) -> !stream.resource<external>{%c40} {
      %4 = stream.async.dispatch @ex::@fn[%c10](%arg1[%c0 to %c40 for %c40]) : (!stream.resource<external>{%c40}) -> !stream.resource<external>{%c40}
      stream.yield %4 : !stream.resource<external>{%c40}
    } => !stream.timepoint
    %1 = stream.timepoint.await %result_timepoint => %results : !stream.resource<external>{%c40}
    %3 = stream.tensor.export %1 : ...

Source followed: IREE ``Stream/Transforms/ScheduleExecution.cpp`` and
``Stream/Analysis/Partitioning/ReferencePartitioning.cpp``.
"""
import dataclasses

from xdsl.dialects import func
from xdsl.ir import Block, Region

from rt.compiler.dialects import stream, util
from rt.compiler.dialects.stream_types import ResourceType, TimepointType, index_array
from rt.compiler.passes.base import Pass
from rt.compiler.helpers.stream.async_ops import STREAMABLE, execution_affinity, size_of, tied_input
from rt.compiler.helpers.stream.resources import host_callables

#: calls close every open partition (as do check ops and ops with regions)
_CALLS = (util.CallOp, func.CallOp)


class _Partition:
    def __init__(self, affinity):
        self.affinity = affinity
        self.ops = []
        self.values = set()
        self.waits_on = set()

    def add(self, op):
        self.ops.append(op)
        self.values.update(op.results)


def _used_values(op):
    """Operands of ``op`` and of every op nested in its regions."""
    values = []
    for inner in op.walk():
        values.extend(inner.operands)
    return values


def _flushes(op):
    return bool(op.regions) or isinstance(op, _CALLS) or op.dialect_name() == "check"


@dataclasses.dataclass(frozen=True)
class ScheduleExecutionPass(Pass):
    """Partition streamable ops into stream.async.execute regions followed by awaits."""

    name = "iree-stream-schedule-execution"

    def run(self, module, ctx):
        for callable_op in host_callables(module):
            for region in callable_op.regions:
                for block in list(region.blocks):
                    schedule_block(block)


def schedule_block(block):
    """Partition the streamable ops of ``block`` (and of blocks nested in its host ops)."""
    open_parts = {}
    owner = {}

    def close(part):
        if open_parts.get(part.affinity) is part:
            del open_parts[part.affinity]
        _emit(part)

    for op in list(block.ops):
        if not isinstance(op, STREAMABLE):
            if isinstance(op, stream.AsyncExecuteOp):
                continue
            for value in _used_values(op):
                part = owner.get(value)
                if part is not None and open_parts.get(part.affinity) is part:
                    close(part)
            if _flushes(op):
                for part in list(open_parts.values()):
                    close(part)
                for region in op.regions:
                    for inner in list(region.blocks):
                        schedule_block(inner)
            continue
        affinity = execution_affinity(op)
        foreign = {owner[v] for v in op.operands if v in owner and owner[v].affinity != affinity}
        for producer in foreign:
            if open_parts.get(producer.affinity) is producer:
                close(producer)
        part = open_parts.get(affinity)
        if part is not None and not foreign <= part.waits_on:
            close(part)
            part = None
        if part is None:
            part = open_parts[affinity] = _Partition(affinity)
        for producer in foreign:
            part.waits_on |= {producer} | producer.waits_on
        part.add(op)
        for result in op.results:
            owner[result] = part
    for part in list(open_parts.values()):
        close(part)


def _emit(part):
    """Replace ``part.ops`` by a stream.async.execute + stream.timepoint.await after the last op."""
    members = set(part.ops)
    last = part.ops[-1]
    ins, outs = [], []
    for op in part.ops:
        for value in op.operands:
            if isinstance(value.type, ResourceType) and value not in part.values and value not in ins:
                ins.append(value)
        for result in op.results:
            if any(use.operation not in members for use in result.uses):
                outs.append(result)
    anchor = last.next_op
    block = last.parent_block()
    in_sizes = [size_of(v, part.ops[0]) for v in ins]
    out_sizes = [size_of(v, anchor) for v in outs]
    tied = [tied_input(v, members, ins) for v in outs]
    body = Block(arg_types=[v.type for v in ins])
    props = {"affinity": part.affinity} if part.affinity is not None else {}
    if any(t >= 0 for t in tied):
        props["tied_operands"] = index_array(tied)
    execute = stream.AsyncExecuteOp.build(
        operands=[ins, in_sizes, out_sizes, []], result_types=[[v.type for v in outs], TimepointType()],
        properties=props, regions=[Region(body)])
    block.insert_op_after(execute, last)
    for op in part.ops:
        op.detach()
        body.add_op(op)
    for value, arg in zip(ins, body.args):
        value.replace_uses_with_if(arg, lambda use: use.operation is not execute and execute.is_ancestor(use.operation))
    body.add_op(stream.YieldOp.build(operands=[outs, out_sizes]))
    if not outs:
        return execute
    wait = stream.TimepointAwaitOp.build(operands=[execute.result_timepoint, list(execute.results_), out_sizes],
                                         result_types=[[v.type for v in outs]])
    block.insert_op_after(wait, execute)
    for value, awaited in zip(outs, wait.results_):
        value.replace_uses_with_if(awaited, lambda use: not execute.is_ancestor(use.operation))
    return execute

