"""``iree-stream-schedule-allocation``: async execution regions -> allocations + ``stream.cmd.execute``.

Input: ``stream.async.execute`` regions (after schedule-execution/-concurrency and
propagate-timepoints). Output, per region (storage planned by :mod:`.allocation_plan`):

* ``stream.async.constant`` ops are hoisted into one ``stream.resource.constants`` before it;
* each result that is not tied to an operand gets ``stream.resource.alloc uninitialized``;
* values that live only inside the region become slices of one transient
  ``stream.resource.alloca`` sized by ``stream.resource.pack`` (lifetime intervals over the
  region's top-level ops; iree-stream-layout-slices assigns the offsets), released by
  ``stream.resource.dealloca`` once the commands completed;
* the region becomes ``stream.cmd.execute`` over all those resources: dispatch ->
  ``stream.cmd.dispatch`` (operands ``ro``, or ``rw`` when a result is tied to them; new
  results ``wo``), splat/fill -> ``stream.cmd.fill``, clone/slice/update/copy/transfer ->
  ``stream.cmd.copy``, collective -> ``stream.cmd.collective`` (source ``ro``, target ``wo``),
  ``stream.async.concurrent`` -> ``stream.cmd.concurrent``;
* the region's timepoint becomes the join of the command timepoint and the dealloca's (and the
  constants' when a result is a constant).

``stream.async.load``/``store`` outside regions become ``stream.resource.load``/``store``.

Example (seed 000 ``@predict``, shortened)::

    %r, %t = stream.async.execute with(%0 as %a: !stream.resource<external>{%c8}) -> !stream.resource<external>{%c40} {
      %3 = stream.async.dispatch @d0::@f0[%c1](%a[%c0 to %c8 for %c8]) : (!stream.resource<external>{%c8}) -> !stream.resource<transient>{%c40}
      %4 = stream.async.dispatch @d1::@f1[%c1](%3[%c0 to %c40 for %c40]) : (!stream.resource<transient>{%c40}) -> !stream.resource<external>{%c40}
      stream.yield %4 : !stream.resource<external>{%c40}
    } => !stream.timepoint
    // ->
    %1 = stream.resource.alloc uninitialized : !stream.resource<external>{%c40}
    %2:2 = stream.resource.pack slices({[0, 1] = %c40}) : index
    %tr, %ta = stream.resource.alloca uninitialized : !stream.resource<transient>{%2#0} => !stream.timepoint
    %e = stream.cmd.execute await(%ta) => with(%0 as %x: !stream.resource<external>{%c8}, %1 as %y: !stream.resource<external>{%c40}, %tr as %z: !stream.resource<transient>{%2#0}) {
      stream.cmd.dispatch @d0::@f0[%c1] { ro %x[%c0 for %c8] : ..., wo %z[%2#1 for %c40] : ... }
      stream.cmd.dispatch @d1::@f1[%c1] { ro %z[%2#1 for %c40] : ..., wo %y[%c0 for %c40] : ... }
    } => !stream.timepoint
    %d = stream.resource.dealloca await(%e) => %tr : !stream.resource<transient>{%2#0} => !stream.timepoint
    %t = stream.timepoint.join max(%d, %e) => !stream.timepoint

Source followed: IREE ``Stream/Transforms/ScheduleAllocation.cpp``.
"""
import dataclasses

from xdsl.dialects import arith
from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, StringAttr, UnitAttr
from xdsl.ir import Block, Region

from rt.compiler.dialects import stream
from rt.compiler.dialects.stream_collective import AsyncCollectiveOp, CmdCollectiveOp, collective_props
from rt.compiler.dialects.stream_types import INDEX, ResourceType, TimepointType, int_list
from rt.compiler.frontend.diagnostics import error_at_op
from rt.compiler.passes.base import Pass
from rt.compiler.helpers.stream.allocation_plan import Plan
from rt.compiler.helpers.stream.async_ops import known_size
from rt.compiler.helpers.stream.resources import host_callables, index_constant


@dataclasses.dataclass(frozen=True)
class ScheduleAllocationPass(Pass):
    """stream.async.execute -> resource allocation + stream.cmd.execute."""

    name = "iree-stream-schedule-allocation"

    def run(self, module, ctx):
        for callable_op in host_callables(module):
            for op in list(callable_op.walk()):
                if isinstance(op, stream.AsyncExecuteOp):
                    _allocate_execute(op)
                elif isinstance(op, stream.AsyncLoadOp):
                    _load(op)
                elif isinstance(op, stream.AsyncStoreOp):
                    _store(op)


class _Before:
    """Builds ops before a fixed anchor."""

    def __init__(self, anchor):
        self.anchor = anchor

    def add(self, op):
        self.anchor.parent_block().insert_op_before(op, self.anchor)
        return op

    def offset(self, base, extra):
        """``base + extra`` (index), folding zero and constant operands."""
        a, b = _constant(base), _constant(extra)
        if a == 0:
            return extra
        if b == 0:
            return base
        if a is not None and b is not None:
            return self.add(index_constant(a + b)).result
        return self.add(arith.AddiOp(base, extra)).result


