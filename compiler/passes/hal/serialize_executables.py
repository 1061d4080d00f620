"""``iree-hal-serialize-executables``: check that every variant is a finished binary.

Input: ``hal.executable`` ops after iree-hal-translate-executables. Output: the same IR; the
pass fails (located at the variant) when a variant still holds a ``builtin.module`` (it was
not translated), has no ``hal.executable.binary``, or carries malformed data or metadata, so
the vm phase only ever embeds real executables. Binaries carry their bytes in the IR, so a dump
re-parsed in another process serializes the same executables.

Example::

    hal.executable.variant public @v target(...) { hal.executable.binary public @v format("vmvx-bytecode") metadata("{..}") data(dense<"0x.."> : vector<812xi8>) }
    // -> unchanged

Source followed: IREE ``Dialect/HAL/Transforms/SerializeExecutables.cpp``.
"""
import dataclasses

from xdsl.dialects.builtin import ModuleOp

from rt.compiler.dialects import hal
from rt.compiler.frontend.diagnostics import error_at_op
from rt.compiler.passes.base import Pass


@dataclasses.dataclass(frozen=True)
class SerializeExecutablesPass(Pass):
    """Verify that each hal.executable.variant is exactly one well-formed binary plus its exports."""

    name = "iree-hal-serialize-executables"

    def run(self, module, ctx):
        for exe in [op for op in module.body.block.ops if isinstance(op, hal.ExecutableOp)]:
            for variant in [op for op in exe.body.block.ops if isinstance(op, hal.ExecutableVariantOp)]:
                where = f"hal.executable.variant @{exe.sym_name.data}::@{variant.sym_name.data}"
                if any(isinstance(op, ModuleOp) for op in variant.body.block.ops):
                    raise error_at_op(variant, f"{where} still holds dispatch functions; run "
                                               "iree-hal-translate-executables first")
                binaries = [op for op in variant.body.block.ops if isinstance(op, hal.ExecutableBinaryOp)]
                if len(binaries) != 1:
                    raise error_at_op(variant, f"{where} must hold exactly one hal.executable.binary, "
                                               f"found {len(binaries)}")
                binaries[0].contents()
