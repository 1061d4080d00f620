"""The ``iree_cpu`` dialect: encoding layout resolvers of CPU-like targets.

``#iree_cpu.cpu_encoding_layout<>`` (llvm-cpu) and ``#iree_cpu.vmvx_encoding_layout<>`` (vmvx)
appear in a ``#hal.executable.target`` configuration as ``iree.encoding.resolver``; after
specialize-encodings they carry the resolved layout,
``<configuration = {encoding_info = {innerDimsPos = [..], innerTileSizes = [..], outerDimsPerm = [..]}}>``.

Source followed: IREE ``compiler/src/iree/compiler/Codegen/Dialect/CPU/IR/IREECPUAttrs.td``.
"""
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, IntegerAttr, i64
from xdsl.ir import Dialect, ParametrizedAttribute
from xdsl.irdl import irdl_attr_definition, param_def


class _EncodingLayoutAttr(ParametrizedAttribute):
    configuration: DictionaryAttr = param_def()

    @classmethod
    def parse_parameters(cls, parser):
        parser.parse_punctuation("<")
        config = DictionaryAttr({})
        if parser.parse_optional_punctuation(">") is not None:
            return (config,)
        parser.parse_keyword("configuration")
        parser.parse_punctuation("=")
        config = parser.parse_attribute()
        if not isinstance(config, DictionaryAttr):
            parser.raise_error(f"{cls.name}: configuration must be a dictionary, got {config}")
        parser.parse_punctuation(">")
        return (config,)

    def print_parameters(self, printer):
        printer.print_string("<")
        if self.configuration.data:
            printer.print_string("configuration = ")
            _print_config(printer, self.configuration)
        printer.print_string(">")

    @property
    def encoding_info(self):
        """The resolved ``encoding_info`` dictionary, or None before resolution."""
        return self.configuration.data.get("encoding_info")


def _print_config(printer, attr):
    """Print ``attr`` as MLIR does inside IREE's layouts: i64 integers without their type
    (``innerTileSizes = [16, 1]``), dictionaries and arrays recursively."""
    if isinstance(attr, DictionaryAttr):
        printer.print_string("{")
        for i, (key, value) in enumerate(attr.data.items()):
            if i:
                printer.print_string(", ")
            printer.print_identifier_or_string_literal(key)
            printer.print_string(" = ")
            _print_config(printer, value)
        printer.print_string("}")
    elif isinstance(attr, ArrayAttr):
        printer.print_string("[")
        for i, value in enumerate(attr.data):
            if i:
                printer.print_string(", ")
            _print_config(printer, value)
        printer.print_string("]")
    elif isinstance(attr, IntegerAttr) and attr.type == i64:
        printer.print_string(str(attr.value.data))
    else:
        printer.print_attribute(attr)


@irdl_attr_definition
class CPUEncodingLayoutAttr(_EncodingLayoutAttr):
    """``#iree_cpu.cpu_encoding_layout<(configuration = {...})?>``: the llvm-cpu resolver."""

    name = "iree_cpu.cpu_encoding_layout"


@irdl_attr_definition
class VMVXEncodingLayoutAttr(_EncodingLayoutAttr):
    """``#iree_cpu.vmvx_encoding_layout<(configuration = {...})?>``: the vmvx resolver."""

    name = "iree_cpu.vmvx_encoding_layout"


def build_dialect():
    """The ``iree_cpu`` Dialect."""
    return Dialect("iree_cpu", [], [CPUEncodingLayoutAttr, VMVXEncodingLayoutAttr])
