"""Stream resource, timepoint and tensor-boundary ops -> HAL ops (one function per op).

* ``stream.tensor.import %bv`` -> ``hal.buffer_view.buffer<%bv>``;
  ``stream.tensor.export %r : tensor<?x4xf32>{%d} in ..{%s}`` -> ``hal.buffer_view.create``
  with ``hal.element_type``/``hal.encoding_type<dense_row_major>`` and the shape; an encoded
  (packed) tensor's view also carries ``{rt.layout = "packed<...>"}``, its layout identifier
  (:mod:`layouts`), which the vm phase turns into a tag on the buffer.
* ``stream.resource.alloc`` -> ``hal.allocator.allocate`` on the device's allocator;
  ``alloca``/``dealloca`` -> ``hal.device.queue.alloca``/``dealloca`` with wait/signal fences
  (an await list of several timepoints waits on their ``hal.fence.join``);
  ``subview`` -> ``hal.buffer.subspan``; ``size`` -> ``hal.buffer.length``;
  ``map``/``try_map`` of a ``!util.buffer`` and ``constants`` -> ``hal.allocator.import`` of
  rodata (``util.buffer.constant``; rt's import copies and always succeeds);
  ``load``/``store`` (host reads and writes of one element, e.g. ``tensor.extract`` on the
  host after the resource was awaited) -> ``hal.buffer.load``/``hal.buffer.store``.
* ``stream.cmd.parameter.load`` -> ``io_parameters.load`` on the device, waiting on the await
  fence and signaling a new fence (constant results: ``SHARING_IMMUTABLE`` usage, so the
  runtime may map the file instead of copying).
* Timepoints are fences: ``immediate`` -> a created and signaled fence, ``join`` ->
  ``hal.fence.join``, ``await`` -> ``hal.fence.await`` (infinite timeout) then the resources.

Source followed: IREE ``Dialect/HAL/Conversion/StreamToHAL/Patterns.cpp``.
"""
from xdsl.dialects import arith
from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, StringAttr, i1, i32

from rt.compiler.dialects import stream
from rt.compiler.dialects.hal import ElementTypeOp, EncodingTypeOp
from rt.compiler.dialects.hal_ops import (AllocatorAllocateOp, AllocatorImportOp, BufferLengthOp, BufferViewBufferOp,
                                          BufferLoadOp, BufferStoreOp, BufferSubspanOp, BufferViewCreateOp,
                                          DeviceAllocatorOp,
                                          DeviceQueueAllocaOp, DeviceQueueDeallocaOp, FenceAwaitOp,
                                          FenceJoinOp)
from rt.compiler.dialects.hal_types import AllocatorType, BufferType, BufferViewType, FenceType
from rt.compiler.dialects.io_parameters import LoadOp
from rt.compiler.dialects.util import BufferConstantOp, BufferType as UtilBufferType, CompositeAttr
from rt.compiler.frontend.diagnostics import error_at_op
from rt.compiler.op_handlers import OpTable
from rt.compiler.helpers.hal.builder import Inserter
from rt.compiler.helpers.hal.layouts import LAYOUT_ATTR, layout_identifier


def _memory():
    from rt.runtime import hal

    return int(hal.MemoryType.DEVICE_LOCAL | hal.MemoryType.HOST_VISIBLE), int(hal.BufferUsage.DEFAULT)


def _replace(op, *values):
    for old, new in zip(op.results, values):
        old.replace_all_uses_with(new)
    op.detach()
    op.erase(safe_erase=False)


def _allocator(b, ctx, op):
    device = ctx.load_device(b, ctx.device_of(op))
    return b.value(DeviceAllocatorOp.build(operands=[device], result_types=[AllocatorType()]))


def _allocate(b, allocator, size):
    memory, usage = _memory()
    return b.value(AllocatorAllocateOp.build(operands=[allocator, b.const_i64(-1), b.const_i32(memory),
                                                       b.const_i32(usage), size], result_types=[BufferType()]))


def _import(b, allocator, source, offset, length):
    memory, usage = _memory()
    return b.value(AllocatorImportOp.build(operands=[allocator, source, [offset, length], b.const_i64(-1),
                                                     b.const_i32(memory), b.const_i32(usage)],
                                           result_types=[BufferType()]))


def tensor_import(op, ctx):
    b = Inserter(op)
    source = op.source
    if isinstance(source.type, BufferViewType):
        source = b.value(BufferViewBufferOp.build(operands=[source], result_types=[BufferType()]))
    _replace(op, source)


def tensor_export(op, ctx):
    if not isinstance(op.result.type, BufferViewType):
        _replace(op, op.source)
        return
    b = Inserter(op)
    tensor = op.source_encoding
    dims = iter(op.source_encoding_dims)
    shape = [next(dims) if d < 0 else b.const_index(d) for d in tensor.get_shape()]
    etype = b.value(ElementTypeOp.build(result_types=[i32], properties={"type": tensor.element_type}))
    encoding = b.value(EncodingTypeOp.build(result_types=[i32], properties={"encoding": StringAttr("dense_row_major")}))
    layout = layout_identifier(tensor)
    view = b.value(BufferViewCreateOp.build(operands=[op.source, [b.const_index(0), op.source_size], shape, etype,
                                                      encoding], result_types=[BufferViewType()],
                                            attributes={} if layout is None else {LAYOUT_ATTR: StringAttr(layout)}))
    _replace(op, view)


def resource_alloc(op, ctx):
    b = Inserter(op)
    _replace(op, _allocate(b, _allocator(b, ctx, op), op.storage_size))


