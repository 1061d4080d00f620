"""Host-side tensor ops of the ``flow`` dialect that create, copy or move tensors.

Printed forms (IREE's; ``{%d}`` lists the dynamic dims of the type before it; attributes follow
the ``attributes`` keyword at the end):
``flow.tensor.transfer %t : tensor<4xf32> to #hal.device.affinity<@dev>``,
``flow.tensor.empty : tensor<?xf32>{%d}``, ``flow.tensor.alloca : tensor<?xf32>{%d}``,
``flow.tensor.splat %f : tensor<?x4xf32>{%d}``, ``flow.tensor.clone %t : tensor<?xf32>{%d}``,
``flow.tensor.slice %t[%o0, %o1 for %l0, %l1] : tensor<8x8xf32> -> tensor<2x8xf32>``,
``flow.tensor.update %u, %t[%o0, %o1] : tensor<2x8xf32> -> %t as tensor<8x8xf32>``,
``flow.tensor.load %t[%i] : tensor<4xf32>``, ``flow.tensor.store %f, %t[%i] : tensor<4xf32>``,
``flow.tensor.trace "key" = [%t : tensor<?xf32>{%d}]``.
Constants, reshapes, bitcasts and ``tie_shape`` are in :mod:`.flow_tensor_shape`.

Verifiers check what IREE's do (one dim value per ``?``, matching element types and ranks) and,
beyond IREE, every static fact: a slice, update, load or store whose constant offsets leave the
tensor is an error (``slice along dimension 0 runs out-of-bounds: 3 + 2 > 4``).

Source followed: IREE ``compiler/src/iree/compiler/Dialect/Flow/IR/FlowOps.td`` (Flow_Tensor*Op)
and ``FlowOps.cpp`` (their verifiers).
"""
from typing import ClassVar

