"""The ``hal`` dialect: device/executable targets, affinities, executables, buffer views.

Types: ``!hal.buffer``, ``!hal.buffer_view``, ``!hal.device``, ``!hal.command_buffer``,
``!hal.fence``, ``!hal.executable``, ``!hal.allocator``.
Attributes (IREE's printed form):
``#hal.device.target<"local", {config}?, [#hal.executable.target<...>, ...]>`` (optionally
followed by ``: !hal.device``), ``#hal.executable.target<"llvm-cpu", "format", {config}?>``,
``#hal.device.affinity<@dev>`` / ``<@dev, [0, 1]>``, ``#hal.pipeline.layout<...>``,
``#hal.pipeline.binding<storage_buffer, "ReadOnly">``.
Ops: tensor import/export and buffer-view queries used at the ABI boundary, the interface ops
used inside dispatch functions, and the executable/variant/export structure. Command buffer,
fence and queue ops are in :mod:`rt.compiler.dialects.hal_ops`.

Source followed: IREE ``compiler/src/iree/compiler/Dialect/HAL/IR/HALAttrs.td``, ``HALOps.td``.
"""
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    IndexType,
    IntegerAttr,
    StringAttr,
    SymbolRefAttr,
    i32,
)
from xdsl.ir import Attribute, Block, Dialect, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    param_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.traits import IsolatedFromAbove, IsTerminator, NoTerminator, SymbolOpInterface, SymbolTable
from xdsl.utils.exceptions import VerifyException

from rt.compiler.dialects import _syntax as syn
from rt.compiler.dialects._regions import parse_workgroups_region, print_workgroups_region
from rt.compiler.dialects.hal_types import (
    AllocatorType,
    BufferType,
    BufferViewType,
    CommandBufferType,
    DeviceType,
    ExecutableType,
    FenceType,
)


@irdl_attr_definition
class ExecutableTargetAttr(ParametrizedAttribute):
    """``#hal.executable.target<"backend", "format", {config}?>`` (HAL ExecutableTargetAttr)."""

    name = "hal.executable.target"
    backend: StringAttr = param_def()
    format: StringAttr = param_def()
    configuration: DictionaryAttr = param_def()

    @classmethod
    def parse_parameters(cls, parser):
        parser.parse_punctuation("<")
        backend = StringAttr(parser.parse_str_literal())
        parser.parse_punctuation(",")
        fmt = StringAttr(parser.parse_str_literal())
        config = DictionaryAttr({})
        if parser.parse_optional_punctuation(","):
            config = parser.parse_attribute()
            if not isinstance(config, DictionaryAttr):
                parser.raise_error("expected a configuration dictionary {...}")
        parser.parse_punctuation(">")
        return (backend, fmt, config)

    def print_parameters(self, printer):
        printer.print_string("<")
        printer.print_string_literal(self.backend.data)
        printer.print_string(", ")
        printer.print_string_literal(self.format.data)
        if self.configuration.data:
            printer.print_string(", ")
            printer.print_attribute(self.configuration)
        printer.print_string(">")


@irdl_attr_definition
class DeviceTargetAttr(ParametrizedAttribute):
    """``#hal.device.target<"local", {config}?, [targets]> : !hal.device`` (HAL DeviceTargetAttr)."""

    name = "hal.device.target"
    device_id: StringAttr = param_def()
    configuration: DictionaryAttr = param_def()
    executable_targets: ArrayAttr = param_def()

    @classmethod
    def parse_parameters(cls, parser):
        parser.parse_punctuation("<")
        device = StringAttr(parser.parse_str_literal())
        config, targets = DictionaryAttr({}), ArrayAttr([])
        while parser.parse_optional_punctuation(","):
            attr = parser.parse_attribute()
            if isinstance(attr, DictionaryAttr):
                config = attr
            elif isinstance(attr, ArrayAttr):
                targets = attr
            else:
                parser.raise_error("expected a configuration {...} or a list of executable targets")
        parser.parse_punctuation(">")
        pos = parser.pos
        if parser.parse_optional_punctuation(":"):
            if not parser._current_token.text.startswith("!hal.device"):
                parser._resume_from(pos)
            else:
                parser.parse_type()
        return (device, config, targets)

    def print_parameters(self, printer):
        printer.print_string("<")
        printer.print_string_literal(self.device_id.data)
        if self.configuration.data:
            printer.print_string(", ")
            printer.print_attribute(self.configuration)
        printer.print_string(", ")
        printer.print_attribute(self.executable_targets)
        printer.print_string("> : !hal.device")

    def verify(self):
        for target in self.executable_targets.data:
            if not isinstance(target, ExecutableTargetAttr):
                raise VerifyException(
                    f"#hal.device.target: expected #hal.executable.target entries, got {target}"
                )


