"""What ``rt run`` and ``rt benchmark`` share: loading the module, its inputs and its outputs.

* :func:`load_module`: the ``.vmfb`` (or an ``.mlir`` file compiled first with the compile flags
  run / benchmark took, as iree-run-mlir does) loaded on the ``--device`` flags.
* :func:`function_named`, :func:`parse_inputs`: the function to call and its ``--input``
  values in IREE's syntax (rt.tensor_text).
* :func:`check_outputs`, :func:`print_results`: every file the command writes checked before
  the run; results printed or written as iree-run-module's ``--output`` flags say.
* :func:`tracer_for`, :func:`print_statistics`: ``--trace`` and ``--print_statistics``.

Errors are InvalidArgumentError / NotFoundError naming the flag and what it should be.
Source followed: iree-run-module's flags and output (``tools/iree-run-module-main.cc``).
"""
import os

from rt.cli_multi_device import is_multi_device, load_options
from rt.runtime.errors import InvalidArgumentError, NotFoundError


#: rt compile flags that also apply to an .mlir module given to run / benchmark (compiled
#: first, as iree-run-mlir compiles): (flag, argparse keyword arguments)
_MLIR_COMPILE_FLAGS = (
    ("--no-data-tiling", dict(dest="data_tiling", action="store_false",
                              help="with an .mlir module: do not pack matmul operands")),
    ("--no-reassociate-fp-reductions", dict(dest="reassociate_fp_reductions", action="store_false",
                                            help="with an .mlir module: llvm-cpu float reductions "
                                                 "in loop order")),
    ("--trace-dispatch-tensors", dict(action="store_true",
                                      help="with an .mlir module: print every dispatch's input "
                                           "and output tensors to stderr")),
    ("--trace-dispatch", dict(default="", metavar="SYMBOL",
                              help="with an .mlir module: like --trace-dispatch-tensors, for the "
                                   "dispatches whose symbol contains SYMBOL")),
    ("--input-type", dict(default="auto", metavar="TYPE",
                          help="with an .mlir module: auto (default), stablehlo, tosa or none, as "
                               "iree-compile's --iree-input-type")),
)


def add_mlir_compile_arguments(parser):
    for flag, kwargs in _MLIR_COMPILE_FLAGS:
        parser.add_argument(flag, **kwargs)


def _mlir_compile_options(args):
    """``{flag: (rt.compile keyword, value, whether given)}`` for the compile flags run /
    benchmark took for an .mlir module."""
    options = {}
    for flag, kwargs in _MLIR_COMPILE_FLAGS:
        dest = kwargs.get("dest", flag[2:].replace("-", "_"))
        default = kwargs.get("default", kwargs.get("action") == "store_false")
        value = getattr(args, dest)
        options[flag] = (dest, value, value != default)
    return options


def load_module(args, tracer=None):
    from rt.loading import load

    if (args.module is None) == (args.module_flag is None):
        raise InvalidArgumentError("give the module once: python -m rt run MODULE.vmfb ... or --module=MODULE.vmfb")
    args.module = args.module or args.module_flag
    if not os.path.exists(args.module):
        raise NotFoundError(f"module file {args.module!r} does not exist")
    if not args.untrusted and (args.allow_executable or args.trusted_key):
        raise InvalidArgumentError("--allow-executable and --trusted-key apply to --untrusted")
    extra = load_options(args) if is_multi_device(args) else {}
    module = _compiled_if_mlir(args)
    return load(module, devices=args.device or None, tracer=tracer,
                trusted=not args.untrusted, allowed_executables=args.allow_executable,
                trusted_keys=args.trusted_key, parameters=args.parameters or None, **extra)


def _compiled_if_mlir(args):
    """``args.module``, compiled first when it is an ``.mlir`` file (with the compile flags run /
    benchmark took); InvalidArgumentError for compile flags given with a ``.vmfb``."""
    options = _mlir_compile_options(args)
    if args.module.endswith(".mlir"):
        from rt.compilation import compile
        from rt.device_binding import compile_targets

        return compile(args.module, devices=compile_targets(args.device or None),
                       **{dest: value for dest, value, _ in options.values()})
    given = [flag for flag, (_, _, was_given) in options.items() if was_given]
    if given:
        flag = given[0]
        raise InvalidArgumentError(
            f"{flag} is a compile flag: it applies when the module is an .mlir file (compiled "
            f"first), not to {args.module}; compile the module's source with it: "
            f"python -m rt compile IN.mlir -o OUT.vmfb {flag}")
    return args.module