from xdsl.dialects.builtin import IndexType, StringAttr, TensorType
from xdsl.ir import Attribute
from xdsl.irdl import (
    AttrSizedOperandSegments,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from rt.compiler.dialects._directives import Derived
from rt.compiler.dialects._format import (
    Attr,
    AttrDict,
    FormattedOp,
    Operand,
    Operands,
    OpFormat,
    Opt,
    Sized,
    SizedOperandList,
    Str,
    Tied,
)
from rt.compiler.dialects.flow_types import check_dims, constant_index, static_extents

INDEX = IndexType()


def _check_same(what, a, b):
    if a != b:
        raise VerifyException(f"{what}: {a} and {b} differ")


def _check_window(kind, extents, offsets, lengths):
    """Raise when a constant ``offset + length`` runs past a static extent (``None`` = unknown)."""
    for d, (extent, offset, length) in enumerate(zip(extents, offsets, lengths)):
        if offset is not None and offset < 0:
            raise VerifyException(f"{kind} along dimension {d} has a negative offset {offset}")
        if extent is None or offset is None or length is None:
            continue
        if offset + length > extent:
            raise VerifyException(f"{kind} along dimension {d} runs out-of-bounds: {offset} + {length} > {extent}")


@irdl_op_definition
class TensorTransferOp(FormattedOp):
    """``flow.tensor.transfer %t : tensor<..>{dims} to #hal.device.affinity<@dev>``: move to a device."""

    name = "flow.tensor.transfer"
    operand = operand_def(TensorType)
    operand_dims = var_operand_def(INDEX)
    target = prop_def(Attribute)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    FORMAT: ClassVar = OpFormat(" ", Operand("operand"), " : ", Sized(("operand", "result"), "operand_dims"), " to ",
                                Attr("target"), AttrDict(keyword=True))

    def verify_(self):
        check_dims(self.name, "operand type", self.operand.type, self.operand_dims)
        _check_same("operand and result types", self.operand.type, self.result.type)


class _SizedResultOp(FormattedOp):
    """``<op> : tensor<...>{dims}``: a new tensor of the given type (empty, alloca)."""

    result_dims = var_operand_def(INDEX)
    result = result_def(TensorType)
    FORMAT: ClassVar = OpFormat(" : ", Sized("result", "result_dims"), AttrDict(keyword=True))

    def verify_(self):
        check_dims(self.name, "result type", self.result.type, self.result_dims)


@irdl_op_definition
class TensorEmptyOp(_SizedResultOp):
    """``flow.tensor.empty : tensor<?x4xf32>{%d}``: an uninitialized tensor (no storage until used)."""

    name = "flow.tensor.empty"
    traits = traits_def(Pure())


@irdl_op_definition
class TensorAllocaOp(_SizedResultOp):
    """``flow.tensor.alloca : tensor<?x4xf32>{%d}``: a fresh, uninitialized, distinct tensor."""

    name = "flow.tensor.alloca"


def _value_sized_format(value, value_type=None):
    """``%v : tensor<...>{dims} attributes {..}?`` (`` {..}`` before the colon also parses); the
    value's type is ``value_type(result type)``, or the result type itself."""
    if value_type is None:
        return OpFormat(" ", Operand(value), AttrDict(printed=False), " : ", Sized(("result", value), "result_dims"),
                        AttrDict(keyword=True))
    return OpFormat(" ", Operand(value), AttrDict(printed=False), " : ", Sized("result", "result_dims"),
                    AttrDict(keyword=True), Derived(value, "result", value_type))


class _ValueSizedOp(FormattedOp):
    """``<op> %v : tensor<...>{dims}``: splat/clone shape; operand 0 is the value."""

    def verify_(self):
        check_dims(self.name, "result type", self.result.type, self.result_dims)


@irdl_op_definition
class TensorSplatOp(_ValueSizedOp):
    """``flow.tensor.splat %f : tensor<?x4xf32>{%d}``: a tensor filled with one scalar (never expanded)."""

    name = "flow.tensor.splat"
    value = operand_def()
    result_dims = var_operand_def(INDEX)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    FORMAT: ClassVar = _value_sized_format("value", lambda result_type: result_type.element_type)

    def verify_(self):
        super().verify_()
        if self.value.type != self.result.type.element_type:
            raise VerifyException(f"value type {self.value.type} is not the element type of {self.result.type}")


@irdl_op_definition
class TensorCloneOp(_ValueSizedOp):
    """``flow.tensor.clone %t : tensor<?x4xf32>{%d}``: a copy that may be mutated independently."""

    name = "flow.tensor.clone"
    operand = operand_def(TensorType)
    result_dims = var_operand_def(INDEX)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    FORMAT: ClassVar = _value_sized_format("operand")

    def verify_(self):
        super().verify_()
        _check_same("operand and result types", self.operand.type, self.result.type)


@irdl_op_definition
class TensorSliceOp(FormattedOp):
    """``flow.tensor.slice %t[%o0, %o1 for %l0, %l1] : tensor<8x8xf32> -> tensor<2x8xf32>``.

    Offsets and lengths are index values, one per dim of the source; the result (whose shape is
    the lengths) is a copy.
    """

    name = "flow.tensor.slice"
    source = operand_def(TensorType)
    source_dims = var_operand_def(INDEX)
    start_indices = var_operand_def(INDEX)
    lengths = var_operand_def(INDEX)
    result_dims = var_operand_def(INDEX)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    FORMAT: ClassVar = OpFormat(" ", Operand("source"), "[", Operands("start_indices"), " for ", Operands("lengths"),
                                "] : ", Sized("source", "source_dims"), " -> ", Sized("result", "result_dims"),
                                AttrDict(keyword=True))

    def verify_(self):
        check_dims(self.name, "source type", self.source.type, self.source_dims)
        check_dims(self.name, "result type", self.result.type, self.result_dims)
        source, result = self.source.type, self.result.type
        rank = len(source.get_shape())
        if len(self.start_indices) != rank or len(self.lengths) != rank:
            raise VerifyException(f"expected {rank} offsets and lengths for {source}, got "
                                  f"{len(self.start_indices)} and {len(self.lengths)}")
        if len(result.get_shape()) != rank or result.element_type != source.element_type:
            raise VerifyException(f"result {result} must have the rank and element type of the source {source}")
        lengths = [constant_index(v) for v in self.lengths]
        for d, (length, size) in enumerate(zip(lengths, static_extents(result, self.result_dims))):
            if length is not None and size is not None and length != size:
                raise VerifyException(f"length {length} of dimension {d} differs from the result type {result}")
        _check_window("slice", static_extents(source, self.source_dims),
                      [constant_index(v) for v in self.start_indices], lengths)


@irdl_op_definition
class TensorUpdateOp(FormattedOp):
    """``flow.tensor.update %u, %t[%o0, %o1] : tensor<2x8xf32> -> %t as tensor<8x8xf32>``.

    Writes ``%u`` into ``%t`` at the offsets (one index per dim); the result is tied to ``%t``.
    """

    name = "flow.tensor.update"
    target = operand_def(TensorType)
    target_dims = var_operand_def(INDEX)
    start_indices = var_operand_def(INDEX)
    update = operand_def(TensorType)
    update_dims = var_operand_def(INDEX)
    result = result_def(TensorType)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    FORMAT: ClassVar = OpFormat(" ", Operand("update"), ", ", Operand("target"), Operands("start_indices", "[]"), " : ",
                                Sized("update", "update_dims"), " -> ", Tied("target", "target_dims"),
                                AttrDict(keyword=True))

    def verify_(self):
        check_dims(self.name, "target type", self.target.type, self.target_dims)
        check_dims(self.name, "update type", self.update.type, self.update_dims)
        target, update = self.target.type, self.update.type
        rank = len(target.get_shape())
        if len(self.start_indices) != rank or len(update.get_shape()) != rank:
            raise VerifyException(f"target {target} needs {rank} offsets and an update of the same rank, got "
                                  f"{len(self.start_indices)} offsets and {update}")
        if update.element_type != target.element_type:
            raise VerifyException(f"update {update} and target {target} have different element types")
        _check_same("target and result types", target, self.result.type)
        _check_window("update", static_extents(target, self.target_dims),
                      [constant_index(v) for v in self.start_indices], static_extents(update, self.update_dims))


def _element_type(tensor_type):
    return tensor_type.element_type


def _access(tensor, dims, *same_type):
    """``%t[%i, ...] : tensor<..>{dims} attributes {..}?`` of ``flow.tensor.load`` / ``.store`` (`` {..}``
    before the colon also parses; the brackets may be left out for a rank-0 tensor); the fields
    ``same_type`` have the tensor's type."""
    return (Operand(tensor), Opt(Operands("indices", "[]")), AttrDict(printed=False), " : ",
            Sized((tensor, *same_type), dims), AttrDict(keyword=True))


class _ElementAccessOp(FormattedOp):
    """Shared verification of ``flow.tensor.load`` / ``.store``."""

    def _verify_access(self, tensor, dims):
        check_dims(self.name, "tensor type", tensor.type, dims)
        if len(self.indices) != len(tensor.type.get_shape()):
            raise VerifyException(f"{tensor.type} needs {len(tensor.type.get_shape())} indices, "
                                  f"got {len(self.indices)}")
        indices = [constant_index(v) for v in self.indices]
        _check_window("element index", static_extents(tensor.type, dims), indices, [1] * len(indices))


@irdl_op_definition
class TensorLoadOp(_ElementAccessOp):
    """``flow.tensor.load %t[%i, %j] : tensor<?x4xf32>{%d}``: reads one element on the host."""

    name = "flow.tensor.load"
    source = operand_def(TensorType)
    source_dims = var_operand_def(INDEX)
    indices = var_operand_def(INDEX)
    result = result_def()
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    FORMAT: ClassVar = OpFormat(" ", *_access("source", "source_dims"), Derived("result", "source", _element_type))

    def verify_(self):
        self._verify_access(self.source, self.source_dims)
        if self.result.type != self.source.type.element_type:
            raise VerifyException(f"result {self.result.type} is not the element type of {self.source.type}")


@irdl_op_definition
class TensorStoreOp(_ElementAccessOp):
    """``flow.tensor.store %f, %t[%i, %j] : tensor<?x4xf32>{%d}``: writes one element, returns the tensor."""

    name = "flow.tensor.store"
    value = operand_def()
    target = operand_def(TensorType)
    target_dims = var_operand_def(INDEX)
    indices = var_operand_def(INDEX)
    result = result_def(TensorType)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    FORMAT: ClassVar = OpFormat(" ", Operand("value"), ", ", *_access("target", "target_dims", "result"),
                                Derived("value", "target", _element_type))

    def verify_(self):
        self._verify_access(self.target, self.target_dims)
        if self.value.type != self.target.type.element_type:
            raise VerifyException(f"value {self.value.type} is not the element type of {self.target.type}")
        _check_same("target and result types", self.target.type, self.result.type)


@irdl_op_definition
class TensorTraceOp(FormattedOp):
    """``flow.tensor.trace "key" = [%a : tensor<4xf32>, %b : tensor<?xf32>{%d}]``: prints tensors at run time.

    Each tensor's contents go to the runtime's trace sink (stderr by default, IREE's
    ``=== key ===`` format) when execution reaches the op; the tensors are unchanged. Lowered to
    ``hal.buffer_view.trace`` on exported buffer views.
    """

    name = "flow.tensor.trace"
    key = prop_def(StringAttr)
    values = var_operand_def(TensorType)
    value_dims = var_operand_def(INDEX)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    FORMAT: ClassVar = OpFormat(" ", Str("key"), " = ", SizedOperandList("values", "value_dims"),
                                AttrDict(keyword=True))

    def verify_(self):
        check_dims(self.name, "value types", [v.type for v in self.values], self.value_dims)
