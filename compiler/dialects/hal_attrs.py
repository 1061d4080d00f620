"""HAL attributes: executable/device targets, device affinities and promises, pipeline layouts.

IREE's printed forms:
``#hal.device.target<"local", {config}?, [#hal.executable.target<...>, ...]>`` (optionally
followed by ``: !hal.device``), ``#hal.executable.target<"llvm-cpu", "format", {config}?>``,
``#hal.device.affinity<@dev>`` / ``<@dev, [0, 1]>``, ``#hal.device.promise<@dev>``, ``#hal.pipeline.layout<...>``,
``#hal.pipeline.binding<storage_buffer, "ReadOnly">``.
They live below every dialect module (``util`` globals hold device targets) so that
:mod:`rt.compiler.dialects.hal` can import its op modules without an import cycle.

Source followed: IREE ``compiler/src/iree/compiler/Dialect/HAL/IR/HALAttrs.td``.
"""
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, IntegerAttr, StringAttr, SymbolRefAttr
from xdsl.ir import ParametrizedAttribute
from xdsl.irdl import irdl_attr_definition, param_def
from xdsl.parser import Parser
from xdsl.utils.exceptions import VerifyException

from rt.compiler.dialects import _syntax as syn


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
class DevicePromiseAttr(ParametrizedAttribute):
    """``#hal.device.promise<@device>`` or ``<@device, [queue, ...]>``: a device named before it is
    declared (HAL DevicePromiseAttr, written by frontends); iree-hal-resolve-device-promises
    turns it into the DeviceAffinityAttr of the declared device."""

    name = "hal.device.promise"
    device: SymbolRefAttr = param_def()
    queues: ArrayAttr = param_def()

    @classmethod
    def parse_parameters(cls, parser):
        return DeviceAffinityAttr.parse_parameters(parser)

    def print_parameters(self, printer):
        DeviceAffinityAttr.print_parameters(self, printer)


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
