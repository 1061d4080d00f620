"""Constant handles: large and splat tensor constants kept out of the IR as numpy payloads.

xDSL 0.74.0 stores every ``dense<...>`` attribute as packed bytes and expands a splat to all of
its elements (an 8192x8192 f32 splat costs 256 MiB before a pass even runs). rt keeps such
constants in an ``ElementsAttr`` instead: an attribute holding the shaped type and a
``ConstantPayload`` that is either one splat scalar (O(1) memory whatever the shape) or a
read-only numpy array. It prints in MLIR's own syntax (``dense<1.0> : tensor<8192x8192xf32>`` or
``dense<"0x...">``), so dumps stay readable by mlir-opt and iree-compile.

Small non-splat literals stay xDSL ``DenseIntOrFPElementsAttr`` so that upstream ops which
require that class (``linalg.conv_*`` strides, ...) keep verifying. Passes read either form
through :func:`elements_to_numpy`, :func:`is_splat` and :func:`splat_value`.

Source followed: MLIR ``DenseElementsAttr`` (splat bit) and ``DenseResourceElementsAttr`` (blobs
owned by the module, not by the process); IREE keeps parameters out of the IR the same way.
"""
import hashlib

import numpy as np
from xdsl.dialects.builtin import (
    ComplexType,
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    Signedness,
)
from xdsl.ir import Attribute, BuiltinAttribute, Data, TypedAttribute
from xdsl.irdl import irdl_attr_definition, param_def

from rt.runtime.errors import InvalidArgumentError, UnimplementedError
from rt.runtime.hal.element_type import ElementType, pack_sub_byte
from rt.runtime.small_float import FORMATS as SMALL_FLOATS

#: Element counts above this become an ``ElementsAttr`` (splats above it as well).
HANDLE_THRESHOLD = 1024
#: Non-splat payloads with more elements than this print as a hex blob.
HEX_PRINT_THRESHOLD = 256


def small_float_name(element_type):
    """The MLIR name of a bf16/f8 element type (``rt.runtime.small_float``), else None."""
    name = str(element_type.name).removeprefix("builtin.") if hasattr(element_type, "name") else ""
    return name if name in SMALL_FLOATS else None


def storage_dtype(element_type):
    """numpy dtype holding one element of ``element_type``: bf16 and the f8 types as ml_dtypes
    dtypes; sub-byte integers one per byte (buffers pack them, see encode-host-tensors).

    ``complex<f32>``/``complex<f64>`` as complex64/complex128 (interleaved real, imaginary: a
    ``complex<f32>[N]`` buffer is ``f32[N, 2]``). Raises UnimplementedError for element types rt
    has no storage for (complex of other parts, f4, ...).
    """
    if (small := small_float_name(element_type)) is not None:
        return SMALL_FLOATS[small].dtype
    if isinstance(element_type, IntegerType):
        width = element_type.width.data
        if width == 1:
            return np.dtype(np.bool_)
        unsigned = element_type.signedness.data == Signedness.UNSIGNED
        for bits in (8, 16, 32, 64):
            if width <= bits:
                return np.dtype(f"{'u' if unsigned else 'i'}{bits // 8}")
    elif isinstance(element_type, IndexType):
        return np.dtype(np.int64)
    elif isinstance(element_type, Float16Type):
        return np.dtype(np.float16)
    elif isinstance(element_type, Float32Type):
        return np.dtype(np.float32)
    elif isinstance(element_type, Float64Type):
        return np.dtype(np.float64)
    elif isinstance(element_type, ComplexType) and isinstance(element_type.element_type, Float32Type | Float64Type):
        return np.dtype(np.complex64 if isinstance(element_type.element_type, Float32Type) else np.complex128)
    raise UnimplementedError(
        f"constants of element type {element_type} are not supported by rt; "
        "supported: iN/uiN (N <= 64), index, f16, bf16, f32, f64, complex<f32>, complex<f64>, "
        + ", ".join(n for n in SMALL_FLOATS if n != "bf16")
    )


