"""Types and shape helpers of the ``flow`` dialect.

``!flow.dispatch.tensor<readonly|writeonly|readwrite:tensor<...>>`` is a dispatch argument seen
from inside a dispatch body, with its access mode. Flow ops carry the dynamic dims of every
shaped operand/result as index operands (``tensor<?x4xf32>{%d}``); :func:`check_dims` and
:func:`split_dims` keep those lists honest.

Source followed: IREE ``compiler/src/iree/compiler/Dialect/Flow/IR/FlowBase.td``.
"""
from xdsl.dialects.arith import ConstantOp
from xdsl.dialects.builtin import DYNAMIC_INDEX, StringAttr, TensorType
from xdsl.ir import ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition, param_def
from xdsl.utils.exceptions import VerifyException

from rt.compiler.dialects._parameters import NamedParameterBase

ACCESS = ("readonly", "writeonly", "readwrite")


@irdl_attr_definition
class DispatchTensorType(ParametrizedAttribute, TypeAttribute):
    """``!flow.dispatch.tensor<access:tensor<...>>``: a dispatch argument with its access mode."""

    name = "flow.dispatch.tensor"
    access: StringAttr = param_def()
    bound_type: TensorType = param_def()

    @classmethod
    def parse_parameters(cls, parser):
        parser.parse_punctuation("<")
        pos = parser.pos
        access = parser.parse_identifier()
        if access not in ACCESS:
            parser.raise_error(f"unknown dispatch tensor access '{access}'; expected one of {', '.join(ACCESS)}", pos)
        parser.parse_punctuation(":")
        bound = parser.parse_type()
        parser.parse_punctuation(">")
        return (StringAttr(access), bound)

    def print_parameters(self, printer):
        printer.print_string(f"<{self.access.data}:")
        printer.print_attribute(self.bound_type)
        printer.print_string(">")

    def get_shape(self):
        return self.bound_type.get_shape()


@irdl_attr_definition
class NamedParameterAttr(NamedParameterBase):
    """``#flow.parameter.named<"scope"::"key">``: a global's value loaded from a parameter file."""

    name = "flow.parameter.named"


def dynamic_rank(type_):
    """Number of dynamic dims of a shaped type (0 for scalars and other types)."""
    shape = type_.get_shape() if hasattr(type_, "get_shape") else ()
    return sum(1 for d in shape if d == DYNAMIC_INDEX)


def check_dims(op_name, what, types, dims):
    """Raise VerifyException unless ``dims`` holds one index value per dynamic dim of ``types``.

    ``types`` is one type or a list of types whose dims are concatenated (operand/result lists).
    """
    types = types if isinstance(types, (list, tuple)) else [types]
    want = sum(dynamic_rank(t) for t in types)
    if want != len(dims):
        shown = ", ".join(map(str, types))
        raise VerifyException(f"{op_name}: {what} ({shown}) have {want} dynamic dims but {len(dims)} dim values were given")


def split_dims(types, dims):
    """Group a flat dims list per type: one list per entry of ``types``, in order."""
    out, pos = [], 0
    for t in types:
        n = dynamic_rank(t)
        out.append(list(dims[pos:pos + n]))
        pos += n
    return out


def operand_key(unresolved):
    """Identity of a parsed operand reference (name and tuple index) for matching tied results."""
    return unresolved.span.text, unresolved.index


def constant_index(value):
    """The integer of an ``arith.constant`` index/integer SSA value, or None when not a constant."""
    owner = getattr(value, "op", None)
    if not isinstance(owner, ConstantOp):
        return None
    data = getattr(owner.properties.get("value"), "value", None)
    return getattr(data, "data", None) if isinstance(getattr(data, "data", None), int) else None


def static_extents(type_, dims):
    """Each dim of a shaped ``type_`` as an int, using ``dims`` (its dynamic dims) where constant.

    Unknown dynamic dims are None.
    """
    dims = list(dims)
    out = []
    for size in type_.get_shape():
        out.append(constant_index(dims.pop(0)) if size == DYNAMIC_INDEX and dims else
                   (None if size == DYNAMIC_INDEX else size))
    return out


def storage_bits(type_):
    """Bits one element of tensor ``type_`` occupies in memory, or None when unknown.

    IREE's storage rule: i2/i4 (and i1 with ``#iree_encoding.packed_storage``) pack several
    per byte; other types round up to a whole power-of-two number of bytes (i1 -> 8, i24 -> 32).
    """
    element = type_.element_type
    bits = getattr(element, "bitwidth", None)
    if not isinstance(bits, int):
        return None
    encoding = getattr(type_, "encoding", None)
    packed = encoding is not None and "packed_storage" in str(encoding)
    if bits in (2, 4) or (bits == 1 and packed):
        return bits
    width = 8
    while width < bits:
        width *= 2
    return width


def static_storage_bits(type_, dims):
    """Total storage bits of tensor ``type_`` (with its dynamic ``dims``), or None when not static."""
    bits = storage_bits(type_)
    extents = static_extents(type_, dims)
    if bits is None or any(e is None for e in extents):
        return None
    total = bits
    for e in extents:
        total *= e
    return total
