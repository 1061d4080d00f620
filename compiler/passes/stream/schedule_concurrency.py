"""``iree-stream-schedule-concurrency``: independent work inside an execution region runs concurrently.

Input: ``stream.async.execute`` regions (schedule-execution). Output: the ops of each region
are ordered in *waves* — an op's wave is one more than the latest wave of the ops producing its
operands; an op updating a resource in place also follows every earlier reader of that
resource. A wave holding several ops becomes one ``stream.async.concurrent`` region (operands
from earlier waves enter as region arguments, values used later are yielded); single-op waves
stay as they are. ``stream.async.alloca``/``constant`` (no work) stay first. The HAL conversion
records no execution barrier between the commands of one concurrent region.

Example::

    %r, %t = stream.async.execute with(%in as %a: !stream.resource<external>{%c40}) -> ... {
      %1 = stream.async.dispatch @ex::@f(%a[%c0 to %c40 for %c40]) : (...) -> !stream.resource<transient>{%c40}
      %2 = stream.async.dispatch @ex::@g(%a[%c0 to %c40 for %c40]) : (...) -> !stream.resource<transient>{%c40}
      %3 = stream.async.dispatch @ex::@h(%1[...], %2[...]) : (...) -> !stream.resource<external>{%c40}
      stream.yield %3 : ...
    }
    // ->
      %c:2 = stream.async.concurrent with(%a as %b: !stream.resource<external>{%c40}) -> (!stream.resource<transient>{%c40}, !stream.resource<transient>{%c40}) {
        %1 = stream.async.dispatch @ex::@f(%b[...]) ...
        %2 = stream.async.dispatch @ex::@g(%b[...]) ...
        stream.yield %1, %2 : ...
      }
      %3 = stream.async.dispatch @ex::@h(%c#0[...], %c#1[...]) ...

Source followed: IREE ``Stream/Transforms/ScheduleConcurrency.cpp`` and
``partitionRegionConcurrencyReference`` (Partitioning/ReferencePartitioning.cpp).
"""
import dataclasses

from xdsl.ir import Block, Region

from rt.compiler.dialects import stream
from rt.compiler.dialects.stream_types import ResourceType, index_array
from rt.compiler.passes.base import Pass
from rt.compiler.helpers.stream.async_ops import known_size, tied_input, tied_operand
from rt.compiler.helpers.stream.resources import host_callables

_NO_WORK = (stream.AsyncAllocaOp, stream.AsyncConstantOp)


@dataclasses.dataclass(frozen=True)
class ScheduleConcurrencyPass(Pass):
    """Wrap independent ops of each stream.async.execute in stream.async.concurrent regions."""

    name = "iree-stream-schedule-concurrency"

    def run(self, module, ctx):
        for callable_op in host_callables(module):
            for op in list(callable_op.walk()):
                if isinstance(op, stream.AsyncExecuteOp):
                    schedule_region(op)


def _waves(ops):
    """[[op, ...] per wave] in order; ops of one wave have no dependencies on each other."""
    wave_of = {}
    for i, op in enumerate(ops):
        wave = 0
        for value in op.operands:
            producer = getattr(value, "op", None)
            if producer in wave_of:
                wave = max(wave, wave_of[producer] + 1)
        for k in range(len(op.results)):
            target = tied_operand(op, k)
            if target is None:
                continue
            for use in target.uses:
                if use.operation in wave_of and use.operation is not op:
                    wave = max(wave, wave_of[use.operation] + 1)
        wave_of[op] = wave
    waves = {}
    for op in ops:
        waves.setdefault(wave_of[op], []).append(op)
    return [waves[w] for w in sorted(waves)]


def schedule_region(execute):
    """Reorder ``execute``'s body in waves and wrap multi-op waves in stream.async.concurrent."""
    block = execute.body.blocks[0]
    terminator = block.last_op
    ops = [op for op in block.ops if op is not terminator]
    setup = [op for op in ops if isinstance(op, _NO_WORK)]
    work = [op for op in ops if not isinstance(op, _NO_WORK)]
    waves = _waves(work)
    if all(len(w) == 1 for w in waves):
        return
    for op in ops:
        op.detach()
    for op in setup:
        block.insert_op_before(op, terminator)
    for wave in waves:
        for op in wave:
            block.insert_op_before(op, terminator)
        if len(wave) > 1:
            _wrap(wave, execute, terminator)


def _wrap(wave, execute, terminator):
    members = set(wave)
    produced = {r for op in wave for r in op.results}
    ins, outs = [], []
    for op in wave:
        for value in op.operands:
            if isinstance(value.type, ResourceType) and value not in produced and value not in ins:
                ins.append(value)
        for result in op.results:
            if any(use.operation not in members for use in result.uses):
                outs.append(result)
    tied = [tied_input(v, members, ins) for v in outs]
    body = Block(arg_types=[v.type for v in ins])
    props = {"affinity": execute.affinity} if execute.affinity is not None else {}
    if any(t >= 0 for t in tied):
        props["tied_operands"] = index_array(tied)
    out_sizes = [known_size(v) for v in outs]
    concurrent = stream.AsyncConcurrentOp.build(
        operands=[ins, [known_size(v) for v in ins], out_sizes], result_types=[[v.type for v in outs]],
        properties=props, regions=[Region(body)])
    terminator.parent_block().insert_op_before(concurrent, terminator)
    for op in wave:
        op.detach()
        body.add_op(op)
    body.add_op(stream.YieldOp.build(operands=[outs, out_sizes]))
    for value, arg in zip(ins, body.args):
        value.replace_uses_with_if(arg, lambda use: use.operation is not concurrent
                                   and concurrent.is_ancestor(use.operation))
    for value, result in zip(outs, concurrent.results_):
        value.replace_uses_with_if(result, lambda use: not concurrent.is_ancestor(use.operation))

