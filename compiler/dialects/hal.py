"""The ``hal`` dialect: device/executable targets, affinities, executables, buffer views.

Types: ``!hal.buffer``, ``!hal.buffer_view``, ``!hal.device``, ``!hal.command_buffer``,
``!hal.fence``, ``!hal.executable``, ``!hal.allocator``.
Attributes (``#hal.device.target``, ``#hal.executable.target``, ``#hal.device.affinity``,
``#hal.device.promise``, ``#hal.pipeline.layout``, ``#hal.pipeline.binding``) are defined in
:mod:`rt.compiler.dialects.hal_attrs` and re-exported here.
Ops: tensor import/export and buffer-view queries used at the ABI boundary, the interface ops
used inside dispatch functions, and the executable/variant/export structure. Command buffer,
fence and queue ops are in :mod:`rt.compiler.dialects.hal_ops`.

Source followed: IREE ``compiler/src/iree/compiler/Dialect/HAL/IR/HALAttrs.td``, ``HALOps.td``.
"""
import json
from typing import ClassVar

from xdsl.dialects.builtin import IndexType, IntegerAttr, StringAttr, UnitAttr, i32
from xdsl.ir import Attribute, Dialect, TypeAttribute
from xdsl.irdl import (
    AttrSizedOperandSegments,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import IsolatedFromAbove, IsTerminator, SymbolOpInterface
from xdsl.utils.exceptions import VerifyException

from rt.compiler.dialects._format import (
    AFFINITY,
    RETURN_VALUES,
    Attr,
    AttrDict,
    Directive,
    Enum,
    Flag,
    FormattedOp,
    Int,
    Operand,
    Operands,
    OpFormat,
    Opt,
    Sized,
    Str,
    Type,
    Types,
    slot_fields,
)
from rt.compiler.dialects._syntax import parse_optional_dims, print_sized_type
from rt.compiler.dialects._regions import SYMBOL, Body, SymbolContainerOp, Workgroups
from rt.compiler.dialects.hal_attrs import (  # noqa: F401  (re-exported)
    DeviceAffinityAttr,
    DevicePromiseAttr,
    DeviceTargetAttr,
    ExecutableTargetAttr,
    PipelineBindingAttr,
    PipelineLayoutAttr,
)
from rt.compiler.dialects.hal_types import (  # noqa: F401  (receiver re-exported)
    AllocatorType,
    BufferType,
    BufferViewType,
    CommandBufferType,
    DeviceType,
    ExecutableType,
    FenceType,
    receiver,
)
from rt.runtime.errors import CompileError


class _Aliased(Directive):
    """``T{%d}``, or ``E as T{%d}`` when the buffer view holds elements of ``E`` and the tensor
    ``slot`` is a ``T`` (IREE's ``custom<TypeAlias>``; ``E`` in the op's ``encoding``)."""

    def __init__(self, slot, dims):
        self.slot, self.dims = slot_fields(slot), dims

    def parse(self, state):
        parser = state.parser
        type_ = parser.parse_type()
        if parser.parse_optional_keyword("as") is not None:
            state.set_prop("encoding", type_)
            type_ = parser.parse_type()
        state.set_type(self.slot, type_)
        state.names[self.dims] = parse_optional_dims(parser)

    def print(self, op, printer):
        if op.encoding is not None:
            printer.print_attribute(op.encoding)
            printer.print_string(" as ")
        print_sized_type(printer, getattr(op, self.slot[0]).type, list(getattr(op, self.dims)))


@irdl_op_definition
class TensorImportOp(FormattedOp):
    """``hal.tensor.import on(#aff)? wait(%fence)? => consume? %bv "name"? : !hal.buffer_view ->
    (E as)? tensor<?xf32>{%d}``: the buffer view's contents as a tensor, usable once ``%fence``
    is reached (IREE's coarse-fences ABI; a null fence is reached). ``E as``: the buffer holds
    ``E``'s elements (rt-convert-hal-tensor-encodings converts them)."""

    name = "hal.tensor.import"
    source = operand_def()
    target_dims = var_operand_def(IndexType())
    wait_fence = opt_operand_def(FenceType)
    result = result_def()
    name_hint = opt_prop_def(StringAttr, prop_name="name")
    affinity = opt_prop_def(Attribute)
    consume = opt_prop_def(UnitAttr)
    encoding = opt_prop_def(TypeAttribute, prop_name="target_encoding")
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    FORMAT: ClassVar = OpFormat(AFFINITY, Opt(" wait(", Operand("wait_fence"), ") =>"), Flag(" consume", "consume"),
                                " ", Operand("source"), Opt(" ", Str("name_hint")), " : ", Type("source"),
                                " -> ", _Aliased("result", "target_dims"), AttrDict())


@irdl_op_definition
class TensorExportOp(FormattedOp):
    """``hal.tensor.export on(#aff)? %t "name"? : (E as)? tensor<?xf32>{%d} -> !hal.buffer_view``
    (``E as``: the buffer view is to hold ``E``'s elements; see TensorImportOp)."""

    name = "hal.tensor.export"
    source = operand_def()
    source_dims = var_operand_def(IndexType())
    result = result_def()
    name_hint = opt_prop_def(StringAttr, prop_name="name")
    affinity = opt_prop_def(Attribute)
    encoding = opt_prop_def(TypeAttribute, prop_name="source_encoding")
    FORMAT: ClassVar = OpFormat(AFFINITY, " ", Operand("source"), Opt(" ", Str("name_hint")), " : ",
                                _Aliased("source", "source_dims"), " -> ", Type("result"), AttrDict())


@irdl_op_definition
class TensorBarrierOp(FormattedOp):
    """``hal.tensor.barrier join(%a, %b : t, t) => %fence : !hal.fence``: the tensors, with
    ``%fence`` signaled once all of them are ready (IREE's coarse-fences ABI)."""

    name = "hal.tensor.barrier"
    sources = var_operand_def()
    signal_fence = operand_def(FenceType)
    results_ = var_result_def()
    FORMAT: ClassVar = OpFormat(" join(", Operands("sources"), " : ", Types(("sources", "results_")), ") => ",
                                Operand("signal_fence"), " : ", Type("signal_fence"), AttrDict(keyword=True))

    def verify_(self):
        if [v.type for v in self.sources] != [r.type for r in self.results_]:
            raise VerifyException("results must have the types of the joined tensors")


@irdl_op_definition
class BufferViewDimOp(FormattedOp):
    """``hal.buffer_view.dim<%bv : !hal.buffer_view>[0] : index``."""

    name = "hal.buffer_view.dim"
    buffer_view = operand_def(BufferViewType)
    index = prop_def(IntegerAttr)
    result = result_def(IndexType())
    FORMAT: ClassVar = OpFormat(*receiver("buffer_view"), "[", Int("index"), "] : ", Type("result"))


@irdl_op_definition
class BufferViewAssertOp(FormattedOp):
    """``hal.buffer_view.assert<%bv : !hal.buffer_view> message("m") shape([..]) type(%t) encoding(%e)``."""

    name = "hal.buffer_view.assert"
    buffer_view = operand_def(BufferViewType)
    shape = var_operand_def(IndexType())
    element_type = operand_def(i32)
    encoding_type = operand_def(i32)
    message = prop_def(StringAttr)
    FORMAT: ClassVar = OpFormat(*receiver("buffer_view"), " message(", Str("message"), ") shape(",
                                Operands("shape", "[]"), ") type(", Operand("element_type"), ") encoding(",
                                Operand("encoding_type"), ")")


@irdl_op_definition
class ElementTypeOp(FormattedOp):
    """``hal.element_type<f32> : i32``: IREE's packed element type code as a constant."""

    name = "hal.element_type"
    type = prop_def(TypeAttribute)
    result = result_def(i32)
    FORMAT: ClassVar = OpFormat("<", Attr("type"), ">", AttrDict(), " : ", Type("result"))


@irdl_op_definition
class EncodingTypeOp(FormattedOp):
    """``hal.encoding_type<dense_row_major> : i32``."""

    name = "hal.encoding_type"
    encoding = prop_def(StringAttr)
    result = result_def(i32)
    FORMAT: ClassVar = OpFormat("<", Enum("encoding"), "> : ", Type("result"))


@irdl_op_definition
class InterfaceBindingSubspanOp(FormattedOp):
    """``hal.interface.binding.subspan layout(#l) binding(0) alignment(64)? offset(%o)? flags(..)? : type{dims}``."""

    name = "hal.interface.binding.subspan"
    byte_offset = var_operand_def(IndexType())
    dynamic_dims = var_operand_def(IndexType())
    result = result_def()
    layout = prop_def(Attribute)
    binding = prop_def(IntegerAttr)
    alignment = opt_prop_def(IntegerAttr)
    flags = opt_prop_def(StringAttr)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    FORMAT: ClassVar = OpFormat(" layout(", Attr("layout"), ") binding(", Int("binding"), ")",
                                Opt(" alignment(", Int("alignment"), ")"), Opt(" offset(", Operand("byte_offset"), ")"),
                                Opt(" flags(", Str("flags"), ")"), " : ", Sized("result", "dynamic_dims"), AttrDict())


class _InterfaceWorkgroupOp(FormattedOp):
    dimension = prop_def(IntegerAttr)
    result = result_def(IndexType())
    FORMAT: ClassVar = OpFormat("[", Int("dimension"), "] : ", Type("result"))


@irdl_op_definition
class InterfaceWorkgroupIDOp(_InterfaceWorkgroupOp):
    """``hal.interface.workgroup.id[0] : index``."""

    name = "hal.interface.workgroup.id"


@irdl_op_definition
class InterfaceWorkgroupCountOp(_InterfaceWorkgroupOp):
    """``hal.interface.workgroup.count[0] : index``."""

    name = "hal.interface.workgroup.count"


@irdl_op_definition
class InterfaceWorkgroupSizeOp(_InterfaceWorkgroupOp):
    """``hal.interface.workgroup.size[0] : index``."""

    name = "hal.interface.workgroup.size"


@irdl_op_definition
class InterfaceConstantLoadOp(FormattedOp):
    """``hal.interface.constant.load layout(#l) ordinal(0) : i32``: a push constant."""

    name = "hal.interface.constant.load"
    layout = prop_def(Attribute)
    ordinal = prop_def(IntegerAttr)
    result = result_def()
    FORMAT: ClassVar = OpFormat(" layout(", Attr("layout"), ") ordinal(", Int("ordinal"), ") : ", Type("result"))


@irdl_op_definition
class ExecutableOp(SymbolContainerOp):
    """``hal.executable private @name { hal.executable.variant ... }``."""

    name = "hal.executable"


@irdl_op_definition
class ExecutableVariantOp(SymbolContainerOp):
    """``hal.executable.variant public @name target(#hal.executable.target<...>) { ... }``."""

    name = "hal.executable.variant"
    target = prop_def(ExecutableTargetAttr)
    FORMAT: ClassVar = OpFormat(*SYMBOL, " target(", Attr("target"), ")", AttrDict(keyword=True), " ",
                                Body(ensure_block=False, print_empty_block=False))


@irdl_op_definition
class ExecutableExportOp(FormattedOp):
    """``hal.executable.export public @name ordinal(0) layout(#l) attr-dict (count(...) {...})?``."""

    name = "hal.executable.export"
    sym_name = prop_def(StringAttr)
    sym_visibility = opt_prop_def(StringAttr)
    ordinal = opt_prop_def(IntegerAttr)
    layout = opt_prop_def(Attribute)
    workgroup_count = region_def()
    traits = traits_def(SymbolOpInterface(), IsolatedFromAbove())
    FORMAT: ClassVar = OpFormat(*SYMBOL, Opt(" ordinal(", Int("ordinal"), ")"), Opt(" layout(", Attr("layout"), ")"),
                                Workgroups("workgroup_count", "count"), AttrDict(keyword=True))


@irdl_op_definition
class ExecutableBinaryOp(FormattedOp):
    """``hal.executable.binary public @name format("fmt") metadata("{json}") data(dense<"0x.."> : vector<Nxi8>)``.

    A serialized executable for one variant, carried in the IR like IREE's op: ``data`` holds
    the bytes the backend serialized (rt.compiler.dialects.hal_blobs), ``metadata`` the JSON
    object the runtime loader checks (exports, CPU features, binding encodings, ...).
    """

    name = "hal.executable.binary"
    sym_name = prop_def(StringAttr)
    sym_visibility = opt_prop_def(StringAttr)
    format = prop_def(StringAttr)
    metadata = prop_def(StringAttr)
    data = prop_def(Attribute)
    traits = traits_def(SymbolOpInterface())
    FORMAT: ClassVar = OpFormat(*SYMBOL, " format(", Str("format"), ") metadata(", Str("metadata"), ") data(",
                                Attr("data"), ")", AttrDict(keyword=True))

    @classmethod
    def create_binary(cls, name, fmt, data, metadata):
        """A public binary ``@name`` of format ``fmt`` holding ``data`` (bytes) and ``metadata`` (JSON-able dict)."""
        from rt.compiler.dialects.hal_blobs import bytes_attr

        return cls.build(properties={
            "sym_name": StringAttr(name), "sym_visibility": StringAttr("public"), "format": StringAttr(fmt),
            "metadata": StringAttr(json.dumps(metadata, sort_keys=True)), "data": bytes_attr(data)})

    def contents(self):
        """``(data: bytes, metadata: dict)``; CompileError (at this op) for a malformed data or metadata."""
        from rt.compiler.dialects.hal_blobs import attr_bytes
        from rt.compiler.frontend.diagnostics import error_at_op

        where = f"hal.executable.binary @{self.sym_name.data}"
        try:
            data = attr_bytes(self.data, where)
            metadata = json.loads(self.metadata.data)
        except CompileError as exc:
            raise error_at_op(self, exc.message) from None
        except ValueError as exc:
            raise error_at_op(self, f"{where}: metadata is not a JSON object ({exc})") from None
        if not isinstance(metadata, dict):
            raise error_at_op(self, f"{where}: metadata must be a JSON object, got {self.metadata.data[:40]!r}")
        return data, metadata


@irdl_op_definition
class ReturnOp(FormattedOp):
    """``hal.return %x, %y, %z : index, index, index`` (terminates workgroup count regions)."""

    name = "hal.return"
    values = var_operand_def()
    FORMAT: ClassVar = OpFormat(RETURN_VALUES, AttrDict())
    traits = traits_def(IsTerminator())


HAL_OPS = [
    TensorImportOp,
    TensorExportOp,
    TensorBarrierOp,
    BufferViewDimOp,
    BufferViewAssertOp,
    ElementTypeOp,
    EncodingTypeOp,
    InterfaceBindingSubspanOp,
    InterfaceWorkgroupIDOp,
    InterfaceWorkgroupCountOp,
    InterfaceWorkgroupSizeOp,
    InterfaceConstantLoadOp,
    ExecutableOp,
    ExecutableVariantOp,
    ExecutableExportOp,
    ExecutableBinaryOp,
    ReturnOp,
]
HAL_ATTRS = [
    ExecutableTargetAttr,
    DeviceTargetAttr,
    DeviceAffinityAttr,
    DevicePromiseAttr,
    PipelineBindingAttr,
    PipelineLayoutAttr,
    BufferType,
    BufferViewType,
    DeviceType,
    CommandBufferType,
    FenceType,
    ExecutableType,
    AllocatorType,
]


def build_dialect():
    """The ``hal`` Dialect (structure ops here, runtime ops from hal_ops)."""
    from rt.compiler.dialects.hal_channel import HAL_CHANNEL_OPS, ChannelType
    from rt.compiler.dialects.hal_ops import HAL_RUNTIME_OPS

    return Dialect("hal", HAL_OPS + HAL_RUNTIME_OPS + HAL_CHANNEL_OPS, HAL_ATTRS + [ChannelType])
