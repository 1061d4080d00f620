"""Host-side ``flow`` tensor ops that give a tensor a value, a shape or an element type.

Printed forms (IREE's; ``{%d}`` lists the dynamic dims of the type before it):
``flow.tensor.constant dense<1.0> : tensor<4xf32>``,
``flow.tensor.dynamic_constant dense<1.0> : tensor<4x2xf32> -> tensor<?x2xf32>``,
``flow.tensor.reshape %t : tensor<?x10xf32>{%d} -> tensor<?xf32>{%n}``,
``flow.tensor.bitcast %t : tensor<4xi8> -> tensor<1xi32>``,
``flow.tensor.tie_shape %t : tensor<?x?xf32>{%h, %w}``.

Semantics:

* ``dynamic_constant`` is a constant whose ``?`` dims the compiler must not see through (tests
  use it to exercise dynamic shapes). Its canonicalization expands it as IREE's does
  (ExpandDynamicShapeConstant): a static ``flow.tensor.constant``, each dynamic dim an
  ``arith.constant`` behind a ``util.optimization_barrier``, and a ``flow.tensor.reshape`` to
  the dynamic type.
* ``reshape`` reinterprets the row-major contents with a new shape (element bit widths equal);
  ``bitcast`` also changes the element type; both keep the byte size. They become
  ``stream.tensor.clone`` ops (IREE's ConvertTensorCastLikeOp).
* ``tie_shape`` is the operand itself, with its dynamic dims given: ``tensor.dim`` of it folds to
  those values.

Verifiers check what IREE's do (one dim value per ``?``; equal bit widths for reshape) and, beyond
IREE, every static fact: element counts of a static reshape, byte sizes of a static bitcast,
the static dims and element type of a dynamic constant.

Source followed: IREE ``Dialect/Flow/IR/FlowOps.td`` / ``FlowOps.cpp`` / ``FlowOpFolders.cpp``
(Flow_TensorConstantOp, Flow_TensorDynamicConstantOp, Flow_TensorReshapeOp,
Flow_TensorBitCastOp, Flow_TensorTieShapeOp) and ``Stream/Conversion/FlowToStream/Patterns.cpp``.
"""
from typing import ClassVar

from xdsl.dialects import arith
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, IntegerAttr, TensorType, TypedAttribute
from xdsl.irdl import AttrSizedOperandSegments, irdl_op_definition, operand_def, prop_def, result_def
from xdsl.irdl import traits_def, var_operand_def
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.traits import HasCanonicalizationPatternsTrait, Pure
from xdsl.utils.exceptions import VerifyException

from rt.compiler.dialects._directives import TypedAttr
from rt.compiler.dialects._format import AttrDict, FormattedOp, Operand, OpFormat, Sized, Type
from rt.compiler.dialects.flow_types import check_dims, static_extents, static_storage_bits, storage_bits
from rt.compiler.dialects.util import OptimizationBarrierOp

INDEX = IndexType()


@irdl_op_definition
class TensorConstantOp(FormattedOp):
    """``flow.tensor.constant dense<[1.0, 2.0]> : tensor<2xf32>``: a tensor constant on the host."""

    name = "flow.tensor.constant"
    value = prop_def(TypedAttribute)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    FORMAT: ClassVar = OpFormat(AttrDict(), " ", TypedAttr("value", "result", tensor=True))

    def verify_(self):
        if self.value.get_type() != self.result.type:
            raise VerifyException(f"value type {self.value.get_type()} differs from result type {self.result.type}")


class _DynamicConstantCanonicalization(HasCanonicalizationPatternsTrait):
    @classmethod
    def get_canonicalization_patterns(cls):
        return (ExpandDynamicShapeConstant(),)


@irdl_op_definition
class TensorDynamicConstantOp(FormattedOp):
    """``flow.tensor.dynamic_constant dense<..> : tensor<4x2xf32> -> tensor<?x2xf32>``.

    A constant whose dynamic dims stay opaque to the compiler; the value's type is static and
    has the result's rank, element type and static dims.
    """

    name = "flow.tensor.dynamic_constant"
    value = prop_def(TypedAttribute)
    result = result_def(TensorType)
    traits = traits_def(_DynamicConstantCanonicalization())

    FORMAT: ClassVar = OpFormat(AttrDict(), " ", TypedAttr("value", tensor=True), " -> ", Type("result"))

    def verify_(self):
        value_type, result_type = self.value.get_type(), self.result.type
        if not isinstance(result_type, TensorType):
            raise VerifyException(f"result must be a ranked tensor, got {result_type}")
        if DYNAMIC_INDEX in value_type.get_shape():
            raise VerifyException(f"the value's type {value_type} must be static")
        compatible = value_type.element_type == result_type.element_type and len(value_type.get_shape()) == len(
            result_type.get_shape()) and all(r in (DYNAMIC_INDEX, v) for v, r in zip(value_type.get_shape(),
                                                                                        result_type.get_shape()))
        if not compatible:
            raise VerifyException(f"result type {result_type} is not a dynamic form of the value's type {value_type} "
                                  f"(same rank and element type; each dim '?' or equal)")


