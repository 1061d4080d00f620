"""Channels and collectives of the ``flow`` dialect (IREE's collective communication ops).

Printed forms (IREE's)::

    %ch = flow.channel.default : !flow.channel            (or flow.channel.default "group" : ...)
    %sub = flow.channel.split %ch, %color, %key : !flow.channel -> !flow.channel
    %r = flow.channel.rank %ch : index
    %n = flow.channel.count %ch : index
    %1 = flow.collective.all_reduce sum, f32, %target, %source, %ch
           : (tensor<4xf32>, tensor<4xf32>, !flow.channel) -> %target as tensor<4xf32>
    %2 = flow.collective.all_gather f32, %target, %source, %ch : (tensor<8xf32>, tensor<4xf32>, !flow.channel) -> %target as tensor<8xf32>
    %3 = flow.collective.all_to_all f32, %target, %source, %ch : (...) -> %target as tensor<...>
    %4 = flow.collective.reduce_scatter sum, f32, %target, %source, %ch : (...) -> %target as tensor<...>
    %5 = flow.collective.send_recv f32, %target, %source, %ch, %send, %recv
           : (tensor<4xf32>, tensor<4xf32>, !flow.channel, index, index) -> %target as tensor<4xf32>

Reductions: sum, product, minimum, maximum, average. Element types: si8, ui8, si16, ui16, si32,
ui32, si64, ui64, f16, f32, f64, bf16 (``iree_hal_collective_element_type_t``). The result is
written into ``target`` (tied). all_gather concatenates along dimension 0, reduce_scatter
keeps this rank's block of dimension 0, all_to_all exchanges the blocks of dimension 0;
send_recv sends ``source`` to rank ``send`` and receives into the result from rank ``recv``
(-1: nothing, zeros received).

Source followed: IREE ``Dialect/Flow/IR/FlowOps.td`` (OpGroupCollectiveCommunicationOps).
"""
from typing import ClassVar

from xdsl.dialects.builtin import IndexType, StringAttr, TensorType
from xdsl.irdl import AttrSizedOperandSegments, irdl_op_definition, operand_def, opt_prop_def, prop_def, \
    result_def, traits_def, var_operand_def
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from rt.compiler.dialects._format import AttrDict, Enum, FormattedOp, Operand, OpFormat, Opt, Str, Tied, Type
from rt.compiler.dialects._syntax import opaque_type

INDEX = IndexType()
REDUCTIONS = ("sum", "product", "minimum", "maximum", "average")
ELEMENT_TYPES = ("si8", "ui8", "si16", "ui16", "si32", "ui32", "si64", "ui64", "f16", "f32", "f64", "bf16")

ChannelType = opaque_type(__name__, "ChannelType", "flow.channel",
                          "``!flow.channel``: a collective communication channel (a rank in a group).")


@irdl_op_definition
class ChannelDefaultOp(FormattedOp):
    """``flow.channel.default ("group")? : !flow.channel``: the channel the runtime provides."""

    name = "flow.channel.default"
    group = opt_prop_def(StringAttr)
    result = result_def(ChannelType)
    traits = traits_def(Pure())
    FORMAT: ClassVar = OpFormat(Opt(" ", Str("group")), " : ", Type("result"), AttrDict())


@irdl_op_definition
class ChannelSplitOp(FormattedOp):
    """``flow.channel.split %ch, %color, %key : !flow.channel -> !flow.channel``."""

    name = "flow.channel.split"
    channel = operand_def(ChannelType)
    color = operand_def(INDEX)
    key = operand_def(INDEX)
    result = result_def(ChannelType)
    FORMAT: ClassVar = OpFormat(" ", Operand("channel"), ", ", Operand("color"), ", ", Operand("key"),
                                " : ", Type("channel"), " -> ", Type("result"), AttrDict())


class _ChannelQueryOp(FormattedOp):
    channel = operand_def(ChannelType)
    result = result_def(INDEX)
    traits = traits_def(Pure())
    FORMAT: ClassVar = OpFormat(" ", Operand("channel"), " : index", AttrDict())


