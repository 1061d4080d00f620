"""Lowering of hal, check and util module-level ops to VM imports, globals and rodata.

hal ops become ``call.import``/``call.variadic`` of the ``hal`` module with the names and
cconvs of rt.runtime.hal.module's table (IREE's hal.imports.mlir); check ops call the
``check`` module (docs/compiled_module_abi.md); ``util.global.load/store`` use VM globals;
``util.buffer.constant`` and assert messages become rodata; ``util.null`` a null ref;
``io_parameters.load`` calls the ``io_parameters`` module (rt.runtime.io.parameters_module)
with IREE's key table and span buffers as rodata. ``hal.buffer.load/store`` of
8-byte values (i64, index, f64) are two 4-byte accesses of the hal module's
``buffer.load/store`` (which take 1, 2 or 4 bytes); f16 goes through its bits (see
:mod:`half`). Enum clauses (command buffer modes
and categories, barrier stage masks) are IREE's bit values. A ``hal.buffer_view.create``
carrying ``{rt.layout = "..."}`` (an exported packed tensor) also tags its buffer with that
layout through rt's ``hal.buffer.set_encoding``.

Source followed: IREE ``Dialect/HAL/Conversion/HALToVM``, ``Modules/Check/Conversion``,
``Dialect/Util/Conversion/UtilToVM``.
"""
import struct

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    StringAttr,
)

from rt.compiler.dialects import check, hal, hal_ops, io_parameters, util
from rt.compiler.dialects.hal_types import BufferViewType
from rt.compiler.frontend.diagnostics import error_at_op
from rt.compiler.op_handlers import OpTable
from rt.compiler.helpers.vm import half
from rt.compiler.helpers.vm.element_types import element_type_code

_MODES = {"None": 0, "OneShot": 1, "AllowInlineExecution": 16}
_CATEGORIES = {"None": 0, "Transfer": 1, "Dispatch": 2}
_STAGES = {"None": 0, "CommandIssue": 1, "CommandProcess": 2, "Dispatch": 4, "Transfer": 8,
           "CommandRetire": 16, "Host": 32}
_ENCODINGS = {"opaque": 0, "dense_row_major": 1}


def _bits(op, prop, table, default=0):
    attr = op.properties.get(prop)
    if attr is None:
        return default
    value = 0
    for word in attr.data.split("|"):
        word = word.strip()
        if word not in table:
            raise error_at_op(op, f"'{op.name}': unknown {prop} '{word}'; expected one of {', '.join(table)}")
        value |= table[word]
    return value


def _call(e, op, name, args, results=None, spans=None):
    imp = e.module.hal_import(name)
    regs = [e.define(r, op) for r in op.results] if results is None else results
    if spans is None:
        e.fb.call_import(imp, args, regs)
    else:
        e.fb.call_variadic(imp, spans, args, regs)


def _i64(e, value, op):
    return e.get_as(value, "i64", op)


def _i32(e, value, op):
    return e.get_as(value, "i32", op)


def _simple(name):
    def lower(e, op):
        _call(e, op, name, [e.get(v, op) for v in op.operands])
    return lower


def _devices_get(e, op):
    _call(e, op, "devices.get", [_i32(e, op.index, op)])


def _allocate(e, op):
    _call(e, op, "allocator.allocate", [e.get(op.allocator, op), _i64(e, op.queue_affinity, op),
                                        _i32(e, op.memory_types, op), _i32(e, op.buffer_usage, op),
                                        _i64(e, op.result_size, op)])


def _import(e, op):
    offset, length = op.source_range
    _call(e, op, "allocator.import", [e.get(op.allocator, op), e.const("i32", 1), _i64(e, op.queue_affinity, op),
                                      _i32(e, op.memory_types, op), _i32(e, op.buffer_usage, op),
                                      e.get(op.source, op), _i64(e, offset, op), _i64(e, length, op)])


def _subspan(e, op):
    offset, length = op.source_range
    _call(e, op, "buffer.subspan", [e.get(op.source_buffer, op), _i64(e, offset, op), _i64(e, length, op)])


