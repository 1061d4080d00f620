"""``PassPipeline``: runs passes in order, verifying after each and dumping IR on request.

``dump_after`` is a pass name, a collection of names, or ``"all"``; each matching pass writes
``<dump_dir>/<NN>_<pass>.mlir`` (NN = 1-based position in the pipeline), so a user can read
rt's pipeline next to IREE's ``--mlir-print-ir-after-all`` dumps.
"""
import os

from rt.compiler.frontend.diagnostics import verify_module
from rt.compiler.ir_printing import module_to_text
from rt.runtime.errors import InvalidArgumentError


class PassPipeline:
    """An ordered list of Pass instances. ``run(module, ctx)`` applies them in place."""

    def __init__(self, passes, dump_after=None, dump_dir=None, verify_each=True):
        self.passes = list(passes)
        if isinstance(dump_after, str):
            dump_after = None if dump_after == "" else ({"all"} if dump_after == "all" else {dump_after})
        self.dump_after = set(dump_after or ())
        if self.dump_after and dump_dir is None:
            raise InvalidArgumentError("dump_after needs a dump_dir to write <NN>_<pass>.mlir files into")
        known = {p.name for p in self.passes}
        unknown = self.dump_after - known - {"all"}
        if unknown:
            raise InvalidArgumentError(
                f"dump_after names passes not in the pipeline: {', '.join(sorted(unknown))}; "
                f"pipeline: {', '.join(p.name for p in self.passes)}"
            )
        self.dump_dir = dump_dir
        self.verify_each = verify_each

    def run(self, module, ctx):
        """Apply every pass to ``module``; returns the list of dump files written."""
        written = []
        for index, pass_ in enumerate(self.passes, start=1):
            pass_.run(module, ctx)
            if self.verify_each:
                verify_module(module)
            if "all" in self.dump_after or pass_.name in self.dump_after:
                os.makedirs(self.dump_dir, exist_ok=True)
                path = os.path.join(self.dump_dir, f"{index:02d}_{pass_.name}.mlir")
                with open(path, "w", encoding="utf-8") as f:
                    f.write(module_to_text(module))
                written.append(path)
        return written
