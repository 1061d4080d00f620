"""The ``stablehlo`` dialect as JAX exports it and IREE's e2e tests write it (input only).

rt reads StableHLO programs and converts them to linalg/tensor/arith/math in the input phase
(``passes/input/stablehlo_to_iree_input.py``); no stablehlo op survives that pass. Ops carry
their StableHLO attributes as op attributes (the generic form ``"stablehlo.compare"(%a, %b)
{comparison_direction = #stablehlo<comparison_direction EQ>} : (...) -> ...`` puts them there),
and each op reads both the generic form and the pretty form JAX prints
(``stablehlo.add %0, %1 : tensor<4xf32>``).

Ops (StableHLO spec names): the elementwise unary and binary ops, ``compare``, ``select``,
``clamp``, ``convert``, ``bitcast_convert``, ``constant``, ``iota``, ``broadcast_in_dim``,
``broadcast``, ``reshape``, ``transpose``, ``dot``, ``dot_general``, ``reduce``,
``reduce_window``, ``convolution``, ``gather``, ``scatter``, ``sort``, ``torch_index_select``, ``concatenate``,
``slice``, ``dynamic_slice``, ``dynamic_update_slice``, ``reverse``, ``pad``,
``batch_norm_inference``, ``while``, ``if``, ``case``, ``custom_call``, ``return``, ``complex``,
``real``, ``imag``, ``fft``, and the dynamic-shape ops ``jax.export`` writes for symbolic dimensions
(``_stablehlo_dynamic.py``). The
attributes are in ``_stablehlo_attrs.py``, the op bases and type directives in
``_stablehlo_syntax.py``, the structural ops' pretty forms in ``_stablehlo_forms.py``. The
generic form's ``<{...}>`` properties (recent MLIR prints JAX's gather that way) are read as
attributes too.

Source followed: the StableHLO specification (openxla/stablehlo ``docs/spec.md``) and its
``StablehloOps.td`` / ``StablehloAttrs.td`` for names and printed forms.
"""
from typing import ClassVar

from xdsl.dialects.builtin import ComplexType, TensorType
from xdsl.ir import Dialect
from xdsl.irdl import (irdl_op_definition, operand_def, opt_attr_def,
                       region_def, traits_def, var_operand_def, var_region_def, var_result_def)
from xdsl.traits import Pure

from rt.compiler.dialects._format import AttrDict, Operand, Operands, OpFormat
from rt.compiler.dialects._stablehlo_dynamic import DYNAMIC_OPS
from rt.compiler.dialects._stablehlo_forms import ConvolutionForm, Generic, ReduceForm, WhileForm
from rt.compiler.dialects._stablehlo_syntax import (Binary, CallTarget, Compare, ConstantValue, Convert, HloAttrDict,
                                                    HloOp, LoopOp, PropertiesAsAttributes, ReturnOp, Select,
                                                    TypesOrFunction, Unary)
from rt.compiler.dialects._stablehlo_attrs import (ComparisonDirectionAttr, ComparisonTypeAttr,
                                                   ConvDimensionNumbersAttr, DotDimensionNumbersAttr, FftTypeAttr,
                                                   GatherDimensionNumbersAttr, PrecisionAttr,
                                                   RngAlgorithmAttr, RngDistributionAttr,
                                                   ScatterDimensionNumbersAttr)


# ---------------------------------------------------------------------------------------------
# Elementwise ops


@irdl_op_definition
class AbsOp(Unary):
    name = "stablehlo.abs"


@irdl_op_definition
class CbrtOp(Unary):
    name = "stablehlo.cbrt"


@irdl_op_definition
class CeilOp(Unary):
    name = "stablehlo.ceil"


@irdl_op_definition
class CosineOp(Unary):
    name = "stablehlo.cosine"


@irdl_op_definition
class CountLeadingZerosOp(Unary):
    name = "stablehlo.count_leading_zeros"


@irdl_op_definition
class ExpOp(Unary):
    name = "stablehlo.exponential"


@irdl_op_definition
class Expm1Op(Unary):
    name = "stablehlo.exponential_minus_one"


