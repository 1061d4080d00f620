"""Element and encoding types of buffer views, with their numpy and MLIR spellings.

Codes follow ``iree_hal_element_type_t`` (runtime/src/iree/hal/buffer_view.h): the high byte
is the numerical type, the low byte the bit count, e.g. float32 = 0x21000020,
sint32 = 0x11000020. ``encoding_type`` follows ``iree_hal_encoding_type_t``.

Types numpy lacks (bf16, the f8 family, i4/ui4, i2/ui2) map to ``ml_dtypes`` dtypes, as IREE's
Python bindings do. Sub-byte integers are stored packed as IREE stores them
(``iree_hal_element_packed_byte_count``): two i4 (four i2) per byte, element 0 in the low
bits, the last byte zero-padded; on the host (numpy) they take one byte each. ``ml_dtypes``
is imported only when one of its types is asked for (a run of an f32 program never needs it).
"""
import enum
import functools

import numpy as np

from rt.runtime.errors import InvalidArgumentError, UnimplementedError


class NumericalType(enum.IntEnum):
    """``iree_hal_numerical_type_t``: the high byte of an element type."""

    UNKNOWN = 0x00
    INTEGER = 0x10
    INTEGER_SIGNED = 0x11
    INTEGER_UNSIGNED = 0x12
    BOOLEAN = 0x13
    FLOAT_IEEE = 0x21
    FLOAT_BRAIN = 0x22
    FLOAT_COMPLEX = 0x23
    FLOAT_8_E5M2 = 0x24
    FLOAT_8_E4M3FN = 0x25
    FLOAT_8_E5M2_FNUZ = 0x26
    FLOAT_8_E4M3_FNUZ = 0x27
    FLOAT_8_E8M0_FNU = 0x28


def _value(numerical_type, bit_count):
    return (int(numerical_type) << 24) | bit_count


class ElementType(enum.IntEnum):
    """``iree_hal_element_type_t`` values (IREE names without the prefix)."""

    NONE = _value(NumericalType.UNKNOWN, 0)
    OPAQUE_8 = _value(NumericalType.UNKNOWN, 8)
    OPAQUE_16 = _value(NumericalType.UNKNOWN, 16)
    OPAQUE_32 = _value(NumericalType.UNKNOWN, 32)
    OPAQUE_64 = _value(NumericalType.UNKNOWN, 64)
    BOOL_8 = _value(NumericalType.BOOLEAN, 8)
    INT_2 = _value(NumericalType.INTEGER, 2)
    SINT_2 = _value(NumericalType.INTEGER_SIGNED, 2)
    UINT_2 = _value(NumericalType.INTEGER_UNSIGNED, 2)
    INT_4 = _value(NumericalType.INTEGER, 4)
    SINT_4 = _value(NumericalType.INTEGER_SIGNED, 4)
    UINT_4 = _value(NumericalType.INTEGER_UNSIGNED, 4)
    INT_8 = _value(NumericalType.INTEGER, 8)
    SINT_8 = _value(NumericalType.INTEGER_SIGNED, 8)
    UINT_8 = _value(NumericalType.INTEGER_UNSIGNED, 8)
    INT_16 = _value(NumericalType.INTEGER, 16)
    SINT_16 = _value(NumericalType.INTEGER_SIGNED, 16)
    UINT_16 = _value(NumericalType.INTEGER_UNSIGNED, 16)
    INT_32 = _value(NumericalType.INTEGER, 32)
    SINT_32 = _value(NumericalType.INTEGER_SIGNED, 32)
    UINT_32 = _value(NumericalType.INTEGER_UNSIGNED, 32)
    INT_64 = _value(NumericalType.INTEGER, 64)
    SINT_64 = _value(NumericalType.INTEGER_SIGNED, 64)
    UINT_64 = _value(NumericalType.INTEGER_UNSIGNED, 64)
    FLOAT_16 = _value(NumericalType.FLOAT_IEEE, 16)
    FLOAT_32 = _value(NumericalType.FLOAT_IEEE, 32)
    FLOAT_64 = _value(NumericalType.FLOAT_IEEE, 64)
    BFLOAT_16 = _value(NumericalType.FLOAT_BRAIN, 16)
    COMPLEX_FLOAT_64 = _value(NumericalType.FLOAT_COMPLEX, 64)
    COMPLEX_FLOAT_128 = _value(NumericalType.FLOAT_COMPLEX, 128)
    FLOAT_8_E5M2 = _value(NumericalType.FLOAT_8_E5M2, 8)
    FLOAT_8_E4M3_FN = _value(NumericalType.FLOAT_8_E4M3FN, 8)
    FLOAT_8_E5M2_FNUZ = _value(NumericalType.FLOAT_8_E5M2_FNUZ, 8)
    FLOAT_8_E4M3_FNUZ = _value(NumericalType.FLOAT_8_E4M3_FNUZ, 8)
    FLOAT_8_E8M0_FNU = _value(NumericalType.FLOAT_8_E8M0_FNU, 8)


