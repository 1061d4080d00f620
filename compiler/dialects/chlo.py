"""The ``chlo`` dialect (client HLO): the broadcasting and special-function ops JAX emits beside StableHLO.

Input only, converted with StableHLO by ``iree-stablehlo-to-iree-input``:
``chlo.broadcast_<op> %a, %b {broadcast_dimensions = array<i64: ...>} : (tA, tB) -> t`` is
StableHLO's ``<op>`` after broadcasting both operands to the result shape (numpy's trailing
alignment, or ``broadcast_dimensions`` for the lower-rank operand), and ``chlo.erf``,
``chlo.sinh``, ``chlo.cosh``, ``chlo.asinh``, ``chlo.acosh``, ``chlo.atanh``, ``chlo.asin``,
``chlo.acos``, ``chlo.atan``, ``chlo.tan`` are the elementwise functions (``chlo.erf %x :
tensor<4xf32> -> tensor<4xf32>``). ``chlo.top_k`` (``jax.lax.top_k``) becomes
``iree_linalg_ext.topk``.

Source followed: openxla/stablehlo ``stablehlo/dialect/ChloOps.td`` and IREE's
``LegalizeCHLO.cpp`` (the broadcasting rules and the decompositions).
"""
from typing import ClassVar

from xdsl.dialects.builtin import IntegerAttr, TensorType, i64
from xdsl.ir import Dialect
from xdsl.irdl import irdl_op_definition, operand_def, prop_def, result_def, traits_def
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from rt.compiler.dialects import stablehlo as hlo
from rt.compiler.dialects._format import AttrDict, FormattedOp, Int, Operand, OpFormat, Type
from rt.compiler.dialects._stablehlo_syntax import Binary, Unary


class _Broadcasting(Binary):
    """``chlo.broadcast_<op> %a, %b : (tA, tB) -> t``; ``ELEMENTWISE`` is the StableHLO op applied."""

    ELEMENTWISE: ClassVar[type] = None


@irdl_op_definition
class BroadcastAddOp(_Broadcasting):
    name = "chlo.broadcast_add"
    ELEMENTWISE: ClassVar[type] = hlo.AddOp


@irdl_op_definition
class BroadcastSubOp(_Broadcasting):
    name = "chlo.broadcast_subtract"
    ELEMENTWISE: ClassVar[type] = hlo.SubtractOp


@irdl_op_definition
class BroadcastMulOp(_Broadcasting):
    name = "chlo.broadcast_multiply"
    ELEMENTWISE: ClassVar[type] = hlo.MulOp


@irdl_op_definition
class BroadcastDivOp(_Broadcasting):
    name = "chlo.broadcast_divide"
    ELEMENTWISE: ClassVar[type] = hlo.DivOp


@irdl_op_definition
class BroadcastRemOp(_Broadcasting):
    name = "chlo.broadcast_remainder"
    ELEMENTWISE: ClassVar[type] = hlo.RemOp


@irdl_op_definition
class BroadcastMaxOp(_Broadcasting):
    name = "chlo.broadcast_maximum"
    ELEMENTWISE: ClassVar[type] = hlo.MaxOp


@irdl_op_definition
class BroadcastMinOp(_Broadcasting):
    name = "chlo.broadcast_minimum"
    ELEMENTWISE: ClassVar[type] = hlo.MinOp


@irdl_op_definition
class BroadcastPowOp(_Broadcasting):
    name = "chlo.broadcast_power"
    ELEMENTWISE: ClassVar[type] = hlo.PowOp


@irdl_op_definition
class BroadcastAndOp(_Broadcasting):
    name = "chlo.broadcast_and"
    ELEMENTWISE: ClassVar[type] = hlo.AndOp


@irdl_op_definition
class BroadcastOrOp(_Broadcasting):
    name = "chlo.broadcast_or"
    ELEMENTWISE: ClassVar[type] = hlo.OrOp


@irdl_op_definition
class BroadcastXorOp(_Broadcasting):
    name = "chlo.broadcast_xor"
    ELEMENTWISE: ClassVar[type] = hlo.XorOp


@irdl_op_definition
class BroadcastAtan2Op(_Broadcasting):
    name = "chlo.broadcast_atan2"
    ELEMENTWISE: ClassVar[type] = hlo.Atan2Op


@irdl_op_definition
class BroadcastCompareOp(_Broadcasting):
    """``"chlo.broadcast_compare"(%a, %b) {comparison_direction = ...}`` (generic form)."""

    name = "chlo.broadcast_compare"
    ELEMENTWISE: ClassVar[type] = hlo.CompareOp


@irdl_op_definition
class ErfOp(Unary):
    name = "chlo.erf"


@irdl_op_definition
class ErfcOp(Unary):
    name = "chlo.erfc"


@irdl_op_definition
class SinhOp(Unary):
    name = "chlo.sinh"


@irdl_op_definition
class CoshOp(Unary):
    name = "chlo.cosh"


@irdl_op_definition
class AsinhOp(Unary):
    name = "chlo.asinh"


@irdl_op_definition
class AcoshOp(Unary):
    name = "chlo.acosh"


@irdl_op_definition
class AtanhOp(Unary):
    name = "chlo.atanh"


@irdl_op_definition
class AsinOp(Unary):
    name = "chlo.asin"


@irdl_op_definition
class AcosOp(Unary):
    name = "chlo.acos"


@irdl_op_definition
class AtanOp(Unary):
    name = "chlo.atan"


@irdl_op_definition
class TanOp(Unary):
    name = "chlo.tan"


@irdl_op_definition
class TopKOp(FormattedOp):
    """``%v, %i = chlo.top_k(%x, k = 3) : tensor<2x10xf32> -> (tensor<2x3xf32>, tensor<2x3xi32>)``: the k
    largest elements along the last dim, largest first (ties: the lower index first), and their indices."""

    name = "chlo.top_k"
    operand = operand_def(TensorType)
    k = prop_def(IntegerAttr)
    values = result_def(TensorType)
    indices = result_def(TensorType)
    traits = traits_def(Pure())
    FORMAT: ClassVar = OpFormat("(", Operand("operand"), ", k = ", Int("k", i64), ")", AttrDict(), " : ",
                                Type("operand"), " -> (", Type("values"), ", ", Type("indices"), ")")

    def verify_(self):
        shape = self.operand.type.get_shape()
        k = self.k.value.data
        if not shape or k < 0 or (shape[-1] >= 0 and k > shape[-1]):
            raise VerifyException(f"'chlo.top_k' takes k in [0, {shape[-1] if shape else 0}] of the last dim of "
                                  f"{self.operand.type}, got k = {k}")
        want = list(shape[:-1]) + [k]
        for value in (self.values, self.indices):
            if list(value.type.get_shape()) != want:
                raise VerifyException(f"'chlo.top_k' result {value.type} must have shape {want}")


BROADCASTING_OPS = [BroadcastAddOp, BroadcastSubOp, BroadcastMulOp, BroadcastDivOp, BroadcastRemOp, BroadcastMaxOp,
                    BroadcastMinOp, BroadcastPowOp, BroadcastAndOp, BroadcastOrOp, BroadcastXorOp, BroadcastAtan2Op,
                    BroadcastCompareOp]
UNARY_OPS = [ErfOp, ErfcOp, SinhOp, CoshOp, AsinhOp, AcoshOp, AtanhOp, AsinOp, AcosOp, AtanOp, TanOp]


def build_dialect():
    """The ``chlo`` Dialect (input only)."""
    return Dialect("chlo", BROADCASTING_OPS + UNARY_OPS + [TopKOp], [])

