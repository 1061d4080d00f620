"""``iree-stream-elide-timepoints``: drop waits on timepoints that are known reached.

Input: host functions with timeline ops (``stream.cmd.execute await(...)``,
``stream.resource.alloca/dealloca await(...)``, ``stream.timepoint.join``,
``stream.timepoint.await``). Output, using :mod:`.timepoint_coverage`:

1. a timepoint known to be immediate (a join of immediates, a load of a global that only
   holds immediates, ...) is replaced by ``stream.timepoint.immediate``;
2. an operand of a join or of an ``await(...)`` list that another operand of the same op
   covers is dropped (waiting for ``%t1 = ... await(%t0)`` already waits for ``%t0``);
3. then the clean-ups IREE leaves to canonicalization: immediate operands leave joins and
   ``await(...)`` lists, a join of one timepoint is that timepoint, a join of none is
   immediate, an ``await(...)`` list of several becomes one ``stream.timepoint.join`` (the HAL
   conversion waits on one fence), ``stream.timepoint.await`` of an immediate timepoint
   forwards its resources, and unused immediates/joins/timepoint loads are erased;
4. each ``stream.timepoint.await`` moves down to just before the first op of its block that
   uses one of its results (IREE's ``SinkAwaitToFirstConsumer``), so the host submits all
   the work that does not need the awaited results -- e.g. another device's -- before it
   blocks.

The steps repeat until nothing changes (IREE runs the pass inside a fixed-point iteration with
the canonicalizer). Affinities of the timeline ops are untouched.

Example (seeds 000/003)::

    %t0 = stream.cmd.execute on(#a) with(...) {...} => !stream.timepoint
    %t1 = stream.cmd.execute on(#a) await(%t0) => with(...) {...} => !stream.timepoint
    %t2 = stream.timepoint.join max(%t0, %t1) => !stream.timepoint
    %r = stream.timepoint.await %t2 => %res : !stream.resource<external>{%c4}
    // ->
    %t0 = stream.cmd.execute on(#a) with(...) {...} => !stream.timepoint
    %t1 = stream.cmd.execute on(#a) await(%t0) => with(...) {...} => !stream.timepoint
    %r = stream.timepoint.await %t1 => %res : !stream.resource<external>{%c4}

Source followed: IREE ``Dialect/Stream/Transforms/ElideTimepoints.cpp`` and the timepoint
canonicalization patterns of ``Dialect/Stream/IR/StreamOpFolders.cpp``.
"""
import dataclasses

from xdsl.rewriter import InsertPoint, Rewriter

from rt.compiler.dialects import stream, util
from rt.compiler.dialects.stream_types import TimepointType
from rt.compiler.passes.base import Pass
from rt.compiler.helpers.stream.async_ops import ancestor_in
from rt.compiler.helpers.stream.operand_segments import set_operand_groups
from rt.compiler.helpers.stream.resources import host_callables
from rt.compiler.helpers.stream.timepoint_coverage import TimepointCoverage, await_operands, is_timepoint

_DEAD_IF_UNUSED = (stream.TimepointImmediateOp, stream.TimepointJoinOp, util.GlobalLoadOp)


@dataclasses.dataclass(frozen=True)
class ElideTimepointsPass(Pass):
    """Replace reached timepoints by immediates and drop covered waits, to a fixed point."""

    name = "iree-stream-elide-timepoints"
    max_iterations: int = 8

    def run(self, module, ctx):
        callables = host_callables(module)
        for _ in range(self.max_iterations):
            coverage = TimepointCoverage(module)
            for callable_op in callables:
                coverage.analyze(callable_op)
            changed = False
            for callable_op in callables:
                changed |= _replace_immediates(callable_op, coverage)
                changed |= _drop_covered(callable_op, coverage)
                changed |= _fold(callable_op)
            if not changed:
                break
        for callable_op in callables:
            _sink_awaits(callable_op)


def _is_immediate_op(value):
    return isinstance(value.owner, stream.TimepointImmediateOp)


def _new_immediate(point):
    op = stream.TimepointImmediateOp.build(result_types=[TimepointType()])
    Rewriter.insert_op(op, point)
    return op.result


