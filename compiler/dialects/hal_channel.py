"""HAL channels and the collective command.

Printed forms (IREE's, with the group as a string property instead of a ``!util.buffer``)::

    %ch = hal.channel.create device(%dev : !hal.device) affinity(%aff) flags("None")
            group("g") rank(%rank) count(%count) : !hal.channel
    %sub = hal.channel.split<%ch : !hal.channel> color(%color) key(%key) flags("None") : !hal.channel
    %rank, %count = hal.channel.rank_and_count<%ch : !hal.channel> : i32, i32
    hal.command_buffer.collective<%cmd : !hal.command_buffer> channel(%ch : !hal.channel)
        op(<all_reduce with sum : f32>) param(%p : i32)? send(%b : !hal.buffer)[%off, %len]
        recv(%b : !hal.buffer)[%off, %len] count(%n) flags("None")

``rank``/``count`` -1 ask the runtime's channel provider (IREE's RANK_DEFAULT/COUNT_DEFAULT).
At run time these are the ``hal`` module's ``channel.create``, ``channel.split``,
``channel.rank_and_count`` and ``command_buffer.collective`` imports (rt.runtime.hal.module).

Source followed: IREE ``Dialect/HAL/IR/HALOps.td`` (HAL_ChannelCreateOp, HAL_ChannelSplitOp,
HAL_ChannelRankAndCountOp, HAL_CommandBufferCollectiveOp).
"""
from typing import ClassVar

from xdsl.dialects.builtin import IndexType, StringAttr, i32, i64
from xdsl.irdl import AttrSizedOperandSegments, irdl_op_definition, operand_def, opt_operand_def, opt_prop_def, \
    prop_def, result_def, var_operand_def

from rt.compiler.dialects._format import AttrDict, Enum, FormattedOp, Operand, Operands, OpFormat, Opt, Str, Type
from rt.compiler.dialects._syntax import opaque_type
from rt.compiler.dialects.hal_types import BufferType, CommandBufferType, DeviceType, receiver
from rt.compiler.dialects.stream_collective import Collective

INDEX = IndexType()

ChannelType = opaque_type(__name__, "ChannelType", "hal.channel",
                          "``!hal.channel``: a collective communication channel (rt.runtime.hal.channel).")


@irdl_op_definition
class ChannelCreateOp(FormattedOp):
    """Creates a channel on ``device``; ``rank``/``count`` -1 take the provider's defaults."""

    name = "hal.channel.create"
    device = operand_def(DeviceType)
    queue_affinity = operand_def(i64)
    flags = opt_prop_def(StringAttr)
    group = opt_prop_def(StringAttr)
    rank = operand_def(i32)
    count = operand_def(i32)
    result = result_def(ChannelType)
    FORMAT: ClassVar = OpFormat(" device(", Operand("device"), " : ", Type("device"), ") affinity(",
                                Operand("queue_affinity"), ")", Opt(" flags(", Enum("flags"), ")"),
                                Opt(" group(", Str("group"), ")"), " rank(", Operand("rank"), ") count(",
                                Operand("count"), ") : ", Type("result"), AttrDict())


@irdl_op_definition
class ChannelSplitOp(FormattedOp):
    """Splits ``channel`` by ``color`` (-1: not a member, null result), ranked by ``key``."""

    name = "hal.channel.split"
    channel = operand_def(ChannelType)
    color = operand_def(i32)
    key = operand_def(i32)
    flags = opt_prop_def(StringAttr)
    result = result_def(ChannelType)
    FORMAT: ClassVar = OpFormat(*receiver("channel"), " color(", Operand("color"), ") key(", Operand("key"), ")",
                                Opt(" flags(", Enum("flags"), ")"), " : ", Type("result"), AttrDict())


@irdl_op_definition
class ChannelRankAndCountOp(FormattedOp):
    """This participant's rank and the participant count of ``channel``."""

    name = "hal.channel.rank_and_count"
    channel = operand_def(ChannelType)
    rank = result_def(i32)
    count = result_def(i32)
    FORMAT: ClassVar = OpFormat(*receiver("channel"), " : i32, i32", AttrDict())


@irdl_op_definition
class CommandBufferCollectiveOp(FormattedOp):
    """Records collective ``op`` on ``channel`` over ``element_count`` elements of the send and
    receive ranges (``iree_hal_command_buffer_collective``)."""

    name = "hal.command_buffer.collective"
    command_buffer = operand_def(CommandBufferType)
    channel = operand_def(ChannelType)
    collective_kind = prop_def(StringAttr)
    reduction = opt_prop_def(StringAttr)
    element_type = prop_def(StringAttr)
    param = opt_operand_def(i32)
    send_buffer = opt_operand_def(BufferType)
    send_range = var_operand_def(INDEX)
    recv_buffer = opt_operand_def(BufferType)
    recv_range = var_operand_def(INDEX)
    element_count = operand_def(INDEX)
    flags = opt_prop_def(StringAttr)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    FORMAT: ClassVar = OpFormat(*receiver("command_buffer"), " channel(", Operand("channel"), " : ",
                                Type("channel"), ") op(", Collective(), ")",
                                Opt(" param(", Operand("param"), " : i32)"),
                                Opt(" send(", Operand("send_buffer"), " : ", Type("send_buffer"), ")",
                                    Operands("send_range", "[]")),
                                Opt(" recv(", Operand("recv_buffer"), " : ", Type("recv_buffer"), ")",
                                    Operands("recv_range", "[]")),
                                " count(", Operand("element_count"), ")", Opt(" flags(", Enum("flags"), ")"),
                                AttrDict())


HAL_CHANNEL_OPS = [ChannelCreateOp, ChannelSplitOp, ChannelRankAndCountOp, CommandBufferCollectiveOp]