@irdl_attr_definition
class DeviceAffinityAttr(ParametrizedAttribute):
    """``#hal.device.affinity<@device>`` or ``<@device, [queue, ...]>`` (HAL DeviceAffinityAttr)."""

    name = "hal.device.affinity"
    device: SymbolRefAttr = param_def()
    queues: ArrayAttr = param_def()

    @classmethod
    def parse_parameters(cls, parser):
        parser.parse_punctuation("<")
        device = syn.parse_entry_point(parser)
        queues = ArrayAttr([])
        if parser.parse_optional_punctuation(","):
            queues = ArrayAttr(
                [IntegerAttr(v, 64) for v in parser.parse_comma_separated_list(
                    Parser.Delimiter.SQUARE, parser.parse_integer)]
            )
        parser.parse_punctuation(">")
        return (device, queues)

    def print_parameters(self, printer):
        printer.print_string("<")
        printer.print_attribute(self.device)
        if self.queues.data:
            printer.print_string(", [")
            printer.print_list(self.queues.data, lambda q: printer.print_string(str(q.value.data)))
            printer.print_string("]")
        printer.print_string(">")


@irdl_attr_definition
class PipelineBindingAttr(ParametrizedAttribute):
    """``#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">``."""

    name = "hal.pipeline.binding"
    binding_type: StringAttr = param_def()
    flags: StringAttr = param_def()

    @classmethod
    def parse_parameters(cls, parser):
        parser.parse_punctuation("<")
        kind = StringAttr(parser.parse_identifier())
        flags = StringAttr("")
        if parser.parse_optional_punctuation(","):
            flags = StringAttr(parser.parse_optional_str_literal() or parser.parse_identifier())
        parser.parse_punctuation(">")
        return (kind, flags)

    def print_parameters(self, printer):
        printer.print_string(f"<{self.binding_type.data}")
        if self.flags.data:
            printer.print_string(", ")
            printer.print_string_literal(self.flags.data)
        printer.print_string(">")


@irdl_attr_definition
class PipelineLayoutAttr(ParametrizedAttribute):
    """``#hal.pipeline.layout<constants = N, bindings = [#hal.pipeline.binding<...>, ...]>``."""

    name = "hal.pipeline.layout"
    constants: IntegerAttr = param_def()
    bindings: ArrayAttr = param_def()

    @classmethod
    def parse_parameters(cls, parser):
        parser.parse_punctuation("<")
        constants, bindings = IntegerAttr(0, 64), ArrayAttr([])
        while True:
            key = parser.parse_identifier()
            parser.parse_punctuation("=")
            if key == "constants":
                constants = IntegerAttr(parser.parse_integer(), 64)
            elif key == "bindings":
                bindings = parser.parse_attribute()
            else:
                parser.raise_error(f"unknown #hal.pipeline.layout field '{key}'; expected constants or bindings")
            if not parser.parse_optional_punctuation(","):
                break
        parser.parse_punctuation(">")
        return (constants, bindings)

    def print_parameters(self, printer):
        printer.print_string("<")
        if self.constants.value.data:
            printer.print_string(f"constants = {self.constants.value.data}, ")
        printer.print_string("bindings = ")
        printer.print_attribute(self.bindings)
        printer.print_string(">")