def _constant(value):
    op = getattr(value, "op", None)
    if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
        return op.value.value.data
    return None


def _props(affinity, **extra):
    return extra | ({"affinity": affinity} if affinity is not None else {})


def _join(b, timepoints):
    unique = []
    for t in timepoints:
        if t not in unique:
            unique.append(t)
    if len(unique) == 1:
        return unique[0]
    return b.add(stream.TimepointJoinOp.build(operands=[unique], result_types=[TimepointType()])).result


def _allocate_execute(execute):
    plan = Plan(execute)
    aff = execute.affinity
    b = _Before(execute)
    body = plan.body
    awaits = list(execute.await_timepoint)
    with_values, with_sizes = list(execute.resource_operands), list(execute.resource_operand_sizes)
    const_tp = None
    if plan.constants:
        consts = b.add(stream.ResourceConstantsOp.build(
            operands=[[c.result_size for c in plan.constants]],
            result_types=[[c.result.type for c in plan.constants], TimepointType()],
            properties=_props(aff, values=ArrayAttr([c.value for c in plan.constants]))))
        const_tp = consts.result_timepoint
        awaits.append(const_tp)
        with_values += list(consts.results_)
        with_sizes += [c.result_size for c in plan.constants]
    result_storage = {}
    for root, k in plan.results.items():
        alloc = b.add(stream.ResourceAllocOp.build(
            operands=[execute.result_sizes[k]], result_types=[execute.results_[k].type],
            properties=_props(aff, uninitialized=UnitAttr())))
        result_storage[root] = len(with_values)
        with_values.append(alloc.result)
        with_sizes.append(execute.result_sizes[k])
    transient = None
    if plan.transients:
        roots = list(plan.transients)
        intervals = [bound for root in roots for bound in plan.transients[root]]
        pack = b.add(stream.ResourcePackOp.build(
            operands=[[], [known_size(r) for r in roots]], result_types=[INDEX, [INDEX] * len(roots)],
            properties=_props(aff, lifetime_intervals=ArrayAttr([IntegerAttr(i, INDEX) for i in intervals]))))
        alloca = b.add(stream.ResourceAllocaOp.build(
            operands=[pack.total_length, _single(b, awaits)],
            result_types=[ResourceType("transient"), TimepointType()], properties=_props(aff)))
        awaits = [alloca.result_timepoint]
        transient = (alloca.result, pack.total_length, roots, list(pack.packed_offsets))
        with_values.append(alloca.result)
        with_sizes.append(pack.total_length)
    cmd_body = Block(arg_types=[v.type for v in with_values])
    args = cmd_body.args
    zero = None
    for i, arg in enumerate(body.args):
        plan.assign(arg, args[i], None, with_sizes[i])
    for j, const in enumerate(plan.constants):
        plan.assign(const.result, args[len(body.args) + j], None, const.result_size)
    for root, position in result_storage.items():
        plan.assign(root, args[position], None, with_sizes[position])
    if transient is not None:
        _, total, roots, offsets = transient
        for root, offset in zip(roots, offsets):
            plan.assign(root, args[-1], offset, total)
    if any(offset is None for _, offset, _ in plan.storage.values()):
        zero = b.add(index_constant(0)).result
        for root, (resource, offset, size) in list(plan.storage.items()):
            if offset is None:
                plan.storage[root] = (resource, zero, size)
    _Commands(plan, b).convert(body, cmd_body)
    if zero is not None and not zero.uses:
        zero.op.detach()
        zero.op.erase()
    cmd = b.add(stream.CmdExecuteOp.build(
        operands=[with_values, with_sizes, _single(b, awaits)], result_types=[TimepointType()],
        properties=_props(aff), regions=[Region(cmd_body)]))
    after = cmd.next_op
    done = [cmd.result_timepoint]
    if transient is not None:
        dealloca = stream.ResourceDeallocaOp.build(operands=[transient[0], transient[1], [cmd.result_timepoint]],
                                                   result_types=[TimepointType()], properties=_props(aff))
        cmd.parent_block().insert_op_before(dealloca, after)
        done.insert(0, dealloca.result_timepoint)
    yields = list(body.last_op.resource_operands)
    tied = int_list(execute.tied_operands)
    for k, result in enumerate(execute.results_):
        if k < len(tied) and tied[k] >= 0:
            result.replace_all_uses_with(execute.resource_operands[tied[k]])
            continue
        root = plan.root(yields[k])
        resource = plan.storage[root][0]
        value = with_values[list(args).index(resource)]
        if root in [c.result for c in plan.constants] and const_tp not in done:
            done.append(const_tp)
        result.replace_all_uses_with(value)
    execute.result_timepoint.replace_all_uses_with(_join(_Before(after), done))
    for op in reversed(list(body.ops)):
        op.detach()
        op.erase(safe_erase=False)
    execute.detach()
    execute.erase(safe_erase=False)