@irdl_op_definition
class FloorOp(Unary):
    name = "stablehlo.floor"


@irdl_op_definition
class IsFiniteOp(Unary):
    name = "stablehlo.is_finite"


@irdl_op_definition
class LogOp(Unary):
    name = "stablehlo.log"


@irdl_op_definition
class Log1pOp(Unary):
    name = "stablehlo.log_plus_one"


@irdl_op_definition
class LogisticOp(Unary):
    name = "stablehlo.logistic"


@irdl_op_definition
class NegOp(Unary):
    name = "stablehlo.negate"


@irdl_op_definition
class NotOp(Unary):
    name = "stablehlo.not"


@irdl_op_definition
class PopulationCountOp(Unary):
    name = "stablehlo.popcnt"


@irdl_op_definition
class RoundOp(Unary):
    name = "stablehlo.round_nearest_afz"


@irdl_op_definition
class RoundNearestEvenOp(Unary):
    name = "stablehlo.round_nearest_even"


@irdl_op_definition
class RsqrtOp(Unary):
    name = "stablehlo.rsqrt"


@irdl_op_definition
class SignOp(Unary):
    name = "stablehlo.sign"


@irdl_op_definition
class SineOp(Unary):
    name = "stablehlo.sine"


@irdl_op_definition
class SqrtOp(Unary):
    name = "stablehlo.sqrt"


@irdl_op_definition
class TanOp(Unary):
    name = "stablehlo.tan"


@irdl_op_definition
class TanhOp(Unary):
    name = "stablehlo.tanh"


@irdl_op_definition
class AddOp(Binary):
    name = "stablehlo.add"


@irdl_op_definition
class AndOp(Binary):
    name = "stablehlo.and"


@irdl_op_definition
class Atan2Op(Binary):
    name = "stablehlo.atan2"


@irdl_op_definition
class DivOp(Binary):
    name = "stablehlo.divide"


@irdl_op_definition
class MaxOp(Binary):
    name = "stablehlo.maximum"


@irdl_op_definition
class MinOp(Binary):
    name = "stablehlo.minimum"


@irdl_op_definition
class MulOp(Binary):
    name = "stablehlo.multiply"


@irdl_op_definition
class OrOp(Binary):
    name = "stablehlo.or"


@irdl_op_definition
class PowOp(Binary):
    name = "stablehlo.power"


@irdl_op_definition
class RemOp(Binary):
    name = "stablehlo.remainder"


@irdl_op_definition
class ShiftLeftOp(Binary):
    name = "stablehlo.shift_left"


@irdl_op_definition
class ShiftRightArithmeticOp(Binary):
    name = "stablehlo.shift_right_arithmetic"


@irdl_op_definition
class ShiftRightLogicalOp(Binary):
    name = "stablehlo.shift_right_logical"


@irdl_op_definition
class SubtractOp(Binary):
    name = "stablehlo.subtract"


@irdl_op_definition
class XorOp(Binary):
    name = "stablehlo.xor"


@irdl_op_definition
class CompareOp(Compare):
    """``stablehlo.compare EQ, %a, %b, FLOAT : (t, t) -> i1-tensor``."""

    name = "stablehlo.compare"
    comparison_direction = opt_attr_def(ComparisonDirectionAttr)
    compare_type = opt_attr_def(ComparisonTypeAttr)


@irdl_op_definition
class SelectOp(Select):
    """``stablehlo.select %pred, %on_true, %on_false : tensor<..xi1>, tensor<..>``."""

    name = "stablehlo.select"


@irdl_op_definition
class ClampOp(Generic):
    """``stablehlo.clamp %min, %operand, %max : (t0, t, t0) -> t`` (``min``/``max`` scalar or full)."""

    name = "stablehlo.clamp"


@irdl_op_definition
class ConvertOp(Convert):
    """``stablehlo.convert %x : (tensor<..xA>) -> tensor<..xB>``."""

    name = "stablehlo.convert"


@irdl_op_definition
class BitcastConvertOp(Convert):
    name = "stablehlo.bitcast_convert"


@irdl_op_definition
class ReshapeOp(Convert):
    """``stablehlo.reshape %x : (tensor<4x4xf32>) -> tensor<16xf32>``."""

    name = "stablehlo.reshape"


