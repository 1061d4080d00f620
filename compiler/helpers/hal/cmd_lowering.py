"""``stream.cmd.execute`` -> a recorded one-shot command buffer submitted with fences.

::

    %t = stream.cmd.execute on(#aff) await(%w) => with(%r as %a: !stream.resource<transient>{%s}) {
      stream.cmd.dispatch @ex::@add(%n : i32) { ro %a[%c0 for %c16] : ..., wo %a[%c16 for %c16] : ... }
      stream.cmd.fill %p, %a[%c0 for %c16] : i32 -> !stream.resource<transient>{%s}
    } => !stream.timepoint
    // ->
    %cmd = hal.command_buffer.create device(%dev : !hal.device) mode(OneShot) categories("Transfer|Dispatch") affinity(%q) : !hal.command_buffer
    %exe = util.global.load @__executable_ex___device_0 : !hal.executable
    ... workgroup count (the export's count region, cloned) ...
    hal.command_buffer.dispatch<%cmd : !hal.command_buffer> target(%exe : !hal.executable)[%ordinal] workgroups([%x, %y, %z]) constants([%n]) bindings([(%r : !hal.buffer)[%c0, %c16], ...]) flags(None)
    hal.command_buffer.execution_barrier<%cmd : !hal.command_buffer> source("CommandIssue|Dispatch|Transfer") target("CommandProcess|Dispatch|Transfer") flags("None")
    hal.command_buffer.fill_buffer<%cmd : !hal.command_buffer> target(%r : !hal.buffer)[%c0, %c16] pattern(%p : i32)
    hal.command_buffer.finalize<%cmd : !hal.command_buffer>
    %t = hal.fence.create device(%dev : !hal.device) flags("None") : !hal.fence
    hal.device.queue.execute<%dev : !hal.device> affinity(%q) wait(%w) signal(%t) commands(%cmd) flags("None")

An await list of several timepoints waits on their ``hal.fence.join``; none waits on an
immediate (created and signaled) fence.

Memoization (IREE's ``--iree-hal-memoization`` with indirect command buffers): when every
operand of the region's commands other than its resources is an ``arith.constant`` (static
shapes: workgroup counts, push constants, offsets and lengths all known), the command buffer is
recorded once, in the initializer, into a global — reusable, with ``bindings(%n)`` and binding-
table slot ``k`` standing for the region's ``k``-th resource — and each call only submits it::

    %cmd = util.global.load @__command_buffer_0 : !hal.command_buffer
    hal.device.queue.execute.indirect<%dev : !hal.device> affinity(%q) wait(%w) signal(%t) commands(%cmd) bindings([
        (%r : !hal.buffer)[%c0, %s], ...]) flags("None")

A region with a dynamic operand (a dynamic shape) keeps the one-shot recording per call.

Commands of the execute region and of ``stream.cmd.serial`` are separated by execution
barriers; those inside one ``stream.cmd.concurrent`` are not. Flush/invalidate/discard are
no-ops on rt's local devices (host-coherent memory).

Source followed: IREE ``Dialect/HAL/Conversion/StreamToHAL/Patterns.cpp`` (CmdExecuteOpPattern
and friends); memoization after ``Dialect/HAL/Transforms/MaterializeResourceCaches.cpp`` /
``OutlineMemoizeRegions.cpp`` (``hal.device.memoize``).
"""
from xdsl.dialects import arith
from xdsl.dialects.builtin import Float16Type, Float32Type, IndexType, IntegerType, StringAttr, i32
from xdsl.ir import Region

from rt.compiler.dialects import hal, stream, util
from rt.compiler.dialects.hal_ops import (CommandBufferCopyBufferOp, CommandBufferCreateOp,
                                          CommandBufferDispatchOp, CommandBufferExecutionBarrierOp,
                                          CommandBufferFillBufferOp, CommandBufferFinalizeOp,
                                          DeviceQueueExecuteIndirectOp, DeviceQueueExecuteOp)
from rt.compiler.dialects.hal_types import CommandBufferType, ExecutableType
from rt.compiler.dialects.stream_collective import CmdCollectiveOp
from rt.compiler.frontend.diagnostics import error_at_op
from rt.compiler.op_handlers import OpTable
from rt.compiler.helpers.hal.builder import Inserter
from rt.compiler.helpers.hal.channel_lowering import record_collective

_NOOPS = (stream.CmdFlushOp, stream.CmdInvalidateOp, stream.CmdDiscardOp)


