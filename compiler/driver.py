"""The compiler driver: MLIR text in, ``.vmfb`` bytes out, through every phase.

    from rt.compiler import compile_source
    vmfb = compile_source(text, "model.mlir", devices=[("__device_0", "llvm-cpu")],
                          options={"dump_after": "all", "dump_dir": "dumps"})

Pipeline (IREE's pass names): input (verify, canonicalize, cse,
convert-elementwise-to-linalg, linalg-normalize-named-ops), target devices
(iree-hal-assign/materialize-target-devices), abi + dispatch creation
(compiler/passes/dispatch_creation/pipeline.py), stream (compiler/passes/stream/pipeline.py),
hal (materialize-interfaces, translate-executables, convert-to-hal, serialize-executables),
vm (iree-vm-conversion). A phase whose pipeline module is not present contributes no passes.

Options: ``dump_after`` ("all", a pass name or a list of names) with ``dump_dir`` (writes
``NN_<pass>.mlir`` after each selected pass; the vm phase's dump shows the disassembly);
``data_tiling`` (bool, default True: matmuls are data-tiled by
iree-dispatch-creation-set-encoding; passed to the passes that take it); ``verify_each``
(default True). Devices: ``[(name, target)]`` or ``["name=target"]`` with target vmvx,
llvm-cpu or llvm-cpu:<cpu>; default ``__device_0=llvm-cpu`` unless the input declares devices.
Every failure is a CompileError located in the source (``file:line:col: error: ...``) or an
InvalidArgumentError for bad options.
"""
import dataclasses
import importlib

from rt.runtime.errors import InvalidArgumentError

INPUT_PASS_NAMES = ["verify", "canonicalize", "cse", "convert-elementwise-to-linalg",
                    "linalg-normalize-named-ops"]
KNOWN_OPTIONS = ("dump_after", "dump_dir", "data_tiling", "verify_each")


def _phase_pass_names(phase):
    try:
        module = importlib.import_module(f"rt.compiler.passes.{phase}.pipeline")
    except ModuleNotFoundError as exc:
        if exc.name != f"rt.compiler.passes.{phase}.pipeline":
            raise
        return []
    return list(module.PASS_NAMES)


def pass_names():
    """The full pipeline, in order (names registered in rt.compiler.passes)."""
    from rt.compiler.passes.hal import pipeline as hal_pipeline

    names = list(INPUT_PASS_NAMES) + list(hal_pipeline.TARGET_PASS_NAMES)
    names += _phase_pass_names("dispatch_creation")
    names += _phase_pass_names("stream")
    names += list(hal_pipeline.PASS_NAMES)
    names += _phase_pass_names("vm")
    return names


def _device_option(devices):
    from rt.compiler.passes.hal.target_devices import parse_device_specs

    specs = parse_device_specs(devices)
    return ";".join(f"{name}={target}" for name, target in specs)


def build_pipeline(devices=None, options=None):
    """The configured Pass instances of the whole pipeline."""
    from rt.compiler.passes import get_pass_class

    options = dict(options or {})
    unknown = set(options) - set(KNOWN_OPTIONS)
    if unknown:
        raise InvalidArgumentError(f"unknown compile option(s) {', '.join(sorted(unknown))}; "
                                   f"known: {', '.join(KNOWN_OPTIONS)}")
    passes = []
    for name in pass_names():
        cls = get_pass_class(name)
        fields = {f.name for f in dataclasses.fields(cls)}
        kwargs = {}
        if name == "iree-hal-assign-target-devices" and devices:
            kwargs["targets"] = _device_option(devices)
        if "data_tiling" in fields and "data_tiling" in options:
            kwargs["data_tiling"] = bool(options["data_tiling"])
        passes.append(cls(**kwargs))
    return passes


def compile_module(module, ctx, devices=None, options=None):
    """Run the pipeline on a parsed module; returns the ``.vmfb`` bytes."""
    from rt.compiler.passes import PassPipeline
    from rt.compiler.passes.vm.conversion import vmfb_bytes

    options = dict(options or {})
    passes = build_pipeline(devices, options)
    PassPipeline(passes, dump_after=options.get("dump_after"), dump_dir=options.get("dump_dir"),
                 verify_each=options.get("verify_each", True)).run(module, ctx)
    return vmfb_bytes(module)


def compile_source(text, filename="<input>", devices=None, options=None):
    """Compile MLIR ``text`` to ``.vmfb`` bytes (see the module docstring for options)."""
    from rt.compiler.dialects import make_context
    from rt.compiler.frontend import parse_module

    ctx = make_context()
    module = parse_module(text, filename, ctx)
    return compile_module(module, ctx, devices, options)


def compile_file(path, devices=None, options=None, output=None):
    """Compile the file at ``path``; writes ``output`` when given; returns the bytes."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as exc:
        raise InvalidArgumentError(f"cannot read {path}: {exc.strerror}") from None
    data = compile_source(text, str(path), devices, options)
    if output is not None:
        with open(output, "wb") as f:
            f.write(data)
    return data