def _element_bytes(op, type_):
    if isinstance(type_, IntegerType):
        width = type_.width.data
        if width in (1, 8, 16, 32, 64):
            return max(1, width // 8)
    elif isinstance(type_, IndexType):
        return 8
    elif isinstance(type_, (Float16Type, BFloat16Type, Float32Type, Float64Type)):
        return type_.bitwidth // 8
    raise error_at_op(op, f"'{op.name}' of {type_}: host element access takes i1, i8, i16, i32, i64, "
                          "index, f16, bf16, f32 or f64")


def _load_word(e, op, buffer, offset, length, out=None):
    out = out or e.scratch("i32")
    e.fb.call_import(e.module.hal_import("buffer.load"), [buffer, offset, e.const("i32", length)], [out])
    return out


def _store_word(e, value, buffer, offset, length):
    e.fb.call_import(e.module.hal_import("buffer.store"), [value, buffer, offset, e.const("i32", length)], [])


def _buffer_load(e, op):
    """``hal.buffer.load``: the hal module reads 1, 2 or 4 bytes; 8-byte values take two reads."""
    type_ = op.result.type
    size = _element_bytes(op, type_)
    buffer, offset = e.get(op.source_buffer, op), _i64(e, op.source_offset, op)
    dst = e.define(op.result, op)
    if size == 8:
        low, high = e.scratch("i64"), e.scratch("i64")
        high_offset = e.scratch("i64")
        e.fb.add_i64(high_offset, offset, e.const("i64", 4))
        e.fb.ext_i32_i64_u(low, _load_word(e, op, buffer, offset, 4))
        e.fb.ext_i32_i64_u(high, _load_word(e, op, buffer, high_offset, 4))
        e.fb.shl_i64(high, high, e.const("i64", 32))
        bits = dst if dst.type == "i64" else e.scratch("i64")
        e.fb.or_i64(bits, high, low)
        if dst.type == "f64":
            e.fb.bitcast_i64_f64(dst, bits)
    elif half.is_narrow(type_):
        half.from_bits(e, dst, _load_word(e, op, buffer, offset, 2), type_)
    elif dst.type == "f32":
        e.fb.bitcast_i32_f32(dst, _load_word(e, op, buffer, offset, 4))
    else:
        _load_word(e, op, buffer, offset, size, dst)


def _buffer_store(e, op):
    """``hal.buffer.store``: 8-byte values are written as two 4-byte halves (little-endian)."""
    type_ = op.value.type
    size = _element_bytes(op, type_)
    buffer, offset = e.get(op.target_buffer, op), _i64(e, op.target_offset, op)
    value = e.get(op.value, op)
    if size == 8:
        bits = value
        if value.type == "f64":
            bits = e.scratch("i64")
            e.fb.bitcast_f64_i64(bits, value)
        low, high, high_offset = e.scratch("i32"), e.scratch("i32"), e.scratch("i64")
        shifted = e.scratch("i64")
        e.fb.trunc_i64_i32(low, bits)
        e.fb.shr_i64_u(shifted, bits, e.const("i64", 32))
        e.fb.trunc_i64_i32(high, shifted)
        e.fb.add_i64(high_offset, offset, e.const("i64", 4))
        _store_word(e, low, buffer, offset, 4)
        _store_word(e, high, buffer, high_offset, 4)
        return
    if half.is_narrow(type_):
        bits = e.scratch("i32")
        half.to_bits(e, bits, value, type_)
        value = bits
    elif value.type == "f32":
        bits = e.scratch("i32")
        e.fb.bitcast_f32_i32(bits, value)
        value = bits
    _store_word(e, value, buffer, offset, size)


def _view_create(e, op):
    offset, length = op.source_range
    shape = [_i64(e, d, op) for d in op.shape]
    buffer = e.get(op.source_buffer, op)
    layout = op.attributes.get("rt.layout")
    if layout is not None:
        text = e.scratch("ref")
        e.fb.const_ref_rodata(text, e.module.string_rodata(layout.data))
        _call(e, op, "buffer.set_encoding", [buffer, text], results=[])
    _call(e, op, "buffer_view.create", [buffer, _i64(e, offset, op), _i64(e, length, op),
                                        _i32(e, op.element_type, op), _i32(e, op.encoding_type, op)] + shape,
          spans=[len(shape)])


def _view_assert(e, op):
    shape = [_i64(e, d, op) for d in op.shape]
    message = e.scratch("ref")
    e.fb.const_ref_rodata(message, e.module.string_rodata(op.message.data))
    _call(e, op, "buffer_view.assert", [e.get(op.buffer_view, op), message, _i32(e, op.element_type, op),
                                        _i32(e, op.encoding_type, op)] + shape, spans=[len(shape)])


def _view_trace(e, op):
    key = e.scratch("ref")
    e.fb.const_ref_rodata(key, e.module.string_rodata(op.key.data))
    views = [e.get(v, op) for v in op.operands_]
    _call(e, op, "buffer_view.trace", [key, *views], spans=[len(views)])


def _view_dim(e, op):
    _call(e, op, "buffer_view.dim", [e.get(op.buffer_view, op), e.const("i32", op.index.value.data)])


def _element_type(e, op):
    e.fb.const_i32(e.define(op.result, op), element_type_code(op.type, op))


def _encoding_type(e, op):
    name = op.encoding.data
    if name not in _ENCODINGS:
        raise error_at_op(op, f"unknown hal.encoding_type<{name}>; expected one of {', '.join(_ENCODINGS)}")
    e.fb.const_i32(e.define(op.result, op), _ENCODINGS[name])


def _slot_and_buffer(e, value, op):
    """(slot i32, buffer ref) of a command's buffer operand: a binding-table slot (index) is
    passed with a null buffer, a ``!hal.buffer`` with slot 0 (IREE's buffer-or-slot encoding)."""
    if isinstance(value.type, IndexType):
        return _i32(e, value, op), e.null_ref()
    return e.const("i32", 0), e.get(value, op)


def _cb_create(e, op):
    capacity = e.const("i32", 0) if op.binding_capacity is None else _i32(e, op.binding_capacity, op)
    _call(e, op, "command_buffer.create", [
        e.get(op.device, op), e.const("i32", _bits(op, "modes", _MODES, 1)),
        e.const("i32", _bits(op, "command_categories", _CATEGORIES, 3)), _i64(e, op.queue_affinity, op),
        capacity])


def _barrier(e, op):
    _call(e, op, "command_buffer.execution_barrier", [
        e.get(op.command_buffer, op), e.const("i32", _bits(op, "source_stage_mask", _STAGES)),
        e.const("i32", _bits(op, "target_stage_mask", _STAGES)), e.const("i64", 0)])


def _fill(e, op):
    offset, length = op.target_range
    width = op.pattern.type.width.data
    slot, target = _slot_and_buffer(e, op.target_buffer, op)
    _call(e, op, "command_buffer.fill_buffer", [
        e.get(op.command_buffer, op), target, _i64(e, offset, op), _i64(e, length, op),
        slot, _i64(e, op.pattern, op), e.const("i32", max(1, width // 8)), e.const("i64", 0)])


def _copy(e, op):
    source_slot, source = _slot_and_buffer(e, op.source_buffer, op)
    target_slot, target = _slot_and_buffer(e, op.target_buffer, op)
    _call(e, op, "command_buffer.copy_buffer", [
        e.get(op.command_buffer, op), source_slot, target_slot, source, _i64(e, op.source_offset[0], op),
        target, _i64(e, op.target_offset[0], op), _i64(e, op.length, op), e.const("i64", 0)])


def _dispatch(e, op):
    x, y, z = (_i32(e, v, op) for v in op.workgroup_count)
    args = [e.get(op.command_buffer, op), e.get(op.executable, op), _i64(e, op.entry_point, op), x, y, z,
            e.const("i64", 0)] + [_i32(e, c, op) for c in op.constants]
    zero = e.const("i32", 0)
    for buf, off, length in zip(op.binding_buffers, op.binding_offsets, op.binding_lengths):
        args += [zero, *_slot_and_buffer(e, buf, op), _i64(e, off, op), _i64(e, length, op)]
    _call(e, op, "command_buffer.dispatch", args, spans=[len(op.constants), len(op.binding_buffers)])


def _execute_indirect(e, op):
    args = [e.get(op.device, op), _i64(e, op.queue_affinity, op), e.get(op.wait_fence, op),
            e.get(op.signal_fence, op), e.get(op.command_buffer, op), e.const("i64", 0)]
    for buf, off, length in zip(op.binding_buffers, op.binding_offsets, op.binding_lengths):
        args += [e.get(buf, op), _i64(e, off, op), _i64(e, length, op)]
    _call(e, op, "device.queue.execute.indirect", args, spans=[len(op.binding_buffers)])


def _fence_create(e, op):
    _call(e, op, "fence.create", [e.get(op.device, op), e.const("i64", 0)])


def _fence_join(e, op):
    _call(e, op, "fence.join", [e.const("i64", 0)] + [e.get(f, op) for f in op.fences], spans=[len(op.fences)])


def _fence_await(e, op):
    _call(e, op, "fence.await", [_i32(e, op.timeout_millis, op), e.const("i64", 0)] +
          [e.get(f, op) for f in op.fences], spans=[len(op.fences)])


def _queue(name, extra):
    def lower(e, op):
        args = [e.get(op.device, op), _i64(e, op.queue_affinity, op), e.get(op.wait_fence, op),
                e.get(op.signal_fence, op)] + extra(e, op) + [e.const("i64", 0)]
        _call(e, op, name, args)
    return lower


def _alloca_args(e, op):
    return [_i64(e, op.pool, op), _i32(e, op.memory_types, op), _i32(e, op.buffer_usage, op),
            _i64(e, op.result_size, op)]


def _executable_create(e, op):
    fmt, data = e.module.executable_rodata(op.executable_target, op)
    fr, dr = e.scratch("ref"), e.scratch("ref")
    e.fb.const_ref_rodata(fr, fmt)
    e.fb.const_ref_rodata(dr, data)
    _call(e, op, "executable.create", [e.get(op.device, op), _i64(e, op.queue_affinity, op), fr, dr, e.null_ref()])


def _global_load(e, op):
    ref = e.module.global_ref(op.global_name.root_reference.data, op)
    getattr(e.fb, f"global_load_{ref.type}")(e.define(op.result, op), ref)


def _global_store(e, op):
    ref = e.module.global_ref(op.global_name.root_reference.data, op)
    getattr(e.fb, f"global_store_{ref.type}")(e.as_type(e.get(op.value, op), ref.type)
                                              if ref.type in ("i32", "i64") else e.get(op.value, op), ref)


def _buffer_constant(e, op):
    ro = e.module.constant_rodata(op)
    e.fb.const_ref_rodata(e.define(op.result, op), ro)


def _string_constant(value, op):
    owner = getattr(value, "op", None)
    text = owner.value if isinstance(owner, util.BufferConstantOp) else None
    if not isinstance(text, StringAttr):
        raise error_at_op(op, "io_parameters.load: parameter scopes and keys must be util.buffer.constant strings")
    return text.data.encode("utf-8")


def _int_constant(value, op, what):
    owner = getattr(value, "op", None)
    attr = owner.value if isinstance(owner, arith.ConstantOp) else None
    if not isinstance(attr, IntegerAttr):
        raise error_at_op(op, f"io_parameters.load: the {what} of a parameter must be a constant")
    return attr.value.data


def _parameters_load(e, op):
    """IREE's ParamsToVM: key table ({u32 offset, u32 length}), key data and spans ({u64
    parameter offset, u64 buffer offset, u64 length}) as rodata; results from the returned list."""
    keys = [_string_constant(k, op) for k in op.source_keys]
    table, data = bytearray(), bytearray()
    for key in keys:
        table += struct.pack("<II", len(data), len(key))
        data += key
    spans = b"".join(struct.pack("<QQQ", _int_constant(o, op, "offset"), 0, _int_constant(n, op, "length"))
                     for o, n in zip(op.source_offsets, op.lengths))
    refs = []
    for blob in (bytes(table), bytes(data), spans):
        reg = e.scratch("ref")
        e.fb.const_ref_rodata(reg, e.module.table_rodata(blob))
        refs.append(reg)
    scope = e.get(op.source_scope, op) if op.source_scope is not None else e.null_ref()
    affinity = _i64(e, op.queue_affinity, op)
    args = [e.get(op.device, op), affinity, e.get(op.wait_fence, op), e.get(op.signal_fence, op), scope, affinity,
            _i32(e, op.memory_types, op), _i32(e, op.buffer_usage, op), *refs]
    buffers = e.scratch("ref")
    e.fb.call_import(e.module.io_parameters_import("load"), args, [buffers])
    for i, result in enumerate(op.results_):
        e.fb.list_get_ref(e.define(result, op), buffers, e.const("i32", i))


def _null(e, op):
    e.fb.const_ref_zero(e.define(op.result, op))


def _check_bool(name):
    def lower(e, op):
        e.fb.call_import(e.module.check_import(name), [_i32(e, op.operand, op)], [])
    return lower


def _check_views(e, op, name, extra=()):
    for v in (op.lhs, op.rhs):
        if not isinstance(v.type, BufferViewType):
            raise error_at_op(op, f"'{op.name}' on {v.type} reached the vm phase; the stream/hal phases "
                                  "must pass tensors to check ops as !hal.buffer_view")
    device = e.scratch("ref")
    e.fb.global_load_ref(device, e.module.default_device(op))
    e.fb.call_import(e.module.check_import(name), [device, e.get(op.lhs, op), e.get(op.rhs, op), *extra], [])


def _check_eq(e, op):
    _check_views(e, op, "expect_eq")


def _check_almost_eq(e, op):
    atol, rtol = op.properties.get("atol"), op.properties.get("rtol")
    atol = atol.value.data if isinstance(atol, FloatAttr) else 1e-4
    rtol = rtol.value.data if isinstance(rtol, FloatAttr) else 0.0
    _check_views(e, op, "expect_almost_eq", (e.const("f32", atol), e.const("f32", rtol)))


#: The lowering of each op class, called as ``fn(emitter, op)``.
LOWERINGS = OpTable({
    hal_ops.DevicesGetOp: _devices_get,
    hal_ops.DeviceAllocatorOp: _simple("device.allocator"),
    hal_ops.AllocatorAllocateOp: _allocate,
    hal_ops.AllocatorImportOp: _import,
    hal_ops.BufferLengthOp: _simple("buffer.length"),
    hal_ops.BufferSubspanOp: _subspan,
    hal_ops.BufferLoadOp: _buffer_load,
    hal_ops.BufferStoreOp: _buffer_store,
    hal_ops.BufferViewCreateOp: _view_create,
    hal.BufferViewAssertOp: _view_assert,
    hal_ops.BufferViewBufferOp: _simple("buffer_view.buffer"),
    hal.BufferViewDimOp: _view_dim,
    hal_ops.BufferViewTraceOp: _view_trace,
    hal.ElementTypeOp: _element_type,
    hal.EncodingTypeOp: _encoding_type,
    hal_ops.CommandBufferCreateOp: _cb_create,
    hal_ops.CommandBufferFinalizeOp: _simple("command_buffer.finalize"),
    hal_ops.CommandBufferExecutionBarrierOp: _barrier,
    hal_ops.CommandBufferFillBufferOp: _fill,
    hal_ops.CommandBufferCopyBufferOp: _copy,
    hal_ops.CommandBufferDispatchOp: _dispatch,
    hal_ops.FenceCreateOp: _fence_create,
    hal_ops.FenceJoinOp: _fence_join,
    hal_ops.FenceSignalOp: _simple("fence.signal"),
    hal_ops.FenceAwaitOp: _fence_await,
    hal_ops.DeviceQueueAllocaOp: _queue("device.queue.alloca", _alloca_args),
    hal_ops.DeviceQueueDeallocaOp: _queue("device.queue.dealloca", lambda e, op: [e.get(op.buffer, op)]),
    hal_ops.DeviceQueueExecuteOp: _queue("device.queue.execute", lambda e, op: [e.get(op.command_buffer, op)]),
    hal_ops.DeviceQueueExecuteIndirectOp: _execute_indirect,
    hal_ops.ExecutableCreateOp: _executable_create,
    util.GlobalLoadOp: _global_load,
    util.GlobalStoreOp: _global_store,
    util.BufferConstantOp: _buffer_constant,
    util.NullOp: _null,
    io_parameters.LoadOp: _parameters_load,
    check.ExpectTrueOp: _check_bool("expect_true"),
    check.ExpectFalseOp: _check_bool("expect_false"),
    check.ExpectEqOp: _check_eq,
    check.ExpectAlmostEqOp: _check_almost_eq,
})
