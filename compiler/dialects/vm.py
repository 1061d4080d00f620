"""The ``vm`` dialect, as far as rt prints it: the finished bytecode module.

``vm.module @name data(dense<"0x..."> : vector<Nxi8>)``: the output of ``iree-vm-conversion``,
carrying the ``.vmfb`` bytes in the IR (rt.compiler.dialects.hal_blobs). The printed form is
followed by the module's disassembly (rt.runtime.vm.dump) as ``//`` comment lines, so
``--dump-after=iree-vm-conversion`` shows the emitted bytecode and still re-parses. IREE prints
vm dialect ops (vm.func, vm.call.import, ...); rt shows the disassembly of the real bytes instead.
"""
from typing import ClassVar

from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Attribute, Dialect
from xdsl.irdl import irdl_op_definition, prop_def, traits_def
from xdsl.traits import SymbolOpInterface

from rt.compiler.dialects._format import Attr, Directive, FormattedOp, OpFormat
from rt.compiler.dialects._regions import SymbolName
from rt.compiler.dialects.hal_blobs import attr_bytes, bytes_attr
from rt.runtime.errors import CompileError


class Disassembly(Directive):
    """Prints the module's disassembly as ``//`` comment lines (which the parser skips); parses nothing."""

    def parse(self, state):
        pass

    def print(self, op, printer):
        from rt.runtime.errors import RtError
        from rt.runtime.vm import Module
        from rt.runtime.vm.dump import dump_module

        try:
            lines = dump_module(Module.from_bytes(op.vmfb())).splitlines()
        except (CompileError, RtError) as exc:
            lines = [f"(not a loadable module: {exc})"]
        for line in lines:
            printer.print_string("\n// " + line)


@irdl_op_definition
class ModuleOp(FormattedOp):
    """``vm.module @name data(dense<"0x.."> : vector<Nxi8>)`` + disassembly comments."""

    name = "vm.module"
    sym_name = prop_def(StringAttr)
    data = prop_def(Attribute)
    traits = traits_def(SymbolOpInterface())
    FORMAT: ClassVar = OpFormat(" ", SymbolName(), " data(", Attr("data"), ")", Disassembly())

    @classmethod
    def create_module(cls, name, data):
        """``vm.module @name`` holding the ``.vmfb`` ``data`` (bytes)."""
        return cls.build(properties={"sym_name": StringAttr(name), "data": bytes_attr(data)})

    def vmfb(self):
        """The ``.vmfb`` bytes; CompileError for a malformed data attribute."""
        return attr_bytes(self.data, f"vm.module @{self.sym_name.data}")


def build_dialect():
    """The ``vm`` Dialect (the finished-module op only)."""
    return Dialect("vm", [ModuleOp], [])