class ExpandDynamicShapeConstant(RewritePattern):
    """``flow.tensor.dynamic_constant`` -> constant + opaque dims + ``flow.tensor.reshape`` (IREE's pattern)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TensorDynamicConstantOp, rewriter: PatternRewriter):
        static_type = op.value.get_type()
        constant = TensorConstantOp.build(result_types=[static_type], properties={"value": op.value})
        new_ops, dims = [constant], []
        for size, static in zip(op.result.type.get_shape(), static_type.get_shape()):
            if size != DYNAMIC_INDEX:
                continue
            dim = arith.ConstantOp(IntegerAttr(static, INDEX))
            barrier = OptimizationBarrierOp.build(operands=[[dim.result]], result_types=[[INDEX]])
            new_ops += [dim, barrier]
            dims.append(barrier.results[0])
        reshape = TensorReshapeOp.build(operands=[constant.result, [], dims], result_types=[op.result.type])
        for new in new_ops + [reshape]:
            new.location = op.location
        rewriter.replace(op, new_ops + [reshape], [reshape.result])


class _CastLikeOp(FormattedOp):
    """``<op> %t : T{dims} -> U{dims}``: the same bytes seen with another type (reshape, bitcast)."""

    source = operand_def(TensorType)
    source_dims = var_operand_def(INDEX)
    result_dims = var_operand_def(INDEX)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    FORMAT: ClassVar = OpFormat(" ", Operand("source"), " : ", Sized("source", "source_dims"), " -> ",
                                Sized("result", "result_dims"), AttrDict(keyword=True))

    def verify_(self):
        check_dims(self.name, "source type", self.source.type, self.source_dims)
        check_dims(self.name, "result type", self.result.type, self.result_dims)


@irdl_op_definition
class TensorReshapeOp(_CastLikeOp):
    """``flow.tensor.reshape %t : tensor<1x10xf32>{dims} -> tensor<10xf32>{dims}``: metadata-only reshape."""

    name = "flow.tensor.reshape"

    def verify_(self):
        super().verify_()
        source, result = self.source.type, self.result.type
        if storage_bits(source) != storage_bits(result) or (
                storage_bits(source) is None and source.element_type != result.element_type):
            raise VerifyException(f"element bit widths must match ({source} -> {result})")
        counts = []
        for type_, dims in ((source, self.source_dims), (result, self.result_dims)):
            extents = static_extents(type_, dims)
            counts.append(None if None in extents else _product(extents))
        if None not in counts and counts[0] != counts[1]:
            raise VerifyException(f"source {source} has {counts[0]} elements but result {result} has {counts[1]}")


@irdl_op_definition
class TensorBitCastOp(_CastLikeOp):
    """``flow.tensor.bitcast %t : tensor<4xi8> -> tensor<1xi32>``: same bytes, new element type and shape."""

    name = "flow.tensor.bitcast"

    def verify_(self):
        super().verify_()
        source = static_storage_bits(self.source.type, self.source_dims)
        result = static_storage_bits(self.result.type, self.result_dims)
        if source is not None and result is not None and source != result:
            raise VerifyException(f"source {self.source.type} holds {_size(source)} but result {self.result.type} "
                                  f"holds {_size(result)}; a bitcast keeps the byte size")


@irdl_op_definition
class TensorTieShapeOp(FormattedOp):
    """``flow.tensor.tie_shape %t : tensor<?x?xf32>{%h, %w}``: ``%t`` with its dynamic dims given."""

    name = "flow.tensor.tie_shape"
    operand = operand_def(TensorType)
    dynamic_dims = var_operand_def(INDEX)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    FORMAT: ClassVar = OpFormat(" ", Operand("operand"), AttrDict(), " : ", Sized(("result", "operand"),
                                                                                   "dynamic_dims"))

    def verify_(self):
        check_dims(self.name, "result type", self.result.type, self.dynamic_dims)
        if self.operand.type != self.result.type:
            raise VerifyException(f"operand {self.operand.type} and result {self.result.type} differ")


def _product(values):
    total = 1
    for v in values:
        total *= v
    return total


def _size(bits):
    return f"{bits // 8} bytes" if bits % 8 == 0 else f"{bits} bits"