@irdl_op_definition
class TensorImportOp(IRDLOperation):
    """``hal.tensor.import on(#aff)? %bv "name"? : !hal.buffer_view -> tensor<?xf32>{%d}``."""

    name = "hal.tensor.import"
    source = operand_def()
    target_dims = var_operand_def(IndexType())
    result = result_def()
    name_hint = opt_prop_def(StringAttr, prop_name="name")
    affinity = opt_prop_def(Attribute)

    @classmethod
    def parse(cls, parser):
        affinity = syn.parse_optional_affinity(parser)
        src = parser.parse_unresolved_operand()
        name = parser.parse_optional_str_literal()
        parser.parse_punctuation(":")
        src_type = parser.parse_type()
        parser.parse_punctuation("->")
        type_, dims = syn.parse_sized_type(parser)
        attrs = parser.parse_optional_attr_dict()
        props = {"affinity": affinity, "name": StringAttr(name) if name is not None else None}
        op = cls.build(
            operands=[parser.resolve_operand(src, src_type), dims],
            result_types=[type_],
            properties={k: v for k, v in props.items() if v is not None},
            attributes=attrs,
        )
        return op

    def print(self, printer):
        syn.print_affinity(printer, self.affinity)
        printer.print_string(" ")
        printer.print_ssa_value(self.source)
        if self.name_hint is not None:
            printer.print_string(" ")
            printer.print_string_literal(self.name_hint.data)
        printer.print_string(" : ")
        printer.print_attribute(self.source.type)
        printer.print_string(" -> ")
        syn.print_sized_type(printer, self.result.type, self.target_dims)
        syn.print_attr_dict(printer, self.attributes)


@irdl_op_definition
class TensorExportOp(IRDLOperation):
    """``hal.tensor.export on(#aff)? %t "name"? : tensor<?xf32>{%d} -> !hal.buffer_view``."""

    name = "hal.tensor.export"
    source = operand_def()
    source_dims = var_operand_def(IndexType())
    result = result_def()
    name_hint = opt_prop_def(StringAttr, prop_name="name")
    affinity = opt_prop_def(Attribute)

    @classmethod
    def parse(cls, parser):
        affinity = syn.parse_optional_affinity(parser)
        src = parser.parse_unresolved_operand()
        name = parser.parse_optional_str_literal()
        parser.parse_punctuation(":")
        src_type, dims = syn.parse_sized_type(parser)
        parser.parse_punctuation("->")
        type_ = parser.parse_type()
        attrs = parser.parse_optional_attr_dict()
        props = {"affinity": affinity, "name": StringAttr(name) if name is not None else None}
        return cls.build(
            operands=[parser.resolve_operand(src, src_type), dims],
            result_types=[type_],
            properties={k: v for k, v in props.items() if v is not None},
            attributes=attrs,
        )

    def print(self, printer):
        syn.print_affinity(printer, self.affinity)
        printer.print_string(" ")
        printer.print_ssa_value(self.source)
        if self.name_hint is not None:
            printer.print_string(" ")
            printer.print_string_literal(self.name_hint.data)
        printer.print_string(" : ")
        syn.print_sized_type(printer, self.source.type, self.source_dims)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)
        syn.print_attr_dict(printer, self.attributes)


@irdl_op_definition
class BufferViewDimOp(IRDLOperation):
    """``hal.buffer_view.dim<%bv : !hal.buffer_view>[0] : index``."""

    name = "hal.buffer_view.dim"
    buffer_view = operand_def(BufferViewType)
    index = prop_def(IntegerAttr)
    result = result_def(IndexType())

    @classmethod
    def parse(cls, parser):
        bv = syn.parse_typed_operand_in_angles(parser)
        parser.parse_punctuation("[")
        idx = parser.parse_integer()
        parser.parse_punctuation("]")
        parser.parse_punctuation(":")
        type_ = parser.parse_type()
        return cls.build(operands=[bv], result_types=[type_], properties={"index": IntegerAttr(idx, IndexType())})

    def print(self, printer):
        syn.print_typed_operand(printer, self.buffer_view)
        printer.print_string(f"[{self.index.value.data}] : ")
        printer.print_attribute(self.result.type)


