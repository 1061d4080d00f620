"""``iree-stream-pack-constants``: ``stream.resource.constants`` -> one packed host buffer per lifetime.

Input: ``stream.resource.constants`` ops (schedule-allocation). Output: per op and lifetime
(``constant`` / ``variable``) one ``util.buffer.constant {alignment = 64 : index}`` holding a
``#util.composite`` of the values, each placed at a 64-byte aligned offset with zero padding
between them; each former result is a ``stream.resource.subview`` of the uploaded buffer.

* constants: ``stream.resource.try_map`` the buffer; if the device cannot use host memory
  directly, stage it (``stream.resource.map``), allocate and copy with a ``stream.cmd.execute``
  (an ``scf.if`` on the mapping flag);
* variables (mutable storage): always staged and copied, so writes never reach the rodata.

Values that are ``#stream.parameter.named`` are not packed: the parameters of each scope are
read by one ``stream.cmd.parameter.load`` (scope and keys as ``util.buffer.constant`` strings,
offset 0, the constants' sizes), whose results replace the constants' results.

The constants' timepoint becomes the (joined) timepoint of those uploads and loads.

Example (seed 000, the ``@_constant`` initializer)::

    %results, %result_timepoint = stream.resource.constants :
      !stream.resource<constant>{%c40} = dense<[0.0, ..., 0.09]> : tensor<10xf32>
      => !stream.timepoint
    // ->
    %buffer_cst = util.buffer.constant {alignment = 64 : index} : !util.buffer = #util.composite<64xi8, [dense<[...]> : tensor<10xf32>]>
    %did_map, %result = stream.resource.try_map %buffer_cst[%c0] : !util.buffer -> i1, !stream.resource<constant>{%c64}
    %0:2 = scf.if %did_map -> (!stream.resource<constant>, !stream.timepoint) {
      %4 = stream.timepoint.immediate => !stream.timepoint
      scf.yield %result, %4 : !stream.resource<constant>, !stream.timepoint
    } else {
      %4 = stream.resource.map %buffer_cst[%c0] : !util.buffer -> !stream.resource<staging>{%c64}
      %5 = stream.resource.alloc uninitialized : !stream.resource<constant>{%c64}
      %6 = stream.cmd.execute with(%4 as %arg0: !stream.resource<staging>{%c64}, %5 as %arg1: !stream.resource<constant>{%c64}) {
        stream.cmd.copy %arg0[%c0], %arg1[%c0], %c64 : !stream.resource<staging>{%c64} -> !stream.resource<constant>{%c64}
      } => !stream.timepoint
      scf.yield %5, %6 : !stream.resource<constant>, !stream.timepoint
    }
    %1 = stream.resource.subview %0#0[%c0] : !stream.resource<constant>{%c64} -> !stream.resource<constant>{%c40}

Errors: CompileError when a constant's size is not a constant index. Source followed: IREE
``Stream/Transforms/PackConstants.cpp``.
"""
import dataclasses

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    IntegerAttr,
    StringAttr,
    UnitAttr,
    VectorType,
    i1,
    i8,
    i64,
)
from xdsl.ir import Block, Region

from rt.compiler.dialects import stream, util
from rt.compiler.dialects.stream_types import ResourceType, TimepointType
from rt.compiler.frontend.diagnostics import error_at_op
from rt.compiler.passes.base import Pass
from rt.compiler.passes.stream.layout_slices import ALIGNMENT, align
from rt.compiler.helpers.stream.resources import host_callables, index_constant


@dataclasses.dataclass(frozen=True)
class PackConstantsPass(Pass):
    """stream.resource.constants -> util.buffer.constant + try_map/stage uploads + subviews."""

    name = "iree-stream-pack-constants"

    def run(self, module, ctx):
        for callable_op in host_callables(module):
            for op in list(callable_op.walk()):
                if isinstance(op, stream.ResourceConstantsOp):
                    _pack(op)


def _static(op, value):
    owner = getattr(value, "op", None)
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    raise error_at_op(op, "stream.resource.constants needs constant result sizes to pack its values; "
                          "got a size computed at run time")


def _insert(op, anchor):
    anchor.parent_block().insert_op_before(op, anchor)
    return op