def _replace_immediates(callable_op, coverage):
    changed = False
    for op in list(callable_op.walk()):
        for block in (b for region in op.regions for b in region.blocks):
            for arg in block.args:
                if is_timepoint(arg) and arg.uses and coverage.is_immediate(arg):
                    arg.replace_all_uses_with(_new_immediate(InsertPoint.at_start(block)))
                    changed = True
        for result in op.results:
            if is_timepoint(result) and result.uses and coverage.is_immediate(result) \
                    and not _is_immediate_op(result):
                result.replace_all_uses_with(_new_immediate(InsertPoint.after(op)))
                changed = True
    return changed


def _without_covered(values, coverage):
    """``values`` minus those another kept value covers (first of duplicates kept)."""
    dropped = set()
    for i, value in enumerate(values):
        for j, other in enumerate(values):
            if i != j and j not in dropped and value in coverage.covers(other) and (other is not value or j < i):
                dropped.add(i)
                break
    return [v for i, v in enumerate(values) if i not in dropped]


def _drop_covered(callable_op, coverage):
    changed = False
    for op in list(callable_op.walk()):
        if isinstance(op, stream.TimepointJoinOp):
            kept = _without_covered(list(op.operands), coverage)
            if len(kept) != len(op.operands):
                op.operands = kept
                changed = True
            continue
        awaits = await_operands(op)
        if awaits and len(awaits) > 1 and _has_await_group(op):
            kept = _without_covered(awaits, coverage)
            if len(kept) != len(awaits):
                set_operand_groups(op, await_timepoint=kept)
                changed = True
    return changed


def _has_await_group(op):
    return "operandSegmentSizes" in op.properties


def _unique_non_immediate(values):
    kept = []
    for value in values:
        if not _is_immediate_op(value) and all(value is not k for k in kept):
            kept.append(value)
    return kept


def _fold(callable_op):
    changed = False
    for op in list(callable_op.walk()):
        if op.parent is None:
            continue
        if isinstance(op, stream.TimepointJoinOp):
            changed |= _fold_join(op)
        elif isinstance(op, stream.TimepointAwaitOp) and _is_immediate_op(op.await_timepoint):
            for result, value in zip(op.results, op.resource_operands):
                result.replace_all_uses_with(value)
            Rewriter.erase_op(op)
            changed = True
        elif _has_await_group(op) and await_operands(op):
            changed |= _fold_awaits(op)
    for op in reversed(list(callable_op.walk())):
        if isinstance(op, _DEAD_IF_UNUSED) and op.parent is not None \
                and all(isinstance(r.type, TimepointType) and not r.uses for r in op.results):
            Rewriter.erase_op(op)
            changed = True
    return changed


def _fold_join(op):
    kept = _unique_non_immediate(list(op.operands))
    if len(kept) == len(op.operands) and len(kept) > 1:
        return False
    if not kept:
        op.result.replace_all_uses_with(_new_immediate(InsertPoint.before(op)))
    elif len(kept) == 1:
        op.result.replace_all_uses_with(kept[0])
    else:
        op.operands = kept
        return True
    Rewriter.erase_op(op)
    return True


def _fold_awaits(op):
    awaits = await_operands(op)
    kept = _unique_non_immediate(awaits)
    if len(kept) > 1:
        join = stream.TimepointJoinOp.build(operands=[kept], result_types=[TimepointType()])
        Rewriter.insert_op(join, InsertPoint.before(op))
        kept = [join.result]
    if len(kept) == len(awaits) and all(k is a for k, a in zip(kept, awaits)):
        return False
    set_operand_groups(op, await_timepoint=kept)
    return True


def _first_consumer(op):
    """The first op after ``op`` in its block that uses (or nests a use of) one of its results."""
    block = op.parent_block()
    users = set()
    for result in op.results:
        for use in result.uses:
            user = ancestor_in(block, use.operation)
            if user is not None:
                users.add(user)
    current = op.next_op
    while current is not None and current not in users:
        current = current.next_op
    return current


def _sink_awaits(callable_op):
    for op in list(callable_op.walk()):
        if not isinstance(op, stream.TimepointAwaitOp):
            continue
        consumer = _first_consumer(op)
        if consumer is not None and consumer is not op.next_op:
            op.detach()
            consumer.parent_block().insert_op_before(op, consumer)