@irdl_op_definition
class BufferViewAssertOp(IRDLOperation):
    """``hal.buffer_view.assert<%bv : !hal.buffer_view> message("m") shape([..]) type(%t) encoding(%e)``."""

    name = "hal.buffer_view.assert"
    buffer_view = operand_def(BufferViewType)
    shape = var_operand_def(IndexType())
    element_type = operand_def(i32)
    encoding_type = operand_def(i32)
    message = prop_def(StringAttr)

    @classmethod
    def parse(cls, parser):
        bv = syn.parse_typed_operand_in_angles(parser)
        message = syn.parse_keyword_paren(parser, "message", parser.parse_str_literal)
        parser.parse_keyword("shape")
        parser.parse_punctuation("(")
        shape = syn.parse_index_list(parser)
        parser.parse_punctuation(")")
        elem = syn.parse_keyword_paren(parser, "type", parser.parse_unresolved_operand)
        enc = syn.parse_keyword_paren(parser, "encoding", parser.parse_unresolved_operand)
        return cls.build(
            operands=[bv, shape, parser.resolve_operand(elem, i32), parser.resolve_operand(enc, i32)],
            properties={"message": StringAttr(message)},
        )

    def print(self, printer):
        syn.print_typed_operand(printer, self.buffer_view)
        printer.print_string(" message(")
        printer.print_string_literal(self.message.data)
        printer.print_string(") shape(")
        syn.print_operand_list(printer, self.shape)
        printer.print_string(") type(")
        printer.print_ssa_value(self.element_type)
        printer.print_string(") encoding(")
        printer.print_ssa_value(self.encoding_type)
        printer.print_string(")")


@irdl_op_definition
class ElementTypeOp(IRDLOperation):
    """``hal.element_type<f32> : i32``: IREE's packed element type code as a constant."""

    name = "hal.element_type"
    type = prop_def(TypeAttribute)
    result = result_def(i32)
    assembly_format = "`<` $type `>` attr-dict `:` type($result)"


@irdl_op_definition
class EncodingTypeOp(IRDLOperation):
    """``hal.encoding_type<dense_row_major> : i32``."""

    name = "hal.encoding_type"
    encoding = prop_def(StringAttr)
    result = result_def(i32)

    @classmethod
    def parse(cls, parser):
        parser.parse_punctuation("<")
        enc = parser.parse_identifier()
        parser.parse_punctuation(">")
        parser.parse_punctuation(":")
        return cls.build(result_types=[parser.parse_type()], properties={"encoding": StringAttr(enc)})

    def print(self, printer):
        printer.print_string(f"<{self.encoding.data}> : ")
        printer.print_attribute(self.result.type)


@irdl_op_definition
class InterfaceBindingSubspanOp(IRDLOperation):
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

    @classmethod
    def parse(cls, parser):
        layout = syn.parse_keyword_paren(parser, "layout", parser.parse_attribute)
        binding = syn.parse_keyword_paren(parser, "binding", parser.parse_integer)
        alignment = syn.parse_keyword_paren(parser, "alignment", parser.parse_integer)
        offset = syn.parse_keyword_paren(parser, "offset", parser.parse_unresolved_operand)
        flags = syn.parse_keyword_paren(
            parser, "flags", lambda: parser.parse_optional_str_literal() or parser.parse_identifier()
        )
        parser.parse_punctuation(":")
        type_, dims = syn.parse_sized_type(parser)
        attrs = parser.parse_optional_attr_dict()
        props = {"layout": layout, "binding": IntegerAttr(binding, IndexType())}
        if alignment is not None:
            props["alignment"] = IntegerAttr(alignment, IndexType())
        if flags is not None:
            props["flags"] = StringAttr(flags)
        offsets = [] if offset is None else [parser.resolve_operand(offset, IndexType())]
        return cls.build(operands=[offsets, dims], result_types=[type_], properties=props, attributes=attrs)

    def print(self, printer):
        printer.print_string(" layout(")
        printer.print_attribute(self.layout)
        printer.print_string(f") binding({self.binding.value.data})")
        if self.alignment is not None:
            printer.print_string(f" alignment({self.alignment.value.data})")
        if self.byte_offset:
            printer.print_string(" offset(")
            printer.print_ssa_value(self.byte_offset[0])
            printer.print_string(")")
        if self.flags is not None:
            printer.print_string(" flags(")
            printer.print_string_literal(self.flags.data)
            printer.print_string(")")
        printer.print_string(" : ")
        syn.print_sized_type(printer, self.result.type, self.dynamic_dims)
        syn.print_attr_dict(printer, self.attributes)


