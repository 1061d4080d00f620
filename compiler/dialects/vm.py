"""The ``vm`` dialect, as far as rt prints it: the finished bytecode module.

``vm.module @name blob("sha256:..") size(N)``: the output of ``iree-vm-conversion``. The
``.vmfb`` bytes live in rt.compiler.dialects.hal_blobs under the content hash; the printed
form is followed by the module's disassembly (rt.runtime.vm.dump) as ``//`` comment lines, so
``--dump-after=iree-vm-conversion`` shows the emitted bytecode. IREE prints vm dialect ops
(vm.func, vm.call.import, ...); rt shows the disassembly of the real bytes instead.
"""
from xdsl.dialects.builtin import IntegerAttr, StringAttr
from xdsl.ir import Dialect
from xdsl.irdl import IRDLOperation, irdl_op_definition, prop_def, traits_def
from xdsl.traits import SymbolOpInterface

from rt.compiler.dialects import _syntax as syn


@irdl_op_definition
class ModuleOp(IRDLOperation):
    """``vm.module @name blob("sha256:..") size(N)`` + disassembly comments."""

    name = "vm.module"
    sym_name = prop_def(StringAttr)
    blob = prop_def(StringAttr)
    size = prop_def(IntegerAttr)
    traits = traits_def(SymbolOpInterface())

    @classmethod
    def parse(cls, parser):
        name = parser.parse_symbol_name()
        blob = syn.parse_keyword_paren(parser, "blob", parser.parse_str_literal)
        size = syn.parse_keyword_paren(parser, "size", parser.parse_integer)
        if blob is None or size is None:
            parser.raise_error('vm.module needs blob("sha256:..") size(N)')
        return cls.build(properties={"sym_name": name, "blob": StringAttr(blob), "size": IntegerAttr(size, 64)})

    def print(self, printer):
        from rt.compiler.dialects import hal_blobs

        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        printer.print_string(" blob(")
        printer.print_string_literal(self.blob.data)
        printer.print_string(f") size({self.size.value.data})")
        if hal_blobs.contains(self.blob.data):
            from rt.runtime.vm import Module
            from rt.runtime.vm.dump import dump_module

            data, _ = hal_blobs.load(self.blob.data)
            for line in dump_module(Module.from_bytes(data)).splitlines():
                printer.print_string("\n// " + line)


def build_dialect():
    """The ``vm`` Dialect (the finished-module op only)."""
    return Dialect("vm", [ModuleOp], [])