class ConstantPayload:
    """The value of a tensor constant: a splat scalar or a read-only numpy array.

    ``shape`` is the tensor shape (tuple of ints), ``dtype`` the storage dtype
    (see :func:`storage_dtype`). Equality and hashing compare the values, so CSE and
    uniquing treat equal constants as equal without touching the IR.
    """

    __slots__ = ("shape", "dtype", "splat", "array", "_digest")

    def __init__(self, shape, dtype, splat=None, array=None):
        self.shape = tuple(int(d) for d in shape)
        self.dtype = np.dtype(dtype)
        if (splat is None) == (array is None):
            raise InvalidArgumentError("ConstantPayload takes exactly one of splat= or array=")
        if array is not None:
            array = np.ascontiguousarray(array, dtype=self.dtype)
            if array.shape != self.shape:
                raise InvalidArgumentError(
                    f"constant payload: array of shape {array.shape} for tensor shape {self.shape}"
                )
            array.flags.writeable = False
        else:
            splat = self.dtype.type(splat)
        self.splat, self.array, self._digest = splat, array, None

    @property
    def num_elements(self):
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def is_splat(self):
        return self.splat is not None

    def to_numpy(self):
        """The values as a read-only array; a splat is a broadcast view (no copy)."""
        if self.array is not None:
            return self.array
        return np.broadcast_to(np.asarray(self.splat, dtype=self.dtype), self.shape)

    def raw_bytes(self):
        """Little-endian packed storage bytes of every element (materializes a splat)."""
        return np.ascontiguousarray(self.to_numpy()).astype(self.dtype.newbyteorder("<")).tobytes()

    def digest(self):
        if self._digest is None:
            body = self.splat.tobytes() if self.is_splat else self.array.tobytes()
            self._digest = hashlib.blake2b(body, digest_size=16).hexdigest()
        return self._digest

    def __eq__(self, other):
        return (
            isinstance(other, ConstantPayload)
            and self.shape == other.shape
            and self.dtype == other.dtype
            and self.is_splat == other.is_splat
            and self.digest() == other.digest()
        )

    def __hash__(self):
        return hash((self.shape, self.dtype.str, self.digest()))

    def __repr__(self):
        kind = f"splat={self.splat!r}" if self.is_splat else "array"
        return f"ConstantPayload(shape={self.shape}, dtype={self.dtype}, {kind})"


@irdl_attr_definition
class ConstantPayloadAttr(Data[ConstantPayload]):
    """Wraps a :class:`ConstantPayload` so it can be a parameter of ``ElementsAttr``."""

    name = "rt.constant_payload"

    @classmethod
    def parse_parameter(cls, parser):
        parser.raise_error("rt.constant_payload is internal; write dense<...> instead")

    def print_parameter(self, printer):
        printer.print_string(f"<{self.data!r}>")


@irdl_attr_definition
class ElementsAttr(TypedAttribute, BuiltinAttribute):
    """A tensor constant held as a numpy payload; prints as MLIR ``dense<...> : type``."""

    name = "rt.elements"

    type: Attribute = param_def()
    payload: ConstantPayloadAttr = param_def()

    @classmethod
    def get_type_index(cls):
        return 0

    def get_shape(self):
        return self.payload.data.shape

    def get_element_type(self):
        return self.type.get_element_type()

    def print_without_type(self, printer):
        payload = self.payload.data
        printer.print_string("dense<")
        if payload.is_splat:
            _print_element(printer, payload.splat, self.get_element_type())
        elif payload.num_elements > HEX_PRINT_THRESHOLD:
            printer.print_string(f'"0x{payload.raw_bytes().hex().upper()}"')
        else:
            _print_nested(printer, payload.array, self.get_element_type())
        printer.print_string(">")

    def print_builtin(self, printer):
        self.print_without_type(printer)
        printer.print_string(" : ")
        printer.print_attribute(self.type)


def _print_element(printer, value, element_type):
    if isinstance(element_type, ComplexType):
        printer.print_string("(")
        _print_element(printer, np.real(value), element_type.element_type)
        printer.print_string(",")
        _print_element(printer, np.imag(value), element_type.element_type)
        printer.print_string(")")
    elif isinstance(element_type, IntegerType) and element_type.width.data == 1:
        printer.print_string("true" if bool(value) else "false")
    elif isinstance(element_type, IntegerType | IndexType):
        printer.print_string(str(int(value)))
    elif small_float_name(element_type) is not None:
        if np.isfinite(float(value)):
            printer.print_string(repr(float(value)))
        else:
            bits = np.asarray(value).view(np.uint16 if value.dtype.itemsize == 2 else np.uint8)
            printer.print_string(f"0x{int(bits):0{2 * value.dtype.itemsize}X}")
    else:
        printer.print_float(float(value), element_type)


def _print_nested(printer, array, element_type):
    if array.ndim == 0:
        _print_element(printer, array[()], element_type)
        return
    printer.print_string("[")
    for i in range(array.shape[0]):
        if i:
            printer.print_string(", ")
        if array.ndim == 1:
            _print_element(printer, array[i], element_type)
        else:
            _print_nested(printer, array[i], element_type)
    printer.print_string("]")