class _InterfaceWorkgroupOp(IRDLOperation):
    dimension = prop_def(IntegerAttr)
    result = result_def(IndexType())

    @classmethod
    def parse(cls, parser):
        parser.parse_punctuation("[")
        dim = parser.parse_integer()
        parser.parse_punctuation("]")
        parser.parse_punctuation(":")
        return cls.build(result_types=[parser.parse_type()], properties={"dimension": IntegerAttr(dim, IndexType())})

    def print(self, printer):
        printer.print_string(f"[{self.dimension.value.data}] : ")
        printer.print_attribute(self.result.type)


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
class InterfaceConstantLoadOp(IRDLOperation):
    """``hal.interface.constant.load layout(#l) ordinal(0) : i32``: a push constant."""

    name = "hal.interface.constant.load"
    layout = prop_def(Attribute)
    ordinal = prop_def(IntegerAttr)
    result = result_def()

    @classmethod
    def parse(cls, parser):
        layout = syn.parse_keyword_paren(parser, "layout", parser.parse_attribute)
        ordinal = syn.parse_keyword_paren(parser, "ordinal", parser.parse_integer)
        parser.parse_punctuation(":")
        return cls.build(
            result_types=[parser.parse_type()],
            properties={"layout": layout, "ordinal": IntegerAttr(ordinal, IndexType())},
        )

    def print(self, printer):
        printer.print_string(" layout(")
        printer.print_attribute(self.layout)
        printer.print_string(f") ordinal({self.ordinal.value.data}) : ")
        printer.print_attribute(self.result.type)


class _SymbolContainerOp(IRDLOperation):
    """``<op> <visibility>? @name attr-dict { body }`` with a single-block, terminator-free body."""

    sym_name = prop_def(StringAttr)
    sym_visibility = opt_prop_def(StringAttr)
    body = region_def("single_block")
    traits = traits_def(SymbolOpInterface(), SymbolTable(), NoTerminator(), IsolatedFromAbove())

    @classmethod
    def parse(cls, parser):
        visibility = syn.parse_optional_visibility(parser)
        name = parser.parse_symbol_name()
        attrs = parser.parse_optional_attr_dict_with_keyword()
        region = parser.parse_region()
        if not region.blocks:
            region.add_block(Block())
        props = {"sym_name": name}
        if visibility is not None:
            props["sym_visibility"] = visibility
        return cls.build(properties=props, attributes=attrs.data if attrs else {}, regions=[region])

    def print(self, printer):
        syn.print_visibility(printer, self.sym_visibility)
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        if self.attributes:
            printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False, print_empty_block=False)


@irdl_op_definition
class ExecutableOp(_SymbolContainerOp):
    """``hal.executable private @name { hal.executable.variant ... }``."""

    name = "hal.executable"


@irdl_op_definition
class ExecutableVariantOp(IRDLOperation):
    """``hal.executable.variant public @name target(#hal.executable.target<...>) { ... }``."""

    name = "hal.executable.variant"
    sym_name = prop_def(StringAttr)
    sym_visibility = opt_prop_def(StringAttr)
    target = prop_def(ExecutableTargetAttr)
    body = region_def("single_block")
    traits = traits_def(SymbolOpInterface(), SymbolTable(), NoTerminator(), IsolatedFromAbove())

    @classmethod
    def parse(cls, parser):
        visibility = syn.parse_optional_visibility(parser)
        name = parser.parse_symbol_name()
        target = syn.parse_keyword_paren(parser, "target", parser.parse_attribute)
        attrs = parser.parse_optional_attr_dict_with_keyword()
        region = parser.parse_region()
        props = {"sym_name": name, "target": target}
        if visibility is not None:
            props["sym_visibility"] = visibility
        return cls.build(properties=props, attributes=attrs.data if attrs else {}, regions=[region])

    def print(self, printer):
        syn.print_visibility(printer, self.sym_visibility)
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        printer.print_string(" target(")
        printer.print_attribute(self.target)
        printer.print_string(")")
        if self.attributes:
            printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False, print_empty_block=False)


