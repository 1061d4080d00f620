"""``iree-stream-propagate-timepoints``: carry timepoints with resources so execution chains on device.

Input: execution regions each followed by a ``stream.timepoint.await`` (schedule-execution).
Output:

* every resource global ``@g`` gets a companion ``util.global private mutable @g__timepoint =
  #stream.timepoint<immediate> : !stream.timepoint``; a store of an awaited value stores the
  value before the await and its timepoint; a load is followed by an await of the loaded
  timepoint (which later passes fold into the consumers' awaits);
* a ``stream.async.execute`` operand that comes out of a ``stream.timepoint.await`` is replaced
  by the awaited resource, and the region awaits the join of those timepoints instead of the
  host blocking in between;
* awaits left without users are removed.

Resources crossing calls, returns and branches stay awaited values (rt does not yet expand
them into resource + timepoint pairs as IREE does); this is correct, only less concurrent.

Example (seed 000, ``@test``)::

    util.global private @_constant : !stream.resource<constant>
    %_constant = util.global.load @_constant : !stream.resource<constant>
    %r, %t = stream.async.execute with(%0 as %a: !stream.resource<external>{%c40}, %_constant as %b: ...) ...
    // ->
    util.global private mutable @_constant__timepoint = #stream.timepoint<immediate> : !stream.timepoint
    util.global private @_constant : !stream.resource<constant>
    %tp = util.global.load @_constant__timepoint : !stream.timepoint
    %_constant = util.global.load @_constant : !stream.resource<constant>
    %r, %t = stream.async.execute await(%tp) => with(%0 as %a: ..., %_constant as %b: ...) ...

Source followed: IREE ``Stream/Transforms/PropagateTimepoints.cpp``.
"""
import dataclasses

from xdsl.dialects.builtin import StringAttr, SymbolRefAttr, UnitAttr

from rt.compiler.dialects import stream, util
from rt.compiler.dialects.stream_types import ResourceType, TimepointAttr, TimepointType
from rt.compiler.passes.base import Pass
from rt.compiler.helpers.stream.async_ops import size_of
from rt.compiler.helpers.stream.resources import host_callables

_SUFFIX = "__timepoint"


@dataclasses.dataclass(frozen=True)
class PropagateTimepointsPass(Pass):
    """Pair resources with timepoints across globals and execution regions."""

    name = "iree-stream-propagate-timepoints"

    def run(self, module, ctx):
        globals_ = _expand_globals(module)
        callables = host_callables(module)
        for callable_op in callables:
            for op in list(callable_op.walk()):
                if isinstance(op, util.GlobalLoadOp) and op.global_name.root_reference.data in globals_:
                    _load(op)
                elif isinstance(op, util.GlobalStoreOp) and op.global_name.root_reference.data in globals_:
                    _store(op)
        for callable_op in callables:
            for op in list(callable_op.walk()):
                if isinstance(op, stream.AsyncExecuteOp):
                    _await_operands(op)
        for callable_op in callables:
            for op in reversed(list(callable_op.walk())):
                if isinstance(op, stream.TimepointAwaitOp) and not any(r.uses for r in op.results):
                    op.detach()
                    op.erase()


def _expand_globals(module):
    names = set()
    block = module.body.block
    for op in list(block.ops):
        if not isinstance(op, util.GlobalOp) or not isinstance(op.properties["type"], ResourceType):
            continue
        name = op.sym_name.data
        names.add(name)
        block.insert_op_after(util.GlobalOp.build(properties={
            "sym_name": StringAttr(name + _SUFFIX), "sym_visibility": StringAttr("private"),
            "is_mutable": UnitAttr(), "type": TimepointType(),
            "initial_value": TimepointAttr(StringAttr("immediate"))}), op)
    return names


def _ref(op):
    return SymbolRefAttr(op.global_name.root_reference.data + _SUFFIX)


def _load(op):
    block = op.parent_block()
    tp = util.GlobalLoadOp.build(result_types=[TimepointType()], properties={"global": _ref(op)})
    block.insert_op_before(tp, op)
    anchor = op.next_op
    size = size_of(op.result, anchor)
    wait = stream.TimepointAwaitOp.build(operands=[tp.result, [op.result], [size]], result_types=[[op.result.type]])
    block.insert_op_before(wait, anchor)
    op.result.replace_uses_with_if(wait.results_[0], lambda use: use.operation is not wait
                                   and not isinstance(use.operation, stream.ResourceSizeOp))


def _store(op):
    block = op.parent_block()
    value, timepoint = _unawaited(op.value)
    if timepoint is None:
        immediate = stream.TimepointImmediateOp.build(result_types=[TimepointType()])
        block.insert_op_before(immediate, op)
        timepoint = immediate.result
    elif value is not op.value:
        op.operands[0] = value
    block.insert_op_after(util.GlobalStoreOp.build(operands=[timepoint], properties={"global": _ref(op)}), op)


def _unawaited(value):
    """(resource before its await, the awaited timepoint) or (value, None)."""
    owner = getattr(value, "op", None)
    if isinstance(owner, stream.TimepointAwaitOp):
        return owner.resource_operands[value.index], owner.await_timepoint
    return value, None


def _await_operands(execute):
    timepoints = list(execute.await_timepoint)
    operands = []
    for value in execute.resource_operands:
        source, timepoint = _unawaited(value)
        if timepoint is not None and timepoint not in timepoints:
            timepoints.append(timepoint)
        operands.append(source)
    if timepoints == list(execute.await_timepoint):
        return
    block = execute.parent_block()
    awaits = timepoints
    if len(timepoints) > 1:
        join = stream.TimepointJoinOp.build(operands=[timepoints], result_types=[TimepointType()])
        block.insert_op_before(join, execute)
        awaits = [join.result]
    region = execute.detach_region(execute.body)
    new = stream.AsyncExecuteOp.build(
        operands=[operands, list(execute.resource_operand_sizes), list(execute.result_sizes), awaits],
        result_types=[[r.type for r in execute.results_], TimepointType()],
        properties={k: v for k, v in execute.properties.items() if k != "operandSegmentSizes"},
        attributes=dict(execute.attributes), regions=[region])
    block.insert_op_before(new, execute)
    for old, replacement in zip(execute.results, new.results):
        old.replace_all_uses_with(replacement)
    execute.detach()
    execute.erase()