# ---------------------------------------------------------------------------------------------
# Complex numbers (``passes/input/lower_complex.py`` splits them into real and imaginary parts)


class _ComplexTypes(TypesOrFunction):
    """`` tensor<..xcomplex<f32>>`` (both parts then are ``tensor<..xf32>``) or a function type."""

    def __init__(self):
        super().__init__(["lhs", "rhs"], ["result"])

    def parse(self, state):
        super().parse(state)
        result = state.types["result"]
        if state.types["lhs"] is result and isinstance(result.get_element_type(), ComplexType):
            part = TensorType(result.get_element_type().element_type, result.get_shape())
            state.types["lhs"] = state.types["rhs"] = part

    def print(self, op, printer):
        element = op.result.type.get_element_type()
        if isinstance(element, ComplexType) and op.lhs.type == op.rhs.type == TensorType(
                element.element_type, op.result.type.get_shape()):
            printer.print_attribute(op.result.type)
            return
        super().print(op, printer)


@irdl_op_definition
class ComplexOp(Binary):
    """``stablehlo.complex %re, %im : tensor<4xcomplex<f32>>``: a complex tensor from its parts."""

    name = "stablehlo.complex"
    FORMAT: ClassVar = OpFormat(" ", Operand("lhs"), ", ", Operand("rhs"), AttrDict(), " : ", _ComplexTypes())


@irdl_op_definition
class RealOp(Convert):
    """``stablehlo.real %z : (tensor<4xcomplex<f32>>) -> tensor<4xf32>`` (a real operand: itself)."""

    name = "stablehlo.real"


@irdl_op_definition
class ImagOp(Convert):
    """``stablehlo.imag %z : (tensor<4xcomplex<f32>>) -> tensor<4xf32>`` (a real operand: zeros)."""

    name = "stablehlo.imag"


@irdl_op_definition
class FftOp(Generic):
    """``stablehlo.fft %x, type = RFFT, length = [32] : (tensor<32xf32>) -> tensor<17xcomplex<f32>>``
    (attributes ``fft_type``, ``fft_length``): a DFT over the last ``len(fft_length)`` dims."""

    name = "stablehlo.fft"


# ---------------------------------------------------------------------------------------------
# Structural ops


@irdl_op_definition
class ConstantOp(Generic):
    """``stablehlo.constant dense<...> : tensor<..>`` (attribute ``value``)."""

    name = "stablehlo.constant"
    FORMAT: ClassVar = OpFormat(HloAttrDict("value"), ConstantValue())


@irdl_op_definition
class CustomCallOp(HloOp):
    """``stablehlo.custom_call @target(%args) {...} : (...) -> (...)`` (generic form; the target is
    ``call_target_name``). rt converts only ``@shape_assertion`` (dropped, as IREE does)."""

    name = "stablehlo.custom_call"
    inputs = var_operand_def()
    outputs = var_result_def()
    FORMAT: ClassVar = OpFormat(CallTarget(), Operands("inputs", "()"), HloAttrDict("call_target_name"), " : ",
                                TypesOrFunction(["inputs"], ["outputs"]))


@irdl_op_definition
class IotaOp(Generic):
    """``stablehlo.iota dim = 0 : tensor<4xi32>`` (attribute ``iota_dimension``)."""

    name = "stablehlo.iota"


@irdl_op_definition
class BroadcastInDimOp(Generic):
    """``stablehlo.broadcast_in_dim %x, dims = [1] : (tensor<4xf32>) -> tensor<3x4xf32>``."""

    name = "stablehlo.broadcast_in_dim"


@irdl_op_definition
class BroadcastOp(Generic):
    """``stablehlo.broadcast %x, sizes = [3] : (tensor<4xf32>) -> tensor<3x4xf32>`` (new leading dims)."""

    name = "stablehlo.broadcast"


@irdl_op_definition
class TransposeOp(Generic):
    """``stablehlo.transpose %x, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>``."""

    name = "stablehlo.transpose"