@irdl_op_definition
class ExecutableExportOp(IRDLOperation):
    """``hal.executable.export public @name ordinal(0) layout(#l) attr-dict (count(...) {...})?``."""

    name = "hal.executable.export"
    sym_name = prop_def(StringAttr)
    sym_visibility = opt_prop_def(StringAttr)
    ordinal = opt_prop_def(IntegerAttr)
    layout = opt_prop_def(Attribute)
    workgroup_count = region_def()
    traits = traits_def(SymbolOpInterface(), IsolatedFromAbove())

    @classmethod
    def parse(cls, parser):
        visibility = syn.parse_optional_visibility(parser)
        name = parser.parse_symbol_name()
        ordinal = syn.parse_keyword_paren(parser, "ordinal", parser.parse_integer)
        layout = syn.parse_keyword_paren(parser, "layout", parser.parse_attribute)
        region = parse_workgroups_region(parser, "count")
        attrs = parser.parse_optional_attr_dict_with_keyword()
        props = {"sym_name": name}
        if visibility is not None:
            props["sym_visibility"] = visibility
        if ordinal is not None:
            props["ordinal"] = IntegerAttr(ordinal, IndexType())
        if layout is not None:
            props["layout"] = layout
        return cls.build(properties=props, attributes=attrs.data if attrs else {}, regions=[region])

    def print(self, printer):
        syn.print_visibility(printer, self.sym_visibility)
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        if self.ordinal is not None:
            printer.print_string(f" ordinal({self.ordinal.value.data})")
        if self.layout is not None:
            printer.print_string(" layout(")
            printer.print_attribute(self.layout)
            printer.print_string(")")
        print_workgroups_region(printer, "count", self.workgroup_count)
        if self.attributes:
            printer.print_op_attributes(self.attributes, print_keyword=True)


@irdl_op_definition
class ExecutableBinaryOp(IRDLOperation):
    """``hal.executable.binary public @name format("fmt") blob("sha256:..") size(N)``.

    A serialized executable for one variant. The bytes and the backend's metadata stay out of
    the IR, in :mod:`rt.compiler.dialects.hal_blobs`, under the content hash ``blob``; the IR
    prints only the handle and the size in bytes (IREE's op holds the bytes as a dense attr).
    """

    name = "hal.executable.binary"
    sym_name = prop_def(StringAttr)
    sym_visibility = opt_prop_def(StringAttr)
    format = prop_def(StringAttr)
    blob = prop_def(StringAttr)
    size = prop_def(IntegerAttr)
    traits = traits_def(SymbolOpInterface())

    @classmethod
    def parse(cls, parser):
        visibility = syn.parse_optional_visibility(parser)
        name = parser.parse_symbol_name()
        fmt = syn.parse_keyword_paren(parser, "format", parser.parse_str_literal)
        blob = syn.parse_keyword_paren(parser, "blob", parser.parse_str_literal)
        size = syn.parse_keyword_paren(parser, "size", parser.parse_integer)
        if fmt is None or blob is None or size is None:
            parser.raise_error("hal.executable.binary needs format(\"..\") blob(\"..\") size(N)")
        attrs = parser.parse_optional_attr_dict_with_keyword()
        props = {"sym_name": name, "format": StringAttr(fmt), "blob": StringAttr(blob),
                 "size": IntegerAttr(size, 64)}
        if visibility is not None:
            props["sym_visibility"] = visibility
        return cls.build(properties=props, attributes=attrs.data if attrs else {})

    def print(self, printer):
        syn.print_visibility(printer, self.sym_visibility)
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        printer.print_string(" format(")
        printer.print_string_literal(self.format.data)
        printer.print_string(") blob(")
        printer.print_string_literal(self.blob.data)
        printer.print_string(f") size({self.size.value.data})")
        if self.attributes:
            printer.print_op_attributes(self.attributes, print_keyword=True)


@irdl_op_definition
class ReturnOp(IRDLOperation):
    """``hal.return %x, %y, %z : index, index, index`` (terminates workgroup count regions)."""

    name = "hal.return"
    values = var_operand_def()
    assembly_format = "($values^ `:` type($values))? attr-dict"
    traits = traits_def(IsTerminator())


HAL_OPS = [
    TensorImportOp,
    TensorExportOp,
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
    from rt.compiler.dialects.hal_ops import HAL_RUNTIME_OPS

    return Dialect("hal", HAL_OPS + HAL_RUNTIME_OPS, HAL_ATTRS)