def _single(b, timepoints):
    """[] / [t] / [join(t...)] for an op's optional await operand."""
    if not timepoints:
        return []
    return [_join(b, timepoints)]


class _Commands:
    """Converts async ops of an execute region into cmd ops over the planned storage."""

    def __init__(self, plan, b):
        self.plan = plan
        self.b = b

    def convert(self, block, target):
        for op in block.ops:
            new = self._command(op)
            if new is not None:
                target.add_op(new)

    def _range(self, value, extra=None):
        resource, base, size = self.plan.range_of(value)
        return resource, (self.b.offset(base, extra) if extra is not None else base), size

    def _copy(self, source, source_offset, target, target_offset, length):
        src, soff, ssize = self._range(source, source_offset)
        dst, doff, dsize = self._range(target, target_offset)
        return stream.CmdCopyOp.build(operands=[src, ssize, soff, dst, dsize, doff, length])

    def _fill(self, value, target, offset, length):
        dst, doff, dsize = self._range(target, offset)
        return stream.CmdFillOp.build(operands=[value, dst, dsize, doff, length])

    def _command(self, op):
        if isinstance(op, (stream.AsyncAllocaOp, stream.AsyncConstantOp, stream.YieldOp)):
            return None
        if isinstance(op, stream.AsyncDispatchOp):
            return self._dispatch(op)
        if isinstance(op, stream.AsyncSplatOp):
            return self._fill(op.value, op.result, None, op.result_size)
        if isinstance(op, stream.AsyncFillOp):
            return self._fill(op.value, op.result, op.target_offset, op.target_length)
        if isinstance(op, (stream.AsyncCloneOp, stream.AsyncTransferOp)):
            return self._copy(op.source, None, op.result, None, op.result_size)
        if isinstance(op, stream.AsyncSliceOp):
            return self._copy(op.source, op.source_offset, op.result, None, op.result_size)
        if isinstance(op, stream.AsyncUpdateOp):
            return self._copy(op.update, None, op.result, op.target_offset, op.update_size)
        if isinstance(op, stream.AsyncCopyOp):
            return self._copy(op.source, op.source_offset, op.result, op.target_offset, op.length)
        if isinstance(op, AsyncCollectiveOp):
            return self._collective(op)
        if isinstance(op, stream.AsyncConcurrentOp):
            inner = Block()
            self.convert(op.body.blocks[0], inner)
            return stream.CmdConcurrentOp.build(regions=[Region(inner)])
        raise error_at_op(op, f"'{op.name}' inside stream.async.execute has no stream.cmd form; expected "
                              "stream.async.dispatch/splat/fill/clone/slice/update/copy/transfer/alloca/constant")

    def _collective(self, op):
        src, soff, ssize = self._range(op.source, op.source_offset)
        dst, doff, dsize = self._range(op.result, op.target_offset)
        props = collective_props(op.collective_kind.data, op.reduction.data if op.reduction else None,
                                 op.element_type.data)
        props["resource_accesses"] = ArrayAttr([StringAttr("ro"), StringAttr("wo")])
        return CmdCollectiveOp.build(
            operands=[op.channel, op.element_count, [op.param] if op.param is not None else [],
                      [src, dst], [ssize, dsize], [soff, doff], [op.source_length, op.target_length]],
            properties=props)

    def _dispatch(self, op):
        tied = int_list(op.tied_operands)
        written = {t for t in tied if t >= 0}
        resources, sizes, offsets, lengths, accesses, uniforms = [], [], [], [], [], []
        ranges = iter(zip(op.resource_operand_offsets, op.resource_operand_lengths))
        for j, value in enumerate(op.resource_operands):
            if not isinstance(value.type, ResourceType):
                uniforms.append(value)
                continue
            offset, length = next(ranges)
            resource, start, size = self._range(value, offset)
            resources.append(resource)
            sizes.append(size)
            offsets.append(start)
            lengths.append(length)
            accesses.append("rw" if j in written else "ro")
        for k, result in enumerate(op.results_):
            if k < len(tied) and tied[k] >= 0:
                continue
            resource, start, size = self._range(result)
            resources.append(resource)
            sizes.append(size)
            offsets.append(start)
            lengths.append(op.result_sizes[k])
            accesses.append("wo")
        new = stream.CmdDispatchOp.build(
            operands=[list(op.workload), uniforms, resources, sizes, offsets, lengths],
            properties={"entry_points": op.entry_points,
                        "resource_accesses": ArrayAttr([StringAttr(a) for a in accesses])})
        new.location = op.location
        return new


def _load(op):
    new = stream.ResourceLoadOp.build(operands=[op.source, op.source_size, op.source_offset],
                                      result_types=[op.result.type])
    op.parent_block().insert_op_before(new, op)
    op.result.replace_all_uses_with(new.result)
    op.detach()
    op.erase()


def _store(op):
    new = stream.ResourceStoreOp.build(operands=[op.value, op.target, op.target_size, op.target_offset])
    op.parent_block().insert_op_before(new, op)
    op.result.replace_all_uses_with(op.target)
    op.detach()
    op.erase()
