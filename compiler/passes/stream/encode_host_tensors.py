"""``iree-stream-encode-host-tensors``: stream.tensor.* ops become byte-level stream.async.* ops.

Input: host code from ``iree-stream-convert-to-stream``. Output: ``stream.tensor.sizeof`` is
folded to index arithmetic (product of dims x element bytes; i2 and i4 packed several to a byte,
``ceil(count * bits / 8)`` as IREE's calculateStorageElementCountInBytes and the runtime's
``iree_hal_element_packed_byte_count``; other odd widths widened to whole bytes: i1..i8 -> 1
byte, i9..i16 -> 2, ...); empty/constant/splat/clone/slice/update/fill/
load/store/dispatch become ``stream.async.*`` with byte offsets and ranges; splat and fill
values become HAL fill patterns (:func:`fill_pattern`). ``stream.tensor.import``
and ``stream.tensor.export`` stay (the HAL conversion needs their encodings).

Example::

    %s = stream.tensor.sizeof tensor<?x4xf32>{%d} : index
    %e = stream.tensor.empty : tensor<?x4xf32>{%d} in !stream.resource<*>{%s}
    %r = stream.tensor.dispatch @ex::@fn(%e) : (tensor<?x4xf32>{%d} in !stream.resource<*>{%s}) -> tensor<?x4xf32>{%d} in !stream.resource<*>{%s}
    // ->
    %c16 = arith.constant 16 : index
    %s = arith.muli %d, %c16 : index
    %e = stream.async.alloca : !stream.resource<*>{%s}
    %r = stream.async.dispatch @ex::@fn(%e[%c0 to %s for %s]) : (!stream.resource<*>{%s}) -> !stream.resource<*>{%s}

Encoded tensors (``#iree_encoding.encoding`` with the layout specialize-encodings resolved) are
sized as their packed form: each tiled dim padded to a multiple of its inner tile, e.g.
``ceildiv(%d0, 16) * 16 * %d1 * 4`` for an f32 LHS with tiles [16, 1].

Errors: CompileError for an encoding whose layout is not resolved; UnimplementedError for
element access, slices or updates of encoded tensors and for slices/updates that are not one
contiguous byte range.
Source followed: IREE ``Stream/Transforms/EncodeTensors.cpp`` (EncodeHostTensorsPass).
"""
import dataclasses
import struct

import numpy as np

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    NoneAttr,
)
from xdsl.rewriter import InsertPoint, Rewriter

from rt.compiler.dialects import stream
from rt.compiler.frontend import error_at_op
from rt.compiler.op_handlers import OpTable
from rt.compiler.passes.base import Pass
from rt.compiler.dialects.iree_encoding import EncodingAttr
from rt.compiler.helpers.stream.resources import INDEX, element_byte_width, host_callables, index_constant
from rt.compiler.targets.encoding import resolved_info
from rt.runtime.errors import CompileError, UnimplementedError
from rt.runtime.small_float import FORMATS as SMALL_FLOATS, from_float64


@dataclasses.dataclass(frozen=True)
class EncodeHostTensorsPass(Pass):
    """stream.tensor.* -> stream.async.* with byte sizes/offsets."""

    name = "iree-stream-encode-host-tensors"

    def run(self, module, ctx):
        for callable_op in host_callables(module):
            for op in list(callable_op.walk()):
                handler = _HANDLERS.get(op)
                if handler is not None:
                    try:
                        handler(op)
                    except UnimplementedError as exc:  # e.g. an element type without storage
                        raise error_at_op(op, str(exc)) from None


