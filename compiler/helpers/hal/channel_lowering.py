"""Stream channels and collective commands -> HAL (part of ``iree-hal-convert-to-hal``).

::

    %ch = stream.channel.create on(#hal.device.affinity<@dev>) group("g") : !stream.channel
    %r = stream.channel.rank %ch : index
    stream.cmd.collective<all_reduce with sum : f32>[%n] channel(%ch) {
      ro %a[%o0 for %l0] : !stream.resource<external>{%s0}, wo %b[%o1 for %l1] : ...{%s1} }
    // ->
    %dev = util.global.load @dev : !hal.device
    %ch = hal.channel.create device(%dev : !hal.device) affinity(%c-1_i64) flags(None) group("g")
            rank(%c-1_i32) count(%c-1_i32) : !hal.channel
    %rank, %count = hal.channel.rank_and_count<%ch : !hal.channel> : i32, i32
    %r = arith.index_cast %rank : i32 to index
    hal.command_buffer.collective<%cmd : !hal.command_buffer> channel(%ch : !hal.channel)
        op(<all_reduce with sum : f32>) send(%a : !hal.buffer)[%o0, %l0] recv(%b : !hal.buffer)[%o1, %l1]
        count(%n) flags(None)

Rank and count -1 ask the runtime's channel provider (a ``LocalWorld`` rank in one process, an
MPI communicator across processes): the same module runs either way.

Source followed: IREE ``Dialect/HAL/Conversion/StreamToHAL/Patterns.cpp`` (ChannelCreateOpPattern,
ChannelSplitOpPattern, ChannelRankOpPattern, ChannelCountOpPattern, CmdCollectiveOpPattern).
"""
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, StringAttr, i32

from rt.compiler.dialects.hal_channel import (ChannelCreateOp, ChannelRankAndCountOp, ChannelSplitOp,
                                              ChannelType, CommandBufferCollectiveOp)
from rt.compiler.dialects import stream_collective
from rt.compiler.frontend.diagnostics import error_at_op
from rt.compiler.op_handlers import OpTable
from rt.compiler.helpers.hal.builder import Inserter

INDEX = IndexType()


def _replace(op, value):
    op.results[0].replace_all_uses_with(value)
    op.detach()
    op.erase(safe_erase=False)


def channel_create(op, ctx):
    b = Inserter(op)
    device = ctx.load_device(b, ctx.device_of(op))
    props = {"flags": StringAttr("None")}
    if op.group is not None:
        props["group"] = op.group
    minus_one = b.const_i32(-1)
    channel = b.value(ChannelCreateOp.build(operands=[device, b.const_i64(-1), minus_one, minus_one],
                                            result_types=[ChannelType()], properties=props))
    _replace(op, channel)


def channel_split(op, ctx):
    b = Inserter(op)
    color = b.value(arith.IndexCastOp(op.color, i32))
    key = b.value(arith.IndexCastOp(op.key, i32))
    _replace(op, b.value(ChannelSplitOp.build(operands=[op.channel, color, key], result_types=[ChannelType()],
                                              properties={"flags": StringAttr("None")})))


def _channel_query(index):
    def lower(op, ctx):
        b = Inserter(op)
        query = b.add(ChannelRankAndCountOp.build(operands=[op.channel], result_types=[i32, i32]))
        _replace(op, b.value(arith.IndexCastOp(query.results[index], INDEX)))
    return lower


LOWERINGS = OpTable({
    stream_collective.ChannelCreateOp: channel_create,
    stream_collective.ChannelSplitOp: channel_split,
    stream_collective.ChannelRankOp: _channel_query(0),
    stream_collective.ChannelCountOp: _channel_query(1),
})


def record_collective(op, b, cmd):
    """``stream.cmd.collective`` -> ``hal.command_buffer.collective`` on ``cmd``."""
    accesses = op.accesses()
    send = recv = None
    for access, resource, offset, length in zip(accesses, op.resources, op.resource_offsets, op.resource_lengths):
        if access == "ro" and send is None:
            send = (resource, offset, length)
        elif access in ("wo", "rw") and recv is None:
            recv = (resource, offset, length)
        else:
            raise error_at_op(op, f"'{op.name}' binds {accesses}; expected one ro send and one wo recv range")
    props = {"collective_kind": op.collective_kind, "element_type": op.element_type,
             "flags": StringAttr("None")}
    if op.reduction is not None:
        props["reduction"] = op.reduction
    b.add(CommandBufferCollectiveOp.build(
        operands=[cmd, op.channel, [op.param] if op.param is not None else [],
                  [send[0]] if send else [], list(send[1:]) if send else [],
                  [recv[0]] if recv else [], list(recv[1:]) if recv else [], op.element_count],
        properties=props))
