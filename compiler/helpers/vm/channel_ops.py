"""Lowering of HAL channels and collective commands to ``hal`` module imports.

``hal.channel.create`` -> ``channel.create(device, affinity, flags, id, group, rank, count)``
(``id`` null, ``group`` a rodata string or null), ``hal.channel.split`` -> ``channel.split``,
``hal.channel.rank_and_count`` -> ``channel.rank_and_count``, ``hal.command_buffer.collective``
-> ``command_buffer.collective`` with the op packed as ``iree_hal_collective_op_t`` (kind,
reduction, element type bytes; rt.runtime.hal.collective) and binding-table slots 0.

Source followed: IREE ``Dialect/HAL/Conversion/HALToVM/ConvertChannelOps.cpp`` and
``ConvertCommandBufferOps.cpp`` (CommandBufferCollectiveOpConversion).
"""
from rt.compiler.dialects.flow_collective import ELEMENT_TYPES
from rt.compiler.dialects.hal_channel import (ChannelCreateOp, ChannelRankAndCountOp, ChannelSplitOp,
                                              CommandBufferCollectiveOp)
from rt.compiler.dialects.stream_collective import KINDS
from rt.compiler.op_handlers import OpTable
from rt.compiler.helpers.vm.import_ops import _call, _i32, _i64

#: ``iree_hal_collective_reduction_e`` (0 = none).
REDUCTIONS = ("none", "sum", "product", "minimum", "maximum", "average")


def pack_collective(op):
    """The uint32 ``iree_hal_collective_op_t`` of an op with the three collective properties."""
    reduction = op.reduction.data if op.reduction is not None else "none"
    return (KINDS.index(op.collective_kind.data) | REDUCTIONS.index(reduction) << 8
            | ELEMENT_TYPES.index(op.element_type.data) << 16)


def _channel_create(e, op):
    group = e.null_ref()
    if op.group is not None:
        group = e.scratch("ref")
        e.fb.const_ref_rodata(group, e.module.string_rodata(op.group.data))
    _call(e, op, "channel.create", [e.get(op.device, op), _i64(e, op.queue_affinity, op), e.const("i64", 0),
                                    e.null_ref(), group, _i32(e, op.rank, op), _i32(e, op.count, op)])


def _channel_split(e, op):
    _call(e, op, "channel.split", [e.get(op.channel, op), _i32(e, op.color, op), _i32(e, op.key, op),
                                   e.const("i64", 0)])


def _collective(e, op):
    zero32, zero64 = e.const("i32", 0), e.const("i64", 0)
    ranges = []
    for buffer, span in ((op.send_buffer, op.send_range), (op.recv_buffer, op.recv_range)):
        if buffer is None:
            ranges.append((e.null_ref(), zero64, zero64))
        else:
            ranges.append((e.get(buffer, op), _i64(e, span[0], op), _i64(e, span[1], op)))
    packed = pack_collective(op)
    param = _i32(e, op.param, op) if op.param is not None else zero32
    (send, send_offset, send_length), (recv, recv_offset, recv_length) = ranges
    _call(e, op, "command_buffer.collective", [
        e.get(op.command_buffer, op), e.get(op.channel, op), e.const("i32", packed - (1 << 32) if packed >= 1 << 31
                                                                     else packed),
        param, zero32, zero32, send, recv, send_offset, send_length, recv_offset, recv_length,
        _i64(e, op.element_count, op)], results=[])


#: The lowering of each op class, called as ``fn(emitter, op)``.
LOWERINGS = OpTable({
    ChannelCreateOp: _channel_create,
    ChannelSplitOp: _channel_split,
    ChannelRankAndCountOp: lambda e, op: _call(e, op, "channel.rank_and_count", [e.get(op.channel, op)]),
    CommandBufferCollectiveOp: _collective,
})