class EncodingType(enum.IntEnum):
    """``iree_hal_encoding_type_t``: how elements are laid out in the buffer."""

    OPAQUE = 0
    DENSE_ROW_MAJOR = 1


_E = ElementType
_TO_DTYPE = {
    _E.BOOL_8: np.bool_,
    _E.INT_8: np.int8, _E.SINT_8: np.int8, _E.UINT_8: np.uint8,
    _E.INT_16: np.int16, _E.SINT_16: np.int16, _E.UINT_16: np.uint16,
    _E.INT_32: np.int32, _E.SINT_32: np.int32, _E.UINT_32: np.uint32,
    _E.INT_64: np.int64, _E.SINT_64: np.int64, _E.UINT_64: np.uint64,
    _E.FLOAT_16: np.float16, _E.FLOAT_32: np.float32, _E.FLOAT_64: np.float64,
    _E.COMPLEX_FLOAT_64: np.complex64, _E.COMPLEX_FLOAT_128: np.complex128,
    _E.OPAQUE_8: np.uint8, _E.OPAQUE_16: np.uint16, _E.OPAQUE_32: np.uint32,
    _E.OPAQUE_64: np.uint64,
}
#: element types numpy lacks -> the name of their ml_dtypes type
_ML_DTYPE_NAMES = {
    _E.INT_2: "int2", _E.SINT_2: "int2", _E.UINT_2: "uint2",
    _E.INT_4: "int4", _E.SINT_4: "int4", _E.UINT_4: "uint4",
    _E.BFLOAT_16: "bfloat16",
    _E.FLOAT_8_E5M2: "float8_e5m2", _E.FLOAT_8_E4M3_FN: "float8_e4m3fn",
    _E.FLOAT_8_E5M2_FNUZ: "float8_e5m2fnuz", _E.FLOAT_8_E4M3_FNUZ: "float8_e4m3fnuz",
    _E.FLOAT_8_E8M0_FNU: "float8_e8m0fnu",
}
# numpy dtype -> the element type a tensor of it gets (signless integers, as MLIR's iN).
_FROM_DTYPE = {
    np.dtype(np.bool_): _E.BOOL_8,
    np.dtype(np.int8): _E.INT_8, np.dtype(np.uint8): _E.UINT_8,
    np.dtype(np.int16): _E.INT_16, np.dtype(np.uint16): _E.UINT_16,
    np.dtype(np.int32): _E.INT_32, np.dtype(np.uint32): _E.UINT_32,
    np.dtype(np.int64): _E.INT_64, np.dtype(np.uint64): _E.UINT_64,
    np.dtype(np.float16): _E.FLOAT_16, np.dtype(np.float32): _E.FLOAT_32,
    np.dtype(np.float64): _E.FLOAT_64,
    np.dtype(np.complex64): _E.COMPLEX_FLOAT_64, np.dtype(np.complex128): _E.COMPLEX_FLOAT_128,
}


@functools.cache
def _ml_dtypes_tables():
    """({element type: ml_dtypes dtype}, {ml_dtypes dtype: element type}) for the types numpy
    lacks, built (importing ml_dtypes) on first use; a dtype maps to its first element type
    in ``_ML_DTYPE_NAMES`` (signless for int4 / int2)."""
    import ml_dtypes

    to_dtype = {et: np.dtype(getattr(ml_dtypes, name)) for et, name in _ML_DTYPE_NAMES.items()}
    from_dtype = {}
    for et, dtype in to_dtype.items():
        from_dtype.setdefault(dtype, et)
    return to_dtype, from_dtype


_MLIR_NAMES = {
    _E.BOOL_8: "i1", _E.INT_2: "i2", _E.SINT_2: "si2", _E.UINT_2: "ui2", _E.INT_4: "i4", _E.SINT_4: "si4", _E.UINT_4: "ui4",
    _E.INT_8: "i8", _E.SINT_8: "si8", _E.UINT_8: "ui8",
    _E.INT_16: "i16", _E.SINT_16: "si16", _E.UINT_16: "ui16",
    _E.INT_32: "i32", _E.SINT_32: "si32", _E.UINT_32: "ui32",
    _E.INT_64: "i64", _E.SINT_64: "si64", _E.UINT_64: "ui64",
    _E.FLOAT_16: "f16", _E.FLOAT_32: "f32", _E.FLOAT_64: "f64", _E.BFLOAT_16: "bf16",
    _E.COMPLEX_FLOAT_64: "complex<f32>", _E.COMPLEX_FLOAT_128: "complex<f64>",
    _E.FLOAT_8_E5M2: "f8E5M2", _E.FLOAT_8_E4M3_FN: "f8E4M3FN",
    _E.FLOAT_8_E5M2_FNUZ: "f8E5M2FNUZ", _E.FLOAT_8_E4M3_FNUZ: "f8E4M3FNUZ",
    _E.FLOAT_8_E8M0_FNU: "f8E8M0FNU",
}