class _Builder:
    """Index arithmetic before an anchor op on ints (folded) or SSA values (emitted)."""

    def __init__(self, anchor):
        self.anchor = anchor

    def insert(self, op):
        Rewriter.insert_op(op, InsertPoint.before(self.anchor))
        return op.results[0]

    def value(self, x):
        """SSA value for ``x`` (an int becomes an arith.constant)."""
        return self.insert(index_constant(x)) if isinstance(x, int) else x

    def mul(self, a, b):
        a, b = _folded(a), _folded(b)
        if isinstance(a, int) and isinstance(b, int):
            return a * b
        if a == 1 or b == 1:
            return b if a == 1 else a
        return self.insert(arith.MuliOp(self.value(a), self.value(b)))

    def add(self, a, b):
        a, b = _folded(a), _folded(b)
        if isinstance(a, int) and isinstance(b, int):
            return a + b
        if a == 0 or b == 0:
            return b if a == 0 else a
        return self.insert(arith.AddiOp(self.value(a), self.value(b)))

    def ceildiv(self, a, b):
        a = _folded(a)
        if isinstance(a, int):
            return -(-a // b)
        return a if b == 1 else self.insert(arith.CeilDivSIOp(a, self.value(b)))


def _const_value(value):
    op = getattr(value, "op", None)
    if isinstance(op, arith.ConstantOp) and op.result.type == INDEX:
        return op.value.value.data
    return None


def _folded(x):
    """``x`` as an int when it is one or an index arith.constant, else the SSA value."""
    if isinstance(x, int):
        return x
    value = _const_value(x)
    return x if value is None else value


def _check_encoding(op, tensor_type):
    if not isinstance(tensor_type.encoding, NoneAttr):
        raise UnimplementedError(f"{op.name}: tensor {tensor_type} carries an encoding; run "
                                 f"specialize-encodings to resolve it per device before encode-host-tensors")


def _dim_values(b, tensor_type, dims):
    """One index value per dimension of ``tensor_type`` (dynamic ones from ``dims``)."""
    dims = list(dims)
    out = []
    for d in tensor_type.get_shape():
        out.append(dims.pop(0) if d == DYNAMIC_INDEX else d)
    return out


def _padded_dims(b, op, encoding, values):
    """Dims of an encoded tensor padded to whole inner tiles (the packed storage)."""
    try:
        info = resolved_info(encoding)
    except CompileError as exc:
        raise error_at_op(op, str(exc)) from None
    values = list(values)
    for pos, tile in zip(info.inner_dims_pos, info.inner_tile_sizes):
        values[pos] = b.mul(b.ceildiv(values[pos], tile), tile)
    return values


def _packed_bits(element_type):
    """Bits of an element stored several to a byte (i2, i4; IREE's
    needToPackSubByteElementBitWidth), else None."""
    if isinstance(element_type, IntegerType) and element_type.width.data in (2, 4):
        return element_type.width.data
    if str(element_type) == "f4E2M1FN":
        return 4
    return None


def _byte_size(b, op, tensor_type, dims):
    bits = _packed_bits(tensor_type.element_type)
    size = 1 if bits else element_byte_width(tensor_type.element_type, op.name)
    values = _dim_values(b, tensor_type, dims)
    if isinstance(tensor_type.encoding, EncodingAttr):
        values = _padded_dims(b, op, tensor_type.encoding, values)
    else:
        _check_encoding(op, tensor_type)
    for d in [v for v in values if isinstance(v, int)] + [v for v in values if not isinstance(v, int)]:
        size = b.mul(size, d)
    if bits:  # packed: ceil(count * bits / 8) bytes, as the runtime sizes buffer views
        size = b.ceildiv(b.mul(size, bits), 8)
    return size


def _byte_offset(b, op, tensor_type, dims, indices):
    """Row-major byte offset of element ``indices`` in a tensor of ``tensor_type``."""
    _check_encoding(op, tensor_type)
    offset = 0
    for extent, index in zip(_dim_values(b, tensor_type, dims), indices):
        offset = b.add(b.mul(offset, extent), index)
    if bits := _packed_bits(tensor_type.element_type):
        offset = _folded(offset)
        if not isinstance(offset, int) or offset * bits % 8:
            raise error_at_op(op, f"{op.name} of {tensor_type} starts inside a byte (elements are packed "
                                  f"{8 // bits} to a byte); rt addresses packed tensors from byte boundaries only")
        return offset * bits // 8
    return b.mul(offset, element_byte_width(tensor_type.element_type, op.name))


def _contiguous(shape, lengths):
    """True when a box of ``lengths`` in ``shape`` is one row-major byte range.

    ``shape``: ints (DYNAMIC_INDEX unknown) or the SSA values of dynamic extents; ``lengths``:
    ints, SSA values, or None (unknown). That holds when, after the first dimension whose length
    is not 1, every length equals the full extent: the same int, or the same SSA value (a
    concat's rows: the update's dynamic row length is the target's).
    """
    partial = False
    for extent, length in zip(shape, lengths):
        same = length is extent if not isinstance(length, int) else length == extent != DYNAMIC_INDEX
        if partial and (length is None or not same):
            return False
        if length != 1:
            partial = True
    return True


def _extents(shape, dims):
    """Each dim of ``shape``: an int (static, or a constant index) or its dynamic SSA value."""
    dims = list(dims)
    return [_folded(dims.pop(0)) if d == DYNAMIC_INDEX else d for d in shape]


def _affinity(op):
    aff = op.properties.get("affinity")
    return {} if aff is None else {"affinity": aff}


def _sizeof(op):
    b = _Builder(op)
    op.storage_size.replace_all_uses_with(b.value(_byte_size(b, op, op.encoding, op.encoding_dims)))
    Rewriter.erase_op(op)


def _empty(op):
    _replace(op, stream.AsyncAllocaOp.build(operands=[op.result_size], result_types=[op.result.type],
                                            properties=_affinity(op)))


def _constant(op):
    b = _Builder(op)
    size = b.value(_byte_size(b, op, op.result_encoding, op.result_encoding_dims))
    _replace(op, stream.AsyncConstantOp.build(operands=[[], size], result_types=[op.result.type],
                                              properties=_affinity(op) | {"value": op.value}))


def fill_pattern(b, op, value):
    """``value`` as a fill pattern: an i8/i16/i32/i64 integer or f32 (IREE's canonicalizeFillPattern).

    Odd-width integers are zero-extended to their storage width, f16/bf16 bitcast to i16, and a
    64-bit constant whose two 32-bit halves are equal becomes that i32. Constants are folded
    (the host never sees an f16 value). Other 64-bit patterns stay i64 (f64 bitcast to i64);
    iree-stream-materialize-builtins fills them with a dispatch.
    """
    type_ = value.type
    if packed := _packed_bits(type_):  # i2 / i4: the element repeated across a byte
        return _packed_pattern(b, op, value, packed)
    width = element_byte_width(type_, op.name) * 8
    narrow = isinstance(type_, (Float16Type, BFloat16Type)) or (isinstance(type_, IntegerType)
                                                                  and type_.width.data % 8) or \
        str(type_) in SMALL_FLOATS
    if width <= 32 and not narrow:
        return value
    bits = _constant_bits(value)
    if bits is not None:
        if width == 64 and bits & 0xFFFFFFFF == bits >> 32:
            width, bits = 32, bits & 0xFFFFFFFF
        signed = bits - (1 << width) if bits >= 1 << (width - 1) else bits
        return b.insert(arith.ConstantOp(IntegerAttr(signed, IntegerType(width))))
    if isinstance(type_, IntegerType) and type_.width.data < width:
        return b.insert(arith.ExtUIOp(value, IntegerType(width)))
    if isinstance(type_, IndexType):
        return b.insert(arith.IndexCastOp(value, IntegerType(64)))
    if isinstance(type_, IntegerType):
        return value
    return b.insert(arith.BitcastOp(value, IntegerType(width)))


def _packed_pattern(b, op, value, bits):
    """The i8 fill pattern of a packed element: ``value`` in each of the byte's 8 / bits slots."""
    repeat = sum(1 << k for k in range(0, 8, bits))  # 0x11 for i4, 0x55 for i2
    constant = _constant_bits(value)
    if constant is not None:
        pattern = (constant & ((1 << bits) - 1)) * repeat
        return b.insert(arith.ConstantOp(IntegerAttr(pattern - 256 if pattern >= 128 else pattern, IntegerType(8))))
    wide = b.insert(arith.ExtUIOp(value, IntegerType(8)))
    factor = b.insert(arith.ConstantOp(IntegerAttr(repeat, IntegerType(8))))
    return b.insert(arith.MuliOp(wide, factor))


_FLOAT_FORMATS = {Float16Type: "<e", Float32Type: "<f", Float64Type: "<d"}


def _constant_bits(value):
    """The storage bit pattern of a constant scalar ``value`` (None when it is not a constant)."""
    op = getattr(value, "owner", None)
    if not isinstance(op, arith.ConstantOp):
        return None
    attr, type_ = op.value, value.type
    if isinstance(attr, IntegerAttr):
        width = type_.width.data if isinstance(type_, IntegerType) else 64
        return attr.value.data & ((1 << width) - 1)
    if isinstance(attr, FloatAttr) and isinstance(type_, BFloat16Type):
        return int.from_bytes(struct.pack("<f", attr.value.data), "little") >> 16
    if isinstance(attr, FloatAttr) and str(type_) in SMALL_FLOATS:
        return int(from_float64([attr.value.data], str(type_)).view(
            np.uint16 if SMALL_FLOATS[str(type_)].bits == 16 else np.uint8)[0])
    if isinstance(attr, FloatAttr) and type(type_) in _FLOAT_FORMATS:
        return int.from_bytes(struct.pack(_FLOAT_FORMATS[type(type_)], attr.value.data), "little")
    return None


def _splat(op):
    b = _Builder(op)
    value = fill_pattern(b, op, op.value)
    _replace(op, stream.AsyncSplatOp.build(operands=[value, op.result_size], result_types=[op.result.type],
                                           properties=_affinity(op)))


def _clone(op):
    _replace(op, stream.AsyncCloneOp.build(operands=[op.source, op.source_size, op.result_size],
                                           result_types=[op.result.type], properties=_affinity(op)))


def _slice(op):
    enc = op.source_encoding
    if not _contiguous(enc.get_shape(), [_const_value(v) for v in op.lengths]):
        raise error_at_op(op, f"stream.tensor.slice of {enc} is not one contiguous byte range; rt lowers such "
                          f"slices to dispatches in iree-flow-convert-to-flow")
    b = _Builder(op)
    offset = _byte_offset(b, op, enc, op.source_encoding_dims, op.start_indices)
    offset, end = b.value(offset), b.value(b.add(offset, op.result_size))
    _replace(op, stream.AsyncSliceOp.build(operands=[op.source, op.source_size, offset, end, op.result_size],
                                           result_types=[op.result.type], properties=_affinity(op)))


def _update(op):
    enc = op.target_encoding
    upd = op.update_encoding
    if not _contiguous(_extents(enc.get_shape(), op.target_encoding_dims),
                       _extents(upd.get_shape(), op.update_encoding_dims)):
        raise error_at_op(op, f"stream.tensor.update into {enc} is not one contiguous byte range")
    b = _Builder(op)
    offset = _byte_offset(b, op, enc, op.target_encoding_dims, op.start_indices)
    offset, end = b.value(offset), b.value(b.add(offset, op.update_size))
    _replace(op, stream.AsyncUpdateOp.build(operands=[op.update, op.update_size, op.target, op.target_size, offset,
                                                      end], result_types=[op.result.type], properties=_affinity(op)))


def _fill(op):
    b = _Builder(op)
    enc = op.target_encoding
    if op.start_indices:
        offset = _byte_offset(b, op, enc, op.target_encoding_dims, op.start_indices)
        packed = _packed_bits(enc.element_type)
        length = 1 if packed else element_byte_width(enc.element_type, op.name)
        for d in op.lengths:
            length = b.mul(length, d)
        if packed:
            length = _folded(length)
            if not isinstance(length, int) or length * packed % 8:
                raise error_at_op(op, f"{op.name} of part of {enc} ends inside a byte (elements are packed "
                                      f"{8 // packed} to a byte); rt fills packed tensors in whole bytes only")
            length = length * packed // 8
    else:
        offset, length = 0, op.target_size
    offset, end, length = b.value(offset), b.value(b.add(offset, length)), b.value(length)
    _replace(op, stream.AsyncFillOp.build(operands=[fill_pattern(b, op, op.value), op.target, op.target_size, offset,
                                                    end, length],
                                          result_types=[op.result.type], properties=_affinity(op)))


def _check_host_scalar(op, type_):
    """The VM holds f16/bf16 (in f32 registers) and whole-byte integers; f8/f4 and packed
    i2/i4 scalars exist only inside dispatches."""
    if str(type_) in SMALL_FLOATS and str(type_) != "bf16" or _packed_bits(type_):
        raise error_at_op(op, f"{type_} element read or written on the host: the VM has no {type_} scalars "
                              f"(they exist only inside dispatches); convert the tensor first (arith.extf / extsi "
                              f"to f32 / i8 on the tensor), then extract or insert")


def _load(op):
    _check_host_scalar(op, op.result.type)
    b = _Builder(op)
    offset = b.value(_byte_offset(b, op, op.source_encoding, op.source_encoding_dims, op.indices))
    _replace(op, stream.AsyncLoadOp.build(operands=[op.source, op.source_size, offset], result_types=[op.result.type]))


def _store(op):
    _check_host_scalar(op, op.value.type)
    b = _Builder(op)
    offset = b.value(_byte_offset(b, op, op.target_encoding, op.target_encoding_dims, op.indices))
    _replace(op, stream.AsyncStoreOp.build(operands=[op.value, op.target, op.target_size, offset],
                                           result_types=[op.result.type]))


def _dispatch(op):
    b = _Builder(op)
    zero = b.value(0)
    offsets, ends, lengths = [], [], []
    for size in op.operand_sizes:
        offsets.append(zero)
        ends.append(size)
        lengths.append(size)
    props = {"entry_points": op.entry_points} | _affinity(op)
    if op.tied_operands is not None:
        props["tied_operands"] = op.tied_operands
    _replace(op, stream.AsyncDispatchOp.build(
        operands=[list(op.workload), list(op.mixed_operands), list(op.operand_sizes), offsets, ends, lengths,
                  list(op.result_sizes)], result_types=[[r.type for r in op.results]], properties=props))


def _replace(op, new):
    """Replace ``op`` by ``new``; a scalar constant ``op`` used and ``new`` no longer uses goes too."""
    constants = [v.owner for v in op.operands if isinstance(getattr(v, "owner", None), arith.ConstantOp)]
    new.location = op.location
    Rewriter.replace_op(op, new)
    for const in constants:
        if const.parent is not None and not const.result.uses:
            Rewriter.erase_op(const)


_HANDLERS = OpTable({
    stream.TensorSizeOfOp: _sizeof, stream.TensorEmptyOp: _empty, stream.TensorConstantOp: _constant,
    stream.TensorSplatOp: _splat, stream.TensorCloneOp: _clone, stream.TensorSliceOp: _slice,
    stream.TensorUpdateOp: _update, stream.TensorFillOp: _fill, stream.TensorLoadOp: _load,
    stream.TensorStoreOp: _store, stream.TensorDispatchOp: _dispatch,
})