def lower_execute(op, ctx):
    """Replace ``op`` (stream.cmd.execute) by command buffer recording + queue submission, or by
    the submission of a memoized command buffer (see the module docstring)."""
    b = Inserter(op)
    device_name = ctx.device_of(op)
    device = ctx.load_device(b, device_name)
    affinity = b.const_i64(-1)
    block = op.body.blocks[0]
    if _memoizable(op) and not _in_initializer(op):
        _submit_memoized(op, b, ctx, device_name, device, affinity)
        return
    cmd = b.value(CommandBufferCreateOp.build(
        operands=[device, affinity, []], result_types=[CommandBufferType()],
        properties={"modes": StringAttr("OneShot"), "command_categories": StringAttr("Transfer|Dispatch")}))
    for arg, value in zip(block.args, op.resource_operands):
        arg.replace_all_uses_with(value)
    _record_serial(list(block.ops), b, cmd, ctx, device_name, device)
    b.add(CommandBufferFinalizeOp.build(operands=[cmd]))
    wait = b.wait_fence(device, op.await_timepoint)
    signal = b.fence(device)
    b.named(DeviceQueueExecuteOp, {"device": device, "queue_affinity": affinity, "wait_fence": wait,
                                   "signal_fence": signal, "command_buffer": cmd},
            properties={"flags": StringAttr("None")})
    op.result_timepoint.replace_all_uses_with(signal)
    for inner in reversed(list(block.ops)):
        inner.detach()
        inner.erase(safe_erase=False)
    op.detach()
    op.erase(safe_erase=False)


def _memoizable(op):
    """True if every value the region's commands use is a region resource, a value defined in
    the region, or an ``arith.constant``: the commands are the same on every call."""
    inside = set(op.body.blocks[0].args)
    for inner in op.body.walk():
        inside.update(inner.results)
        for region in inner.regions:
            for block in region.blocks:
                inside.update(block.args)
    for inner in op.body.walk():
        for value in inner.operands:
            if value not in inside and not isinstance(value.owner, arith.ConstantOp):
                return False
    return True


def _in_initializer(op):
    """True inside a ``util.initializer`` (it runs once: nothing to memoize)."""
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, util.InitializerOp):
        parent = parent.parent_op()
    return parent is not None


def _submit_memoized(op, b, ctx, device_name, device, affinity):
    """Submit the command buffer recorded once for ``op`` with its resources as the binding table."""
    for inner in op.body.walk():
        if isinstance(inner, stream.CmdDispatchOp):
            ctx.executable_global(inner.entry_point()[0], device_name)
    constants, mapper = [], {}
    for inner in op.body.walk():
        for value in inner.operands:
            if isinstance(value.owner, arith.ConstantOp) and value not in mapper:
                clone = value.owner.clone()
                constants.append(clone)
                mapper[value] = clone.results[0]
    body = Region()
    op.body.clone_into(body, value_mapper=mapper)
    name = ctx.memoize(device_name, lambda ib, idev: _record_memoized(constants, body, ib, ctx, device_name, idev))
    cmd = b.global_load(name, CommandBufferType())
    wait = b.wait_fence(device, op.await_timepoint)
    signal = b.fence(device)
    zero = b.const_index(0)
    resources = list(op.resource_operands)
    b.named(DeviceQueueExecuteIndirectOp, {
        "device": device, "queue_affinity": affinity, "wait_fence": wait, "signal_fence": signal,
        "command_buffer": cmd, "binding_buffers": resources, "binding_offsets": [zero] * len(resources),
        "binding_lengths": list(op.resource_operand_sizes)}, properties={"flags": StringAttr("None")})
    op.result_timepoint.replace_all_uses_with(signal)
    op.detach()
    op.erase(safe_erase=False)


def _record_memoized(constants, body, b, ctx, device_name, device):
    """Record the commands of ``body`` (a detached copy of an execute region using the cloned
    ``constants``) before ``b``'s anchor, the initializer, into a reusable command buffer whose
    slot ``k`` is the region's ``k``-th resource; returns it."""
    for const in constants:
        b.add(const)
    block = body.blocks[0]
    cmd = b.value(CommandBufferCreateOp.build(
        operands=[device, b.const_i64(-1), [b.const_index(len(block.args))]], result_types=[CommandBufferType()],
        properties={"modes": StringAttr("None"), "command_categories": StringAttr("Transfer|Dispatch")}))
    for k, arg in enumerate(block.args):
        arg.replace_all_uses_with(b.const_index(k))
    _record_serial(list(block.ops), b, cmd, ctx, device_name, device)
    b.add(CommandBufferFinalizeOp.build(operands=[cmd]))
    for inner in reversed(list(block.ops)):
        inner.detach()
        inner.erase(safe_erase=False)
    return cmd


def _barrier(b, cmd):
    b.add(CommandBufferExecutionBarrierOp.build(operands=[cmd], properties={
        "source_stage_mask": StringAttr("CommandIssue|Dispatch|Transfer"),
        "target_stage_mask": StringAttr("CommandProcess|Dispatch|Transfer"),
        "flags": StringAttr("None")}))


def _record_serial(ops, b, cmd, ctx, device_name, device):
    first = True
    for op in ops:
        if isinstance(op, _NOOPS):
            continue
        if not first:
            _barrier(b, cmd)
        first = False
        if isinstance(op, stream.CmdConcurrentOp):
            for inner in op.body.blocks[0].ops:
                _record(inner, b, cmd, ctx, device_name, device)
        elif isinstance(op, stream.CmdSerialOp):
            _record_serial(list(op.body.blocks[0].ops), b, cmd, ctx, device_name, device)
        else:
            _record(op, b, cmd, ctx, device_name, device)