def function_named(module, name):
    if name is None:
        if len(module.functions) == 1:
            return module.lookup(module.functions[0])
        raise InvalidArgumentError(f"--function=NAME is required; module {module.name} exports: "
                                   f"{', '.join(module.functions) or '(none)'}")
    return module.lookup(name)


def parse_inputs(function, specs):
    from rt.tensor_text import NpyReader, parse_input

    args = [a for a in function.abi.args if a.kind != "fence"]  # rt makes coarse-fences ABI fences
    if len(args) == len(function.abi.args):
        function.abi.check_count(len(specs))
    elif len(specs) != len(args):
        raise InvalidArgumentError(f"@{function.name} takes {len(args)} input(s) (its fences are made by rt), "
                                   f"got {len(specs)}")
    npy = NpyReader()
    try:
        return [parse_input(spec, arg, npy) for spec, arg in zip(specs, args)]
    finally:
        npy.close()


def check_outputs(args, function=None):
    """Before a run: every file the command will write (``--output=@``/``+``, ``--report``,
    ``--trace``, ``--json``, ``--benchmark_out``, ``-o``) can be created, and with ``function``
    the ``--output`` flags are one per result. InvalidArgumentError naming the flag otherwise."""
    from rt.runtime.atomic_write import check_writable
    from rt.tensor_text import output_kind

    for flag in ("report", "trace", "json", "benchmark_out", "device_replay_output",
                 "device_profiling_output"):
        path = getattr(args, flag, None)
        if path:
            check_writable(path, f"--{flag}={path}")
    if args.command == "compile":
        if args.output != "-":
            check_writable(args.output, f"-o {args.output}")
        return
    for spec in getattr(args, "output", ()):
        kind = output_kind(spec.replace("{rank}", "0"))
        if isinstance(kind, tuple):
            check_writable(kind[1], f"--output={spec}")
    outputs = getattr(args, "output", ())
    if function is not None and outputs and len(outputs) != len(results := function.abi.results):
        raise InvalidArgumentError(f"{len(outputs)} --output flags but @{function.name} returns "
                                   f"{len(results)} result(s); give one per result ('-' prints, "
                                   "an empty --output= drops)")


def print_results(function, values, outputs, max_elements=None):
    """Each result to where its ``--output`` sends it (rt.tensor_text.output_kind); with no
    ``--output`` flags every result is printed. As iree-run-module, the flags, when given, must
    be one per result."""
    from rt.tensor_text import MAX_PRINTED_ELEMENTS, output_kind, result_text, write_output

    max_elements = MAX_PRINTED_ELEMENTS if max_elements is None else max_elements
    results = function.abi.results
    values = () if not results else values if len(results) > 1 else (values,)
    for k, (value, res) in enumerate(zip(values, results)):
        spec = outputs[k] if outputs else "-"
        kind = output_kind(spec)
        if kind == "print":
            print(f"result[{k}]: {result_text(value, res.element, max_elements)}")
        elif kind != "drop":
            write_output(spec, value, res.element)


def tracer_for(args):
    """A Tracer when ``--trace=FILE.json`` was given, else None."""
    if not args.trace:
        return None
    from rt.trace import Tracer

    return Tracer()



def print_statistics(module):
    """Each device's allocator statistics, as iree-run-module --print_statistics prints them."""
    for device in module.devices:
        stats = device.allocator.query_statistics()
        print(f"[[ {device.uri} allocator memory statistics ]]")
        print(f"  {stats.bytes_peak:>12}B peak / {stats.bytes_allocated:>12}B allocated / "
              f"{stats.bytes_freed:>12}B freed / {stats.bytes_live:>12}B live "
              f"({stats.allocation_count} allocations, {stats.free_count} frees)")