def _pack(op):
    aff = op.affinity
    groups, scopes = {}, {}
    for k, result in enumerate(op.results_):
        value = op.values.data[k]
        if isinstance(value, stream.NamedParameterAttr):
            scopes.setdefault(value.scope.data, []).append(k)
        else:
            groups.setdefault(result.type.lifetime.data, []).append(k)
    timepoints = [_load_parameters(op, aff, scope, members) for scope, members in scopes.items()]
    for lifetime, members in groups.items():
        offsets, total, values = [], 0, []
        for k in members:
            size = _static(op, op.result_sizes[k])
            start = align(total, ALIGNMENT)
            if start > total:
                values.append(DenseIntOrFPElementsAttr.from_list(VectorType(i8, [start - total]), [0]))
            offsets.append(start)
            values.append(op.values.data[k])
            total = start + size
        total = align(total, ALIGNMENT)
        buffer = _insert(util.BufferConstantOp.build(
            result_types=[util.BufferType()], attributes={"alignment": IntegerAttr(ALIGNMENT, stream.INDEX)},
            properties={"value": util.CompositeAttr(IntegerAttr(total, 64), ArrayAttr(values))}), op).result
        zero = _insert(index_constant(0), op).result
        length = _insert(index_constant(total), op).result
        rtype = ResourceType(lifetime)
        if lifetime == "constant":
            storage, timepoint = _try_map(op, aff, buffer, zero, length, rtype)
        else:
            storage, timepoint = _stage(op, aff, buffer, zero, length, rtype, op)
        timepoints.append(timepoint)
        for k, offset in zip(members, offsets):
            view = _insert(stream.ResourceSubviewOp.build(
                operands=[storage, length, _insert(index_constant(offset), op).result, op.result_sizes[k]],
                result_types=[rtype]), op)
            op.results_[k].replace_all_uses_with(view.result)
    if len(timepoints) > 1:
        timepoints = [_insert(stream.TimepointJoinOp.build(operands=[timepoints], result_types=[TimepointType()]),
                              op).result]
    op.result_timepoint.replace_all_uses_with(timepoints[0])
    op.detach()
    op.erase()


def _load_parameters(op, aff, scope, members):
    """One ``stream.cmd.parameter.load`` for the parameters of ``scope`` among the results ``members``."""
    def string(text):
        return _insert(util.BufferConstantOp.build(result_types=[util.BufferType()],
                                                   properties={"value": StringAttr(text)}), op).result

    scope_buffer = [string(scope)] if scope else []
    keys = [string(op.values.data[k].key.data) for k in members]
    zero = _insert(arith.ConstantOp(IntegerAttr(0, i64)), op).result
    load = _insert(stream.CmdParameterLoadOp.build(
        operands=[scope_buffer, keys, [zero] * len(members), [op.result_sizes[k] for k in members], []],
        result_types=[[op.results_[k].type for k in members], TimepointType()], properties=_props(aff)), op)
    for k, result in zip(members, load.results_):
        op.results_[k].replace_all_uses_with(result)
    return load.result_timepoint


def _props(aff):
    return {"affinity": aff} if aff is not None else {}


def _try_map(op, aff, buffer, zero, length, rtype):
    mapped = _insert(stream.ResourceTryMapOp.build(operands=[buffer, zero, length], result_types=[i1, rtype],
                                                   properties=_props(aff)), op)
    then_block = Block()
    immediate = stream.TimepointImmediateOp.build(result_types=[TimepointType()])
    then_block.add_ops([immediate, scf.YieldOp(mapped.result, immediate.result)])
    else_block = Block()
    else_block.add_op(scf.YieldOp())
    storage, timepoint = _stage(op, aff, buffer, zero, length, rtype, else_block.last_op)
    else_block.last_op.operands = [storage, timepoint]
    branch = _insert(scf.IfOp(mapped.did_map, [rtype, TimepointType()], Region(then_block), Region(else_block)), op)
    return branch.results[0], branch.results[1]


def _stage(op, aff, buffer, zero, length, rtype, anchor):
    """Map ``buffer`` as staging, allocate ``rtype`` storage and copy into it (ops before ``anchor``)."""
    staging = _insert(stream.ResourceMapOp.build(operands=[buffer, zero, length],
                                                 result_types=[ResourceType("staging")]), anchor)
    alloc = _insert(stream.ResourceAllocOp.build(operands=[length], result_types=[rtype],
                                                 properties=_props(aff) | {"uninitialized": UnitAttr()}), anchor)
    body = Block(arg_types=[ResourceType("staging"), rtype])
    source, target = body.args
    body.add_op(stream.CmdCopyOp.build(operands=[source, length, zero, target, length, zero, length]))
    execute = _insert(stream.CmdExecuteOp.build(operands=[[staging.result, alloc.result], [length, length], []],
                                                result_types=[TimepointType()], properties=_props(aff),
                                                regions=[Region(body)]), anchor)
    return alloc.result, execute.result_timepoint
