"""``PassPipeline``: runs passes in order, verifying after each, dumping, timing and showing progress.

``dump_after`` is a pass name, a collection of names, or ``"all"``; each matching pass writes
``<dump_dir>/<NN>_<pass>.mlir`` (NN = 1-based position in the pipeline; ``dump_dir="-"`` prints
to stderr under MLIR's ``// -----// IR Dump After ...`` headers instead), so a user can read
rt's pipeline next to IREE's ``--mlir-print-ir-after-all`` dumps. ``timing`` (a
``instrumentation.Timing``) records every pass under its phase (``phases``: the phase name
of each pass, in order) with the verifier as its own row; ``progress`` shows the running pass on stderr
(None: when stderr is a terminal; True: always; False: never). The pipeline's contents come from
:mod:`rt.compiler.passes.pipeline`.

The verifier (rt.compiler.passes.verifier) runs after every pass with ``verify="each"`` (MLIR's
``-verify-each``), after the last pass of each phase with ``verify="phase"``, and after the last
pass only with ``verify="end"`` (the input was verified when it was parsed); it remembers the
op-definition checks that passed during one run, so re-verifying unchanged ops is cheap.
Verifying after every pass costs a Python compiler about a third of its time (C++ MLIR: a few
percent), so the driver verifies the input and the output unless asked (``--verify-each``, or
``RT_VERIFY=each|phase`` in the environment, as the test suite does: see
``rt.compiler.passes.pipeline.pass_manager``).

Source followed: MLIR ``PassManager`` (verifier after each pass, instrumentation hooks).
"""
import contextlib
import os
import sys

from rt.compiler.ir_printing import module_to_text
from rt.compiler.passes import instrumentation
from rt.compiler.passes.verifier import Verifier
from rt.runtime.atomic_write import atomic_write
from rt.runtime.errors import InvalidArgumentError


#: when the IR is verified: after every pass, after every phase, after the last pass
VERIFY_MODES = ("each", "phase", "end")


class PassPipeline:
    """An ordered list of Pass instances. ``run(module, ctx)`` applies them in place."""

    def __init__(self, passes, dump_after=None, dump_dir=None, verify="each", timing=None,
                 progress=False, phases=None):
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
        if verify not in VERIFY_MODES:
            raise InvalidArgumentError(f"verify={verify!r}; expected one of {', '.join(VERIFY_MODES)}")
        self.verify = verify
        self.timing = timing
        self.progress = progress
        self.phases = list(phases) if phases is not None else [None] * len(self.passes)
        if len(self.phases) != len(self.passes):
            raise InvalidArgumentError(f"{len(self.phases)} phase names for {len(self.passes)} passes")

    def run(self, module, ctx):
        """Apply every pass to ``module``; returns the list of dump files written."""
        written = []
        reporter = None if self.progress is False else instrumentation.Progress(force=self.progress is True)
        timing = self.timing
        verifier = Verifier()
        try:
            with instrumentation.active(timing, reporter):
                for index, pass_ in enumerate(self.passes, start=1):
                    if reporter is not None:
                        reporter.pass_started(index, len(self.passes), pass_.name)
                    with self._phase_scope(index):
                        with _scope(timing, pass_.name):
                            pass_.run(module, ctx)
                        if self._verifies_after(index):
                            with _scope(timing, instrumentation.VERIFIER):
                                verifier.verify_module(module)
                    if "all" in self.dump_after or pass_.name in self.dump_after:
                        written.append(self._dump(module, index, pass_.name))
        finally:
            if reporter is not None:
                reporter.finish()
        return written

    def _verifies_after(self, index):
        """True when the IR is verified after pass number ``index`` (1-based)."""
        if self.verify == "each" or index == len(self.passes):
            return True
        return self.verify == "phase" and self.phases[index - 1] != self.phases[index]

    def _phase_scope(self, index):
        phase = self.phases[index - 1]
        if self.timing is None or phase is None:
            return contextlib.nullcontext()
        return self.timing.scope(phase)

    def _dump(self, module, index, name):
        if self.dump_dir == "-":
            pass_ = self.passes[index - 1]
            sys.stderr.write(f"// -----// IR Dump After {type(pass_).__name__} ({name}) //----- //\n"
                             f"{module_to_text(module)}\n\n")
            return "-"
        os.makedirs(self.dump_dir, exist_ok=True)
        path = os.path.join(self.dump_dir, f"{index:02d}_{name}.mlir")
        atomic_write(path, module_to_text(module), what="IR dump")
        return path


def _scope(timing, name):
    return contextlib.nullcontext() if timing is None else timing.scope(name)