@irdl_op_definition
class ChannelRankOp(_ChannelQueryOp):
    """``flow.channel.rank %ch : index``: this participant's rank in [0, count)."""

    name = "flow.channel.rank"


@irdl_op_definition
class ChannelCountOp(_ChannelQueryOp):
    """``flow.channel.count %ch : index``: the number of participants."""

    name = "flow.channel.count"


def _types(*extra):
    return (" : (", Type("target"), ", ", Type("source"), ", ", Type("channel"), *extra, ") -> ",
            Tied("target", "target_dims"), AttrDict())


class _CollectiveOp(FormattedOp):
    element_type = prop_def(StringAttr)
    target = operand_def(TensorType)
    target_dims = var_operand_def(INDEX)
    source = operand_def(TensorType)
    channel = operand_def(ChannelType)
    result = result_def(TensorType)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    REDUCES: ClassVar = False

    @property
    def kind(self):
        return self.name.rsplit(".", 1)[1]

    def verify_(self):
        if self.element_type.data not in ELEMENT_TYPES:
            raise VerifyException(f"{self.name}: element type {self.element_type.data!r} is not one of "
                                  f"{', '.join(ELEMENT_TYPES)}")
        if self.REDUCES and self.reduction_op.data not in REDUCTIONS:
            raise VerifyException(f"{self.name}: reduction {self.reduction_op.data!r} is not one of "
                                  f"{', '.join(REDUCTIONS)}")
        if self.result.type != self.target.type:
            raise VerifyException(f"{self.name}: result {self.result.type} must be the target's type "
                                  f"{self.target.type}")
        if self.source.type.element_type != self.target.type.element_type:
            raise VerifyException(f"{self.name}: source {self.source.type} and target {self.target.type} "
                                  "differ in element type")


_HEAD = (" ", Enum("element_type"), ", ", Operand("target"), ", ", Operand("source"), ", ", Operand("channel"))
_REDUCING_HEAD = (" ", Enum("reduction_op"), ",") + _HEAD


@irdl_op_definition
class CollectiveAllReduceOp(_CollectiveOp):
    """Reduces ``source`` over every rank; each gets the result in ``target``."""

    name = "flow.collective.all_reduce"
    reduction_op = prop_def(StringAttr)
    REDUCES: ClassVar = True
    FORMAT: ClassVar = OpFormat(*_REDUCING_HEAD, *_types())


@irdl_op_definition
class CollectiveAllGatherOp(_CollectiveOp):
    """Concatenates every rank's ``source`` along dimension 0 into ``target``."""

    name = "flow.collective.all_gather"
    FORMAT: ClassVar = OpFormat(*_HEAD, *_types())


@irdl_op_definition
class CollectiveAllToAllOp(_CollectiveOp):
    """Rank r sends block k of ``source`` (dimension 0) to rank k and receives block r."""

    name = "flow.collective.all_to_all"
    FORMAT: ClassVar = OpFormat(*_HEAD, *_types())


@irdl_op_definition
class CollectiveReduceScatterOp(_CollectiveOp):
    """Reduces ``source`` over every rank; rank r keeps block r (dimension 0) in ``target``."""

    name = "flow.collective.reduce_scatter"
    reduction_op = prop_def(StringAttr)
    REDUCES: ClassVar = True
    FORMAT: ClassVar = OpFormat(*_REDUCING_HEAD, *_types())


@irdl_op_definition
class CollectiveSendRecvOp(_CollectiveOp):
    """Sends ``source`` to rank ``send`` and receives ``target`` from rank ``recv`` (-1: none)."""

    name = "flow.collective.send_recv"
    send = operand_def(INDEX)
    recv = operand_def(INDEX)
    FORMAT: ClassVar = OpFormat(*_HEAD, ", ", Operand("send"), ", ", Operand("recv"), *_types(", index, index"))


FLOW_COLLECTIVE_OPS = [ChannelDefaultOp, ChannelSplitOp, ChannelRankOp, ChannelCountOp, CollectiveAllReduceOp,
                       CollectiveAllGatherOp, CollectiveAllToAllOp, CollectiveReduceScatterOp, CollectiveSendRecvOp]