def _record(op, b, cmd, ctx, device_name, device):
    recorder = _RECORDERS.get(op)
    if recorder is None:
        raise error_at_op(op, f"'{op.name}' inside stream.cmd.execute cannot be converted to HAL "
                              "commands; expected stream.cmd.dispatch/copy/fill/collective/serial/concurrent")
    recorder(op, b, cmd, ctx, device_name, device)


def _record_nothing(op, b, cmd, ctx, device_name, device):
    """flush/invalidate/discard: no command (rt's local devices have host-coherent memory)."""


def _record_copy(op, b, cmd, ctx, device_name, device):
    b.add(CommandBufferCopyBufferOp.build(operands=[cmd, op.source, [op.source_offset], op.target,
                                                    [op.target_offset], op.length],
                                          properties={"flags": StringAttr("None")}))


def _record_fill(op, b, cmd, ctx, device_name, device):
    pattern = op.value
    if isinstance(pattern.type, (Float16Type, Float32Type)):
        pattern = b.value(arith.BitcastOp(pattern, IntegerType(pattern.type.bitwidth)))
    elif not isinstance(pattern.type, IntegerType) or pattern.type.width.data > 32:
        raise error_at_op(op, f"stream.cmd.fill with a {pattern.type} pattern; expected i8, i16, i32, f16 "
                              "or f32")
    b.add(CommandBufferFillBufferOp.build(operands=[cmd, op.target, [op.target_offset, op.target_length],
                                                    pattern], properties={"flags": StringAttr("None")}))


def _record_collective(op, b, cmd, ctx, device_name, device):
    record_collective(op, b, cmd)


def _record_nested(op, b, cmd, ctx, device_name, device):
    _record_serial(list(op.body.blocks[0].ops), b, cmd, ctx, device_name, device)


def _push_constant(b, value, op):
    t = value.type
    if t == i32:
        return value
    if isinstance(t, IndexType):
        return b.value(arith.IndexCastOp(value, i32))
    if isinstance(t, Float32Type):
        return b.value(arith.BitcastOp(value, i32))
    if isinstance(t, Float16Type):
        value, t = b.value(arith.BitcastOp(value, IntegerType(16))), IntegerType(16)
    if isinstance(t, IntegerType) and t.width.data < 32:
        return b.value(arith.ExtUIOp(value, i32))
    raise error_at_op(op, f"stream.cmd.dispatch operand of type {t} is not a 32-bit push constant; "
                          "run iree-stream-pack-dispatch-operands")


def _dispatch(op, b, cmd, ctx, device_name, device):
    exe_name, export_name = op.entry_point()
    variant, export = ctx.export_for(op, exe_name, export_name, device_name)
    exe = b.global_load(ctx.executable_global(exe_name, device_name), ExecutableType())
    constants = [_push_constant(b, v, op) for v in op.uniform_operands]
    counts = _workgroup_count(b, export, device, constants, list(op.workload), op)
    ordinal = b.const_index(export.ordinal.value.data if export.ordinal is not None else 0)
    b.add(CommandBufferDispatchOp.build(
        operands=[cmd, exe, ordinal, counts, constants, list(op.resources), list(op.resource_offsets),
                  list(op.resource_lengths)], properties={"flags": StringAttr("None")})
          ).location = op.location  # the dispatch's own op, named when it fails (issue 13)


def _workgroup_count(b, export, device, constants, workload, op):
    """Clone the export's count region before the anchor; returns (x, y, z)."""
    region = export.workgroup_count
    if not region.blocks:
        one = b.const_index(1)
        return [one, one, one]
    block = region.blocks[0]
    args = block.args[1:]
    inputs = constants if all(a.type == i32 for a in args) else workload
    if len(inputs) != len(args):
        raise error_at_op(op, f"dispatch of @{export.sym_name.data} passes {len(inputs)} values but the "
                              f"export's workgroup count takes {len(args)}")
    mapping = {block.args[0]: device, **dict(zip(args, inputs))}
    result = None
    for inner in block.ops:
        if isinstance(inner, hal.ReturnOp):
            result = [mapping.get(v, v) for v in inner.operands]
            break
        clone = inner.clone(value_mapper=dict(mapping))
        b.add(clone)
        for old, new in zip(inner.results, clone.results):
            mapping[old] = new
    if result is None or len(result) != 3:
        raise error_at_op(op, f"the workgroup count region of @{export.sym_name.data} must end in "
                              "hal.return %x, %y, %z")
    return result


#: the recorder of each command op of a stream.cmd.execute body
_RECORDERS = OpTable({
    **{noop: _record_nothing for noop in _NOOPS},
    stream.CmdDispatchOp: _dispatch,
    stream.CmdCopyOp: _record_copy,
    stream.CmdFillOp: _record_fill,
    CmdCollectiveOp: _record_collective,
    stream.CmdConcurrentOp: _record_nested,
    stream.CmdSerialOp: _record_nested,
})
