"""``iree-hal-serialize-executables``: check that every variant is a finished binary.

Input: ``hal.executable`` ops after iree-hal-translate-executables. Output: the same IR; the
pass fails (located at the variant) when a variant still holds a ``builtin.module`` (it was
not translated), has no ``hal.executable.binary``, or names a blob this process does not hold
(IR text re-parsed without the compiler run that produced the bytes), so the vm phase only
ever embeds real executables.

Example::

    hal.executable.variant public @v target(...) { hal.executable.binary public @v format("vmvx-bytecode") blob("sha256:..") size(812) }
    // -> unchanged

Source followed: IREE ``Dialect/HAL/Transforms/SerializeExecutables.cpp``.
"""
import dataclasses

from xdsl.dialects.builtin import ModuleOp

from rt.compiler.dialects import hal_blobs
from rt.compiler.frontend.diagnostics import error_at_op
from rt.compiler.passes.base import Pass


@dataclasses.dataclass(frozen=True)
class SerializeExecutablesPass(Pass):
    """Verify that each hal.executable.variant is exactly one available binary plus its exports."""

    name = "iree-hal-serialize-executables"

    def run(self, module, ctx):
        for exe in [op for op in module.body.block.ops if op.name == "hal.executable"]:
            for variant in [op for op in exe.body.block.ops if op.name == "hal.executable.variant"]:
                where = f"hal.executable.variant @{exe.sym_name.data}::@{variant.sym_name.data}"
                if any(isinstance(op, ModuleOp) for op in variant.body.block.ops):
                    raise error_at_op(variant, f"{where} still holds dispatch functions; run "
                                               "iree-hal-translate-executables first")
                binaries = [op for op in variant.body.block.ops if op.name == "hal.executable.binary"]
                if len(binaries) != 1:
                    raise error_at_op(variant, f"{where} must hold exactly one hal.executable.binary, "
                                               f"found {len(binaries)}")
                key = binaries[0].blob.data
                if not hal_blobs.contains(key):
                    raise error_at_op(binaries[0], f"{where}: executable data {key} is not available "
                                                   "in this process; binaries are kept out of the IR, "
                                                   "so compile from source in one run")