def resource_alloca(op, ctx):
    b = Inserter(op)
    device = ctx.load_device(b, ctx.device_of(op))
    wait = b.wait_fence(device, op.await_timepoint)
    signal = b.fence(device)
    memory, usage = _memory()
    buffer = b.named(DeviceQueueAllocaOp, {
        "device": device, "queue_affinity": b.const_i64(-1), "wait_fence": wait, "signal_fence": signal,
        "pool": b.const_i64(0), "memory_types": b.const_i32(memory), "buffer_usage": b.const_i32(usage),
        "result_size": op.storage_size}, [BufferType()], {"flags": StringAttr("None")}).results[0]
    _replace(op, buffer, signal)


def resource_dealloca(op, ctx):
    b = Inserter(op)
    device = ctx.load_device(b, ctx.device_of(op))
    wait = b.wait_fence(device, op.await_timepoint)
    signal = b.fence(device)
    b.named(DeviceQueueDeallocaOp, {"device": device, "queue_affinity": b.const_i64(-1), "wait_fence": wait,
                                    "signal_fence": signal, "buffer": op.operand},
            properties={"flags": StringAttr("None")})
    _replace(op, signal)


def resource_subview(op, ctx):
    b = Inserter(op)
    _replace(op, b.value(BufferSubspanOp.build(operands=[op.source, [op.source_offset, op.result_size]],
                                               result_types=[BufferType()])))


def resource_size(op, ctx):
    b = Inserter(op)
    _replace(op, b.value(BufferLengthOp.build(operands=[op.operand], result_types=[op.result.type])))


def resource_load(op, ctx):
    b = Inserter(op)
    _replace(op, b.value(BufferLoadOp.build(operands=[op.source, op.source_offset], result_types=[op.result.type])))


def resource_store(op, ctx):
    b = Inserter(op)
    b.add(BufferStoreOp.build(operands=[op.value, op.target, op.target_offset]))
    _replace(op)


def resource_map(op, ctx):
    b = Inserter(op)
    buffer = _import(b, _allocator(b, ctx, op), op.source, op.source_offset, op.result_size)
    if isinstance(op, stream.ResourceTryMapOp):
        _replace(op, b.const(1, i1), buffer)
    else:
        _replace(op, buffer)


def resource_constants(op, ctx):
    b = Inserter(op)
    allocator = _allocator(b, ctx, op)
    buffers = []
    for value, size in zip(op.values.data, op.result_sizes):
        length = _static_index(size)
        content = value
        if length is not None:
            content = CompositeAttr(IntegerAttr(length, 64), ArrayAttr([value]))
        data = b.value(BufferConstantOp.build(result_types=[UtilBufferType()], properties={"value": content},
                                              attributes={"alignment": IntegerAttr(64, 64)}))
        buffers.append(_import(b, allocator, data, b.const_index(0), size))
    fence = b.immediate_fence(ctx.load_device(b, ctx.device_of(op)))
    _replace(op, *buffers, fence)


def _static_index(value):
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def cmd_parameter_load(op, ctx):
    b = Inserter(op)
    device = ctx.load_device(b, ctx.device_of(op))
    wait = b.wait_fence(device, op.await_timepoint)
    signal = b.fence(device)
    memory, usage = _memory()
    if all(r.type.lifetime.data == "constant" for r in op.results_):
        from rt.runtime import hal

        usage |= int(hal.BufferUsage.SHARING_IMMUTABLE)
    scope = [op.source_scope] if op.source_scope is not None else []
    load = b.add(LoadOp.build(operands=[device, b.const_i64(-1), wait, signal, scope, list(op.source_keys),
                                        list(op.source_offsets), b.const_i32(memory), b.const_i32(usage),
                                        list(op.result_sizes)],
                              result_types=[[BufferType()] * len(op.results_)]))
    _replace(op, *load.results_, signal)


def timepoint_immediate(op, ctx):
    b = Inserter(op)
    _replace(op, b.immediate_fence(ctx.load_device(b, ctx.device_of(op))))


def timepoint_join(op, ctx):
    b = Inserter(op)
    _replace(op, b.value(FenceJoinOp.build(operands=[list(op.await_timepoints)], result_types=[FenceType()],
                                           properties={"flags": StringAttr("None")})))


def timepoint_await(op, ctx):
    b = Inserter(op)
    b.add(FenceAwaitOp.build(operands=[[op.await_timepoint], b.const_i32(-1)], result_types=[i32],
                             properties={"flags": StringAttr("None")}))
    _replace(op, *op.resource_operands)


def timepoint_barrier(op, ctx):
    b = Inserter(op)
    fence = b.immediate_fence(ctx.load_device(b, ctx.device_of(op)))
    _replace(op, op.operands[0], fence)


LOWERINGS = OpTable({
    stream.TensorImportOp: tensor_import,
    stream.TensorExportOp: tensor_export,
    stream.ResourceAllocOp: resource_alloc,
    stream.ResourceAllocaOp: resource_alloca,
    stream.ResourceDeallocaOp: resource_dealloca,
    stream.ResourceSubviewOp: resource_subview,
    stream.ResourceSizeOp: resource_size,
    stream.ResourceLoadOp: resource_load,
    stream.ResourceStoreOp: resource_store,
    stream.ResourceMapOp: resource_map,
    stream.ResourceTryMapOp: resource_map,
    stream.ResourceConstantsOp: resource_constants,
    stream.CmdParameterLoadOp: cmd_parameter_load,
    stream.TimepointImmediateOp: timepoint_immediate,
    stream.TimepointJoinOp: timepoint_join,
    stream.TimepointAwaitOp: timepoint_await,
    stream.TimepointBarrierOp: timepoint_barrier,
})


def unsupported(op):
    return error_at_op(op, f"'{op.name}' cannot be converted to HAL; the hal conversion takes the "
                           "stream dialect after scheduling (stream.cmd.*, stream.resource.*, "
                           "stream.timepoint.*, stream.tensor.import/export)")