@irdl_op_definition
class DotOp(Generic):
    """``stablehlo.dot %a, %b : (tensor<MxK>, tensor<KxN>) -> tensor<MxN>`` (ranks 1 and 2)."""

    name = "stablehlo.dot"


@irdl_op_definition
class DotGeneralOp(Generic):
    """``stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1]``."""

    name = "stablehlo.dot_general"


@irdl_op_definition
class ConcatenateOp(Generic):
    """``stablehlo.concatenate %a, %b, dim = 0 : (tensor<2xf32>, tensor<3xf32>) -> tensor<5xf32>``."""

    name = "stablehlo.concatenate"


@irdl_op_definition
class SliceOp(Generic):
    """``stablehlo.slice %x [0:2, 1:4:2] : (...) -> ...`` (start_indices, limit_indices, strides)."""

    name = "stablehlo.slice"


@irdl_op_definition
class ReverseOp(Generic):
    """``stablehlo.reverse %x, dims = [0] : tensor<4xf32>``."""

    name = "stablehlo.reverse"


@irdl_op_definition
class PadOp(Generic):
    """``stablehlo.pad %x, %v, low = [1], high = [2], interior = [0] : (...) -> ...``."""

    name = "stablehlo.pad"


@irdl_op_definition
class DynamicSliceOp(Generic):
    """``stablehlo.dynamic_slice %x, %i, %j, sizes = [2, 2]``: start indices clamped into the operand."""

    name = "stablehlo.dynamic_slice"


@irdl_op_definition
class DynamicUpdateSliceOp(Generic):
    """``stablehlo.dynamic_update_slice %x, %update, %i, %j``: start indices clamped into the operand."""

    name = "stablehlo.dynamic_update_slice"


@irdl_op_definition
class TorchIndexSelectOp(Generic):
    """``"stablehlo.torch_index_select"(%x, %idx) {dim = 0, batch_dims = 0}``: rows of ``x`` by index."""

    name = "stablehlo.torch_index_select"


@irdl_op_definition
class BatchNormInferenceOp(Generic):
    """``stablehlo.batch_norm_inference`` (operand, scale, offset, mean, variance; ``epsilon``,
    ``feature_index``): ``(x - mean) * scale / sqrt(variance + epsilon) + offset``."""

    name = "stablehlo.batch_norm_inference"


@irdl_op_definition
class WhileOp(LoopOp):
    """``stablehlo.while(%i = %init, ...) : t, ... cond { ... } do { ... }`` (or the generic form
    with the ``cond`` and ``body`` regions); both regions end in ``stablehlo.return``."""

    name = "stablehlo.while"
    FORMAT: ClassVar = OpFormat(WhileForm())


@irdl_op_definition
class IfOp(PropertiesAsAttributes):
    """``"stablehlo.if"(%pred) ({...}, {...})``: runs one of two regions by a ``tensor<i1>``."""

    name = "stablehlo.if"
    pred = operand_def()
    outputs = var_result_def()
    true_branch = region_def()
    false_branch = region_def()


@irdl_op_definition
class CaseOp(PropertiesAsAttributes):
    """``"stablehlo.case"(%index) ({...}, ..., {...})``: runs branch ``index`` (the last one when
    ``index`` is out of range)."""

    name = "stablehlo.case"
    index = operand_def()
    outputs = var_result_def()
    branches = var_region_def()


@irdl_op_definition
class GatherOp(Generic):
    """``"stablehlo.gather"(%operand, %start_indices) {dimension_numbers = #stablehlo.gather<...>,
    slice_sizes = array<i64: ...>}``."""

    name = "stablehlo.gather"


@irdl_op_definition
class ConvolutionOp(Generic):
    """``"stablehlo.convolution"(%lhs, %rhs) {dimension_numbers = #stablehlo.conv<...>,
    window_strides, padding, lhs_dilation, rhs_dilation, feature_group_count, batch_group_count}``."""

    name = "stablehlo.convolution"
    FORMAT: ClassVar = OpFormat(ConvolutionForm())


