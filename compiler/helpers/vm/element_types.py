"""MLIR element types -> IREE ``iree_hal_element_type_t`` codes (``hal.element_type<f32>``).

The code packs the numerical type in the high byte and the bit count in the low byte
(rt.runtime.hal.element_type): signless integers are INTEGER (0x10), i1 is BOOL_8, floats are
FLOAT_IEEE (0x21), bf16 is FLOAT_BRAIN, the f8 types have a numerical type each. Source: IREE ``Dialect/HAL/IR/HALTypes.cpp``
(getElementTypeValue).
"""
from xdsl.dialects.builtin import IntegerType

from rt.compiler.frontend.diagnostics import error_at_op
from rt.runtime.hal.element_type import ElementType, NumericalType
from rt.runtime.small_float import FORMATS as SMALL_FLOATS

_FLOATS = {"f16": 16, "f32": 32, "f64": 64}


def element_type_code(type_, op=None):
    """The i32 code of ``type_``; CompileError (at ``op``) for types with no code."""
    if isinstance(type_, IntegerType):
        width = type_.width.data
        if width == 1:
            return int(ElementType.BOOL_8)
        signedness = type_.signedness.data.name if hasattr(type_.signedness.data, "name") else ""
        numerical = {"SIGNED": NumericalType.INTEGER_SIGNED, "UNSIGNED": NumericalType.INTEGER_UNSIGNED}.get(
            signedness, NumericalType.INTEGER)
        return (int(numerical) << 24) | width
    name = str(type_)
    if name in SMALL_FLOATS and name != "f4E2M1FN":  # bf16 (FLOAT_BRAIN), the f8 types: their codes
        return (SMALL_FLOATS[name].code << 24) | SMALL_FLOATS[name].bits
    if name in _FLOATS:
        return (int(NumericalType.FLOAT_IEEE) << 24) | _FLOATS[name]
    raise error_at_op(op, f"element type {type_} has no HAL element type code (IREE 3.13 defines none for "
                          f"f4E2M1FN); expected iN, f16, f32, f64, "
                          f"{', '.join(n for n in SMALL_FLOATS if n != 'f4E2M1FN')}")