def make_elements(shaped_type, values):
    """Build the attribute for a tensor constant of ``shaped_type`` (static shape).

    ``values``: a scalar (splat) or an array-like of the type's shape, in storage dtype
    (bf16 and f8 as ml_dtypes arrays, complex as complex64/128). Small non-splat constants become
    xDSL ``DenseIntOrFPElementsAttr``, everything else (complex constants too) an
    :class:`ElementsAttr`. Raises InvalidArgumentError on a shape mismatch.
    """
    shape = tuple(shaped_type.get_shape())
    element_type = shaped_type.get_element_type()
    dtype = storage_dtype(element_type)
    count = int(np.prod(shape, dtype=np.int64))
    arr = np.asarray(values)
    if arr.ndim == 0 or (arr.size == 1 and count != 1):
        payload = ConstantPayload(shape, dtype, splat=arr.reshape(()).astype(dtype)[()])
    else:
        if arr.size != count:
            raise InvalidArgumentError(
                f"constant of type {shaped_type}: got {arr.size} values, expected {count}"
            )
        payload = ConstantPayload(shape, dtype, array=arr.reshape(shape).astype(dtype))
    if (count > HANDLE_THRESHOLD or small_float_name(element_type) is not None
            or isinstance(element_type, ComplexType)):
        return ElementsAttr(shaped_type, ConstantPayloadAttr(payload))
    flat = payload.to_numpy().reshape(-1)
    if isinstance(element_type, Float16Type | Float32Type | Float64Type):
        data = [float(v) for v in flat]
    else:
        data = [int(v) for v in flat]
    return DenseIntOrFPElementsAttr.from_list(shaped_type, data)


def elements_to_numpy(attr):
    """The value of a tensor constant attribute as a numpy array of its shape.

    Accepts ``ElementsAttr`` (splats come back as a broadcast view) and
    ``DenseIntOrFPElementsAttr``. bf16 and f8 come back as ml_dtypes arrays.
    Raises InvalidArgumentError for any other attribute.
    """
    if isinstance(attr, ElementsAttr):
        return attr.payload.data.to_numpy()
    if isinstance(attr, DenseIntOrFPElementsAttr):
        element_type = attr.get_element_type()
        if isinstance(element_type, ComplexType):
            raise UnimplementedError("complex constants are not supported by rt")
        dtype = storage_dtype(element_type)
        shape = tuple(attr.get_shape())
        values = np.asarray(attr.get_values(), dtype=dtype)
        if values.size == 1 and int(np.prod(shape, dtype=np.int64)) != 1:
            return np.broadcast_to(values.reshape(()), shape)
        return values.reshape(shape)
    raise InvalidArgumentError(f"expected a dense tensor constant attribute, got {attr}")


def storage_bytes(attr):
    """The bytes a buffer holds for tensor constant ``attr``: little-endian, row-major; i2/i4
    packed as IREE packs them (element 0 in the low bits, the last byte zero-padded)."""
    array = np.ascontiguousarray(elements_to_numpy(attr))
    element_type = attr.get_element_type() if hasattr(attr, "get_element_type") else attr.type.element_type
    if isinstance(element_type, IntegerType) and element_type.width.data in (2, 4):
        bits = element_type.width.data
        code = ElementType.INT_4 if bits == 4 else ElementType.INT_2
        return pack_sub_byte(array.astype(np.int8), code).tobytes()
    if small_float_name(element_type) == "f4E2M1FN":  # 4-bit patterns, packed like i4
        return pack_sub_byte(array, ElementType.INT_4).tobytes()
    return array.astype(array.dtype.newbyteorder("<")).tobytes()


def is_splat(attr):
    """True when the constant ``attr`` has elements and all of them have the same value."""
    if isinstance(attr, ElementsAttr):
        return attr.payload.data.is_splat
    if isinstance(attr, DenseIntOrFPElementsAttr):
        return len(attr) > 0 and attr.is_splat()  # xDSL's is_splat indexes the first element
    raise InvalidArgumentError(f"expected a dense tensor constant attribute, got {attr}")


def splat_value(attr):
    """The single value of a splat constant (numpy scalar); InvalidArgumentError otherwise."""
    if not is_splat(attr):
        raise InvalidArgumentError(f"constant of type {attr.get_type()} is not a splat")
    if isinstance(attr, ElementsAttr):
        return attr.payload.data.splat
    return elements_to_numpy(attr).reshape(-1)[0]