class _RegionOp(HloOp):
    """Operands, results and one region, in the generic form (``reduce_window``, ``sort``, ``scatter``)."""

    inputs = var_operand_def()
    outputs = var_result_def()
    body = region_def()
    traits = traits_def(Pure())
    FORMAT: ClassVar = OpFormat(" ", Operands("inputs"), AttrDict(), " : ", TypesOrFunction(["inputs"], ["outputs"]))


@irdl_op_definition
class ReduceWindowOp(_RegionOp):
    """``"stablehlo.reduce_window"(%x, %init) ({...}) {window_dimensions, window_strides,
    base_dilations, window_dilations, padding}`` (generic form)."""

    name = "stablehlo.reduce_window"


@irdl_op_definition
class RngOp(Generic):
    """``stablehlo.rng %a, %b, %shape, distribution = UNIFORM : (...) -> tensor<...>``."""

    name = "stablehlo.rng"


@irdl_op_definition
class RngBitGeneratorOp(Generic):
    """``stablehlo.rng_bit_generator %state, algorithm = PHILOX : (tensor<2xui64>) -> (tensor<2xui64>,
    tensor<8xui32>)``: (output state, random bits)."""

    name = "stablehlo.rng_bit_generator"


@irdl_op_definition
class SortOp(_RegionOp):
    """``"stablehlo.sort"(%a, %b) ({ comparator }) {dimension = 0, is_stable = true}`` (generic form);
    the comparator takes (lhs, rhs) pairs of every operand and returns whether lhs goes first."""

    name = "stablehlo.sort"


@irdl_op_definition
class ScatterOp(_RegionOp):
    """``"stablehlo.scatter"(%operand, %indices, %updates) ({ combiner }) {scatter_dimension_numbers =
    #stablehlo.scatter<...>}`` (generic form; one operand)."""

    name = "stablehlo.scatter"


@irdl_op_definition
class ReduceOp(HloOp):
    """``stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1]`` or the
    generic form with a ``body`` region taking and returning 0-d tensors."""

    name = "stablehlo.reduce"
    inputs = var_operand_def()
    outputs = var_result_def()
    body = region_def()
    traits = traits_def(Pure())
    FORMAT: ClassVar = OpFormat(ReduceForm())


STABLEHLO_OPS = [
    AbsOp, CbrtOp, CeilOp, CosineOp, CountLeadingZerosOp, ExpOp, Expm1Op, FloorOp, IsFiniteOp, LogOp,
    Log1pOp, LogisticOp, NegOp, NotOp, PopulationCountOp, RoundOp, RoundNearestEvenOp, RsqrtOp, SignOp,
    SineOp, SqrtOp, TanOp, TanhOp, AddOp, AndOp, Atan2Op, DivOp, MaxOp, MinOp, MulOp, OrOp, PowOp, RemOp,
    ShiftLeftOp, ShiftRightArithmeticOp, ShiftRightLogicalOp, SubtractOp, XorOp, CompareOp, SelectOp,
    ClampOp, ConvertOp, BitcastConvertOp, ReshapeOp, ConstantOp, IotaOp, BroadcastInDimOp, BroadcastOp,
    TransposeOp, DotOp, DotGeneralOp, ConcatenateOp, SliceOp, ReverseOp, PadOp, ReduceOp, CustomCallOp, ReturnOp, DynamicSliceOp,
    DynamicUpdateSliceOp, TorchIndexSelectOp, BatchNormInferenceOp, WhileOp, IfOp, CaseOp, GatherOp, ConvolutionOp,
    ReduceWindowOp, ScatterOp, SortOp, RngOp, RngBitGeneratorOp, ComplexOp, RealOp, ImagOp, FftOp,
] + DYNAMIC_OPS

STABLEHLO_ATTRS = [ComparisonDirectionAttr, ComparisonTypeAttr, PrecisionAttr, DotDimensionNumbersAttr,
                   GatherDimensionNumbersAttr, ConvDimensionNumbersAttr, ScatterDimensionNumbersAttr,
                   RngDistributionAttr, RngAlgorithmAttr, FftTypeAttr]


def build_dialect():
    """The ``stablehlo`` Dialect (input only: converted away in the input phase)."""
    return Dialect("stablehlo", STABLEHLO_OPS, STABLEHLO_ATTRS)