def as_element_type(code):
    """Return ``ElementType(code)``; raise ``InvalidArgumentError`` for an undefined code."""
    try:
        return ElementType(int(code))
    except ValueError:
        valid = ", ".join(f"{e.name}=0x{e.value:08X}" for e in list(ElementType)[:24])
        raise InvalidArgumentError(
            f"element type 0x{int(code) & 0xFFFFFFFF:08X} is not an iree_hal_element_type_t "
            f"value; expected one of {valid}, ..."
        ) from None


def element_bit_count(element_type):
    """Bits per element (the low byte of the code)."""
    return int(element_type) & 0xFF


def element_byte_size(element_type):
    """Bytes per element, rounding sub-byte types up to a whole byte
    (``iree_hal_element_dense_byte_count``; packed sub-byte storage: :func:`packed_byte_count`)."""
    return (element_bit_count(element_type) + 7) // 8


def is_sub_byte(element_type):
    """True for element types stored several to a byte (i2, i4 and their signed variants)."""
    return 0 < element_bit_count(element_type) < 8 and int(element_type) >> 24 != NumericalType.BOOLEAN


def packed_byte_count(element_type, count):
    """Bytes that ``count`` elements occupy in a dense buffer: ``ceil(count * bits / 8)`` for
    sub-byte types (``iree_hal_element_packed_byte_count``), else ``count * byte size``."""
    if is_sub_byte(element_type):
        return (count * element_bit_count(element_type) + 7) // 8
    return count * element_byte_size(element_type)


def pack_sub_byte(array, element_type):
    """Pack a host array of a sub-byte type (one element per byte: an ml_dtypes int4/uint4/
    int2/uint2 array) into the uint8 bytes a buffer stores: element ``k`` at bits
    ``(k % per_byte) * bits`` of byte ``k // per_byte``; the last byte is zero-padded."""
    bits = element_bit_count(element_type)
    per_byte = 8 // bits
    flat = np.ascontiguousarray(array).reshape(-1).view(np.uint8) & ((1 << bits) - 1)
    pad = -flat.size % per_byte
    if pad:
        flat = np.concatenate([flat, np.zeros(pad, np.uint8)])
    lanes = flat.reshape(-1, per_byte).astype(np.uint8)
    packed = np.zeros(lanes.shape[0], np.uint8)
    for k in range(per_byte):
        packed |= lanes[:, k] << np.uint8(k * bits)
    return packed


def unpack_sub_byte(raw, element_type, shape):
    """The inverse of :func:`pack_sub_byte`: uint8 buffer bytes -> an array of ``shape`` and
    the element type's ml_dtypes dtype (a new array; sign-extended for signed types)."""
    bits = element_bit_count(element_type)
    per_byte = 8 // bits
    count = int(np.prod(shape, dtype=np.int64))
    raw = np.asarray(raw, np.uint8)[:packed_byte_count(element_type, count)]
    lanes = np.empty((raw.size, per_byte), np.uint8)
    for k in range(per_byte):
        lanes[:, k] = (raw >> np.uint8(k * bits)) & np.uint8((1 << bits) - 1)
    values = lanes.reshape(-1)[:count]
    dtype = element_type_to_dtype(element_type)
    if int(element_type) >> 24 != NumericalType.INTEGER_UNSIGNED:
        values = np.where(values >= 1 << (bits - 1), values.astype(np.int16) - (1 << bits), values)
    return values.astype(np.int8).astype(dtype).reshape(shape)


def element_type_name(element_type):
    """MLIR spelling of an element type (``f32``, ``i8``), or ``0x...`` for an unnamed code."""
    try:
        return _MLIR_NAMES[ElementType(int(element_type))]
    except (KeyError, ValueError):
        return f"0x{int(element_type) & 0xFFFFFFFF:08X}"


def dtype_to_element_type(dtype):
    """Element type of numpy ``dtype`` (integers map to signless ``INT_N``/``UINT_N``).

    Raises ``UnimplementedError`` for dtypes IREE has no element type for (object, str, ...).
    """
    dt = np.dtype(dtype)
    found = _FROM_DTYPE.get(dt)
    if found is not None:
        return found
    ml_from_dtype = _ml_dtypes_tables()[1]
    try:
        return ml_from_dtype[dt]
    except KeyError:
        raise UnimplementedError(
            f"numpy dtype {dt} has no HAL element type; use one of "
            + ", ".join(str(d) for d in (*_FROM_DTYPE, *ml_from_dtype))
        ) from None


def element_type_to_dtype(element_type):
    """numpy dtype holding elements of ``element_type``.

    Types numpy lacks come from ml_dtypes (bf16, f8, i4, i2; sub-byte types take one byte per
    element on the host). Raises ``UnimplementedError`` for types with no dtype (opaque
    widths without a numpy type, unnamed codes).
    """
    et = as_element_type(element_type)
    if et in _TO_DTYPE:
        return np.dtype(_TO_DTYPE[et])
    try:
        return _ml_dtypes_tables()[0][et]
    except KeyError:
        raise UnimplementedError(
            f"element type {element_type_name(et)} (0x{int(et):08X}) has no numpy dtype; "
            "view its buffer as raw bytes (Buffer.to_numpy(np.uint8, ...)) instead"
        ) from None
