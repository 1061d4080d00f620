"""``tensor`` as xDSL 0.74.0 defines it, plus ``tensor.bitcast``.

xDSL 0.74.0 already has cast, concat, dim, empty, collapse/expand_shape, reshape,
extract(_slice), insert(_slice), from_elements, splat, pad. rt adds ``tensor.bitcast %t :
tensor<4xi32> to tensor<4xf32>`` (same shape, same element width). ``tensor.gather`` and
``tensor.scatter`` are deliberately absent: rt rejects them with a located "not supported" error.

Source followed: MLIR ``TensorOps.td``.
"""
from xdsl.dialects import tensor as xtensor
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Dialect
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, result_def, traits_def
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException


@irdl_op_definition
class BitcastOp(IRDLOperation):
    """``tensor.bitcast %t : tensor<4xi32> to tensor<4xf32>``."""

    name = "tensor.bitcast"
    source = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$source attr-dict `:` type($source) `to` type($result)"

    def verify_(self):
        src, dst = self.source.type, self.result.type
        if src.get_shape() != dst.get_shape():
            raise VerifyException(f"tensor.bitcast: shapes differ ({src} vs {dst})")
        if src.element_type.bitwidth != dst.element_type.bitwidth:
            raise VerifyException(f"tensor.bitcast: element widths differ ({src} vs {dst})")


def build_dialect():
    """xDSL's tensor Dialect plus rt's extra ops."""
    return Dialect("tensor", list(xtensor.Tensor.operations) + [BitcastOp], list(xtensor.Tensor.attributes))
