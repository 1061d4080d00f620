"""The compiler driver: MLIR text in, ``.vmfb`` bytes out, through every phase.

    from rt.compiler import compile_source
    vmfb = compile_source(text, "model.mlir", devices=["llvm-cpu"],
                          options={"dump_after": "all", "dump_dir": "dumps"})

The pipeline (phases, passes in order, their options) is the table in
:mod:`rt.compiler.passes.pipeline`; ``options`` is a :class:`CompileOptions` or a dict of its
fields (``dump_after``, ``dump_dir``, ``data_tiling``, ``verify_each``, ``compile_from``,
``compile_to``, ``timing``, ``progress``, ``jobs``). ``devices`` is anything
``rt.compiler.targets.device_spec.parse_device_specs`` accepts (parsed here, once); default
``__device_0=llvm-cpu`` unless the input declares devices. With ``compile_to`` before ``end``
the result is the MLIR text of the module at that point (UTF-8 bytes) instead of a ``.vmfb``;
with ``compile_from=P`` the input is IR as it was after phase P (an ``--dump-after`` file).
With ``timing`` the time of every pass, nested by phase, is printed to stderr.
Every failure is a CompileError located in the source (``file:line:col: error: ...``) or an
InvalidArgumentError for bad options.
"""
import contextlib
import dataclasses
import gc
import sys

from rt.runtime.atomic_write import atomic_write
from rt.runtime.errors import InvalidArgumentError


def _options(devices, options):
    from rt.compiler.passes.pipeline import CompileOptions
    from rt.compiler.targets.device_spec import parse_device_specs

    options = CompileOptions.from_dict(options)
    if devices is not None:
        options = dataclasses.replace(options, devices=parse_device_specs(devices))
    return options


def compile_module(module, ctx, devices=None, options=None, timing=None):
    """Run the pipeline on a parsed module; returns the ``.vmfb`` bytes (or, with
    ``compile_to`` before ``end``, the module's MLIR text as UTF-8 bytes). ``timing``: an
    ``instrumentation.Timing`` to record into."""
    from rt.compiler.ir_printing import module_to_text
    from rt.compiler.passes.pipeline import pass_manager
    from rt.compiler.passes.vm.conversion import vmfb_bytes

    options = _options(devices, options)
    pass_manager(options, timing).run(module, ctx)
    with _scope(timing, "output"):
        if options.compile_to != "end":
            return module_to_text(module).encode("utf-8")
        return vmfb_bytes(module)


def compile_source(text, filename="<input>", devices=None, options=None):
    """Compile MLIR ``text`` (see the module docstring for devices and options)."""
    from rt.compiler.dialects import make_context
    from rt.compiler.frontend import parse_module
    from rt.compiler.passes.instrumentation import Timing

    options = _options(devices, options)
    timing = Timing() if options.timing else None
    gc_thresholds = gc.get_threshold()
    try:
        # The IR is a graph of many small cyclic objects: with CPython's default thresholds the
        # collector rescans it so often that it costs ~20% of a large compile.
        gc.set_threshold(20000, 50, 1000)
        ctx = make_context()
        with _scope(timing, "parse"):
            # a full pipeline verifies the input in its first pass (``verify``), after the
            # legality check; from a later phase the parser verifies it
            module = parse_module(text, filename, ctx, verify=options.compile_from is not None)
        return compile_module(module, ctx, None, options, timing)
    finally:
        gc.set_threshold(*gc_thresholds)
        if timing is not None:
            sys.stderr.write(timing.report())
            sys.stderr.flush()


def compile_file(path, devices=None, options=None, output=None):
    """Compile the file at ``path``; writes ``output`` when given (whole or not at all:
    rt.runtime.atomic_write); returns the bytes."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as exc:
        raise InvalidArgumentError(f"cannot read {path}: {exc.strerror}") from None
    data = compile_source(text, str(path), devices, options)
    if output is not None:
        atomic_write(output, data)
    return data


def _scope(timing, name):
    return contextlib.nullcontext() if timing is None else timing.scope(name)
