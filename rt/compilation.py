"""``rt.compile``: MLIR text or file -> ``.vmfb`` bytes, with IREE-style device options.

Wraps the compiler driver (``rt.compiler.driver.compile_source``) so that the runtime API
never imports the compiler (xdsl) unless something is compiled. Device targets follow
``iree-compile --iree-hal-target-device`` in spirit and rt's ``--device=[NAME=]TARGET`` flag:
TARGET is ``vmvx``, ``llvm-cpu`` or ``llvm-cpu:<cpu>`` (e.g. ``llvm-cpu:znver4``); NAME
defaults to ``__device_<i>``.
"""
import os

from rt.runtime.errors import InvalidArgumentError, NotFoundError, UnimplementedError


def read_source(source):
    """(text, filename) of ``source``: a path (str ending in .mlir or os.PathLike), MLIR text, or a
    JAX lowering (see :func:`compile`)."""
    if isinstance(source, bytes):
        return source.decode("utf-8", "replace"), "<input>"
    if isinstance(source, os.PathLike) or (isinstance(source, str) and "\n" not in source
                                           and "{" not in source):
        path = os.fspath(source)
        try:
            with open(path, encoding="utf-8") as f:
                return f.read(), path
        except FileNotFoundError:
            raise NotFoundError(f"input file {path!r} does not exist (rt.compile takes MLIR text or "
                                "a path to an .mlir file)") from None
        except (IsADirectoryError, UnicodeDecodeError) as e:
            raise InvalidArgumentError(f"cannot read {path!r} as MLIR text: {e}") from None
    if isinstance(source, str):
        return source, "<input>"
    text = _jax_text(source)
    if text is not None:
        return text
    raise InvalidArgumentError(f"rt.compile takes MLIR text, a path, a jax.stages.Lowered or a jax.export.Exported; "
                               f"got {type(source).__name__}")


def _jax_text(source):
    """(StableHLO text, name) of a ``jax.stages.Lowered`` (``as_text()``) or ``jax.export.Exported``
    (``mlir_module()``), told apart by those methods so JAX is never imported here; else None."""
    kind = f"{type(source).__module__}.{type(source).__name__}"
    if not kind.startswith("jax"):
        return None
    for method in ("mlir_module", "as_text"):
        fn = getattr(source, method, None)
        if callable(fn):
            text = fn()
            if isinstance(text, str):
                return text, f"<{kind}>"
    return None


def compile(source, devices=None, dump_after=None, dump_dir=None, data_tiling=True, compile_to="end",
            compile_from=None, timing=False, jobs=0, verify_each=False, cache_dir=None,
            reassociate_fp_reductions=True, trace_dispatch_tensors=False, trace_dispatch="", input_type="auto"):
    """Compile MLIR (text, or a path to an .mlir file) into ``.vmfb`` bytes.

    source may also be JAX's ``jax.jit(f).lower(*args)`` (a ``jax.stages.Lowered``) or a
    ``jax.export.Exported``: their StableHLO is converted by rt's own input phase (JAX is never
    imported by rt).

    devices: None (the input's own device globals, else one llvm-cpu device), a list of
    targets (``["llvm-cpu", "vmvx"]``, optionally ``"name=target"``) or ``{name: target}``;
    parsed once here into DeviceSpecs (rt.compiler.targets.device_spec).
    dump_after: a pass name, a list of names or ``"all"``: write the IR after it into ``dump_dir``.
    data_tiling: False disables set-encoding (matmuls stay unpacked).
    compile_to / compile_from: IREE phase names (input, abi, ..., flow, stream, hal, vm, end):
    stop after a phase (the result is then the module's MLIR text, as UTF-8 bytes) or start
    from IR dumped after one. timing: print the time of every pass to stderr. jobs: processes
    translating executables in parallel (0: one per core). verify_each: verify the IR after
    every pass (default: the input when parsed and the output; ``RT_VERIFY=phase`` in the
    environment: after every phase). cache_dir: a directory keeping generated
    executables by content, reused by later compilations. reassociate_fp_reductions: False keeps llvm-cpu
    float reductions in loop order (IREE's ``--iree-llvmcpu-reassociate-fp-reductions=false``).
    trace_dispatch_tensors: print every dispatch's input and output tensors when the module runs
    (IREE's ``--iree-flow-trace-dispatch-tensors``); trace_dispatch: only the dispatches whose
    export symbol contains this text (IREE's ``--iree-flow-trace-dispatch=SYMBOL``).
    input_type: IREE's ``--iree-input-type``: ``auto`` (default: StableHLO/CHLO/TOSA ops are
    converted in the input phase), ``stablehlo``, ``tosa``, ``none`` (such ops are an error).
    Raises CompileError (``file:line:col: error: ...``), NotFoundError for a missing file,
    InvalidArgumentError for bad options, UnimplementedError when the compiler is missing.
    """
    try:
        from rt.compiler.targets.device_spec import parse_device_specs
    except ImportError as e:
        raise UnimplementedError(f"the compiler is not available ({e}); install rt with its "
                                 "compiler dependencies (xdsl) or run a precompiled .vmfb") from None
    devices = parse_device_specs(devices) or None
    text, filename = read_source(source)
    if dump_after is not None and dump_dir is None:
        raise InvalidArgumentError(f"dump_after={dump_after!r} needs dump_dir (the directory the IR "
                                   "dumps are written to)")
    try:
        from rt.compiler.driver import compile_source
    except ImportError as e:
        raise UnimplementedError(f"the compiler is not available ({e}); install rt with its "
                                 "compiler dependencies (xdsl) or run a precompiled .vmfb") from None
    options = {"dump_after": dump_after, "dump_dir": None if dump_dir is None else os.fspath(dump_dir),
               "data_tiling": bool(data_tiling), "compile_to": compile_to, "compile_from": compile_from,
               "timing": bool(timing), "jobs": jobs, "verify_each": bool(verify_each),
               "cache_dir": None if cache_dir is None else os.fspath(cache_dir),
               "reassociate_fp_reductions": bool(reassociate_fp_reductions),
               "trace_dispatch_tensors": bool(trace_dispatch_tensors), "trace_dispatch": str(trace_dispatch or ""),
               "input_type": str(input_type)}
    return compile_source(text, filename, devices=devices, options=options)
