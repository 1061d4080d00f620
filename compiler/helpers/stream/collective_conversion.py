"""flow channels and collectives -> stream (part of ``iree-stream-convert-to-stream``).

``retype_channels(module)`` first gives every ``!flow.channel`` (globals, arguments, results,
function types) the type ``!stream.channel``; ``HANDLERS`` then convert, in program order:

* ``flow.channel.default ("g")?`` -> ``stream.channel.create on(#aff) group("g")?``
* ``flow.channel.split / rank / count`` -> ``stream.channel.split / rank / count``
* ``flow.collective.<kind>`` -> ``stream.async.collective<kind (with r)? : t>[%count] on(#aff)
  channel(%ch) %source[..], %target[..]`` whose result is the target resource written in place;
  ``%count`` is IREE's element count (all_gather: one rank's contribution; reduce_scatter:
  one rank's block; the others: the whole buffer); send_recv packs its ranks as
  ``(recv << 16) | (send & 0xffff)`` (i32).

Source followed: IREE ``Stream/Conversion/FlowToStream/Patterns.cpp`` (ConvertChannel*Op,
ConvertAllReduceOp, ConvertAllGatherOp, ConvertAllToAllOp, ConvertReduceScatterOp,
ConvertCollectiveSendRecvOp).
"""
import math

from xdsl.dialects import arith
from xdsl.dialects.builtin import FunctionType, IntegerAttr, i32

from rt.compiler.dialects import flow_collective as fc
from rt.compiler.dialects import stream_collective as sc
from rt.compiler.dialects.stream_types import ChannelType
from rt.compiler.dialects.util import GlobalOp
from rt.compiler.frontend import error_at_op
from rt.compiler.op_handlers import OpTable
from rt.compiler.helpers.stream.resources import INDEX

_KIND_OF = OpTable({fc.CollectiveAllReduceOp: "all_reduce", fc.CollectiveAllGatherOp: "all_gather",
                    fc.CollectiveAllToAllOp: "all_to_all", fc.CollectiveReduceScatterOp: "reduce_scatter",
                    fc.CollectiveSendRecvOp: "send_recv"})


def retype_channels(module):
    """``!flow.channel`` -> ``!stream.channel`` on every value, global and function type."""
    old, new = fc.ChannelType(), ChannelType()
    for op in module.walk():
        if isinstance(op, GlobalOp) and op.type == old:
            op.properties["type"] = new
        for value in op.results:
            if value.type == old:
                value._type = new
        for region in op.regions:
            for block in region.blocks:
                for arg in block.args:
                    if arg.type == old:
                        arg._type = new
        ftype = op.properties.get("function_type")
        if isinstance(ftype, FunctionType) and old in (*ftype.inputs.data, *ftype.outputs.data):
            op.properties["function_type"] = FunctionType.from_lists(
                [new if t == old else t for t in ftype.inputs.data],
                [new if t == old else t for t in ftype.outputs.data])


def _replace(conv, op, new):
    conv._before(op, new)
    op.results[0].replace_all_uses_with(new.results[0])
    conv.dead.append(op)


def _channel_default(conv, op):
    aff = conv._affinity(op)
    props = {}
    if op.group is not None:
        props["group"] = op.group
    if aff is not None:
        props["affinity"] = aff
    _replace(conv, op, sc.ChannelCreateOp.build(result_types=[ChannelType()], properties=props))


def _channel_split(conv, op):
    _replace(conv, op, sc.ChannelSplitOp.build(operands=[op.channel, op.color, op.key],
                                               result_types=[ChannelType()]))


def _channel_query(cls):
    def convert(conv, op):
        _replace(conv, op, cls.build(operands=[op.channel], result_types=[INDEX]))
    return convert


def _index(conv, op, value):
    return conv._before(op, arith.ConstantOp(IntegerAttr(value, INDEX))).result


def _numel(type_, op):
    shape = type_.get_shape()
    if any(d < 0 for d in shape):
        raise error_at_op(op, f"'{op.name}': collectives on dynamic shapes ({type_}) are not supported")
    return math.prod(shape)


def _collective(conv, op):
    kind = _KIND_OF[op]
    source, target = conv.lookup(op, op.source), conv.lookup(op, op.target)
    aff = conv._affinity(op, [op.source, op.target])
    counted = op.source.type if kind in ("all_gather", "all_to_all", "send_recv") else op.target.type
    count = _index(conv, op, _numel(counted, op))
    reduction = op.reduction_op.data if op.REDUCES else None
    props = sc.collective_props(kind, reduction, op.element_type.data)
    if aff is not None:
        props["affinity"] = aff
    param = []
    if kind == "send_recv":
        send = conv._before(op, arith.IndexCastOp(op.send, i32)).result
        recv = conv._before(op, arith.IndexCastOp(op.recv, i32)).result
        low = conv._before(op, arith.AndIOp(send, conv._before(op, arith.ConstantOp(
            IntegerAttr(0xFFFF, i32))).result)).result
        high = conv._before(op, arith.ShLIOp(recv, conv._before(op, arith.ConstantOp(
            IntegerAttr(16, i32))).result)).result
        param = [conv._before(op, arith.OrIOp(high, low)).result]
    zero = _index(conv, op, 0)
    new = conv._before(op, sc.AsyncCollectiveOp.build(
        operands=[target.resource, target.size, zero, target.size, target.size,
                  source.resource, source.size, zero, source.size, source.size,
                  count, op.channel, param],
        result_types=[target.resource.type], properties=props))
    conv.bind(op.result, new.result, target.size, target.dims, aff)
    conv.dead.append(op)


#: The conversion of each flow channel/collective op class, called as ``fn(converter, op)``.
HANDLERS = OpTable({
    fc.ChannelDefaultOp: _channel_default,
    fc.ChannelSplitOp: _channel_split,
    fc.ChannelRankOp: _channel_query(sc.ChannelRankOp),
    fc.ChannelCountOp: _channel_query(sc.ChannelCountOp),
    **{cls: _collective for cls in _KIND_OF},
})
