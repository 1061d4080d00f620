"""``python -m rt``: compile | run | benchmark | benchmark-collectives | devices | dump | opt | keygen | sign | calibrate | replay | profile.

    python -m rt compile IN.mlir -o OUT.vmfb [--device=[NAME=]TARGET]... [--dump-after=PASS|all
                         --dump-dir=DIR] [--no-data-tiling] [--compile-to=PHASE]
                         [--compile-from=PHASE] [--timing] [--jobs=N] [--verify-each]
                         [--cache-dir=DIR] [--trace-dispatch-tensors | --trace-dispatch=SYMBOL]
    python -m rt --version
    python -m rt run MODULE.vmfb|IN.mlir --function=F --input=SPEC... [--output=SPEC]...
                     [--output_max_element_count=N]
                     [--device=URI]... [--trace=FILE.json] [--parameters=[SCOPE=]FILE]...
                     [--topology=T.yaml [--deterministic] [--report=R.json] [--inject=SPEC]...]
                     [--ranks=N [--group=NAME]]
                     with IN.mlir also: [--trace-dispatch-tensors | --trace-dispatch=SYMBOL]
                     [--no-data-tiling] [--no-reassociate-fp-reductions] [--Xcompiler,IREE_FLAG]...
    mpiexec -n N python -m rt run MODULE.vmfb --channel=mpi --input=@x_{rank}.npy ...
    python -m rt benchmark MODULE.vmfb|IN.mlir --function=F --input=SPEC... [--benchmark_repetitions=N]
                     [--benchmark_min_time=T|Ts|Nx | --repetitions=N] [--benchmark_format=console|json|csv]
                     [--benchmark_out=FILE [--benchmark_out_format=json|console|csv]] [--json=FILE]
    python -m rt benchmark-collectives --topology=T.yaml --op=all_reduce --sizes=8:256M [--real]
    python -m rt devices
    python -m rt dump MODULE.vmfb [--executables-to=DIR]
    python -m rt opt IN.mlir --pass=NAME...
    python -m rt keygen -o NAME                      (NAME.key private, NAME.pub public)
    python -m rt sign MODULE.vmfb --key=NAME.key [-o SIGNED.vmfb]
    python -m rt replay run|benchmark|dump R.rtreplay   (rt.replay_cli)
    python -m rt profile summary|dispatch|memory P.json [--jsonl]   (rt.profile_report)

``run`` and ``benchmark`` take ``--device_replay_output=R.rtreplay``,
``--device_profiling_mode=MODES``, ``--device_profiling_output=P.json`` and
``--print_device_statistics`` (rt.replay_capture).

``run`` and ``benchmark`` take ``--untrusted`` (safe mode: native executables only if
``--allow-executable=SHA256`` lists them or ``--trusted-key=NAME.pub`` verifies the module's
signature; docs/SECURITY.md).

IREE's own spellings of the flags (``--iree-hal-target-backends=``, ``-o -``,
``--benchmark_repetitions=``, ...) are accepted where they mean the same (rt.iree_flags,
docs/iree_flags.md).

``run`` and ``benchmark`` follow iree-run-module / iree-benchmark-module: inputs in IREE's
syntax (rt.tensor_text), outputs printed as ``EXEC @f`` / ``result[0]: hal.buffer_view`` /
``2x2xf32=[1 2][3 4]``. Every error is one ``rt <command>: <message>`` on stderr and exit
code 1 (RT_TRACEBACK=1 shows the Python traceback of unexpected failures); an unknown flag or
command names the nearest one ("did you mean"); the files a command writes are checked before it
runs and written whole (rt.runtime.atomic_write); a closed stdout pipe (``| head``) ends the
process by SIGPIPE, quietly, as a C tool ends (rt.cli_support). ``benchmark`` runs and reports
as iree-benchmark-module (Google Benchmark; rt.benchmark_runner).
"""
import argparse
import functools
import os
import sys

from rt.cli_module_io import (add_mlir_compile_arguments, check_outputs, function_named, load_module, parse_inputs,
                              print_results, print_statistics, tracer_for)
from rt.cli_multi_device import (add_arguments, chakra_recorder, finish, run_mpi, run_spmd, simulated_clock,
                                 simulated_rows)
from rt.replay_capture import Capture
from rt.replay_capture import add_arguments as add_capture_arguments
from rt.runtime.atomic_write import atomic_write
from rt.runtime.errors import InvalidArgumentError, NotFoundError, RtError


class _Parser(argparse.ArgumentParser):
    """argparse whose usage errors become InvalidArgumentError (one line, exit code 1); flags
    are matched whole, never by prefix (as IREE's tools match them)."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message):
        raise InvalidArgumentError(f"{message} (see {self.prog} --help)")


def _cmd_dump(args):
    from rt.runtime.vm import dump
    from rt.runtime.vm.module import Module

    module = Module.load(args.module)
    sys.stdout.write(dump.dump_module(module))
    if args.executables_to:
        paths = dump.write_executables(module, args.executables_to)
        print(f"wrote {len(paths)} executables to {args.executables_to}", file=sys.stderr)
    return 0


def _cmd_opt(argv):
    from rt.compiler.tools import opt_main

    return opt_main(argv)


def _cmd_compile(args):
    from rt.compilation import compile

    check_outputs(args)

    vmfb = compile(args.input, devices=args.device or None, dump_after=args.dump_after,
                   dump_dir=args.dump_dir, data_tiling=args.data_tiling, compile_to=args.compile_to,
                   compile_from=args.compile_from, timing=args.timing, jobs=args.jobs,
                   verify_each=args.verify_each, cache_dir=args.cache_dir,
                   reassociate_fp_reductions=args.reassociate_fp_reductions,
                   trace_dispatch_tensors=args.trace_dispatch_tensors, trace_dispatch=args.trace_dispatch,
                   input_type=args.input_type)
    if args.output == "-":
        sys.stdout.buffer.write(vmfb)
        sys.stdout.flush()
        return 0
    atomic_write(args.output, vmfb)
    return 0


def _cmd_run(args):
    check_outputs(args)
    tracer = tracer_for(args)
    capture = Capture(args, tracer)
    module = load_module(args, capture.sink)
    try:
        chakra = chakra_recorder(module, args)
        function = function_named(module, args.function)
        check_outputs(args, function)
        print_each = functools.partial(print_results, max_elements=args.output_max_element_count)
        if args.ranks is not None:
            run_spmd(module, function, args, parse_inputs, print_each)
        elif args.channel:
            run_mpi(module, function, args, parse_inputs, print_each)
        else:
            prepared = function.prepare(*parse_inputs(function, args.input))
            print(f"EXEC @{function.name}")
            values = function.convert_results(capture.record(module, lambda: function.invoke(prepared)),
                                              prepared)
            print_results(function, values, args.output, args.output_max_element_count)
        if args.print_statistics:
            print_statistics(module)
        capture.write(module)
        finish(module, args, chakra)
    finally:
        module.close()
        if tracer is not None:
            tracer.write(args.trace)
    return 0



def _benchmark_settings(args):
    """(MinTime, repetitions) from the benchmark flags; rt's ``--repetitions=N`` is
    ``--benchmark_min_time=Nx`` (N timed calls)."""
    from rt.benchmark_runner import DEFAULT_MIN_TIME, MinTime, parse_min_time

    if args.repetitions is not None and args.repetitions < 1 or args.warmup < 0 or args.benchmark_repetitions < 1:
        raise InvalidArgumentError(f"--repetitions must be >= 1, --benchmark_repetitions >= 1 and --warmup >= 0, "
                                   f"got {args.repetitions}, {args.benchmark_repetitions} and {args.warmup}")
    if args.repetitions is not None and args.benchmark_min_time is not None:
        raise InvalidArgumentError("give --repetitions=N (N calls) or --benchmark_min_time, not both")
    if args.repetitions is not None:
        return MinTime(iterations=args.repetitions), args.benchmark_repetitions
    return parse_min_time(args.benchmark_min_time or DEFAULT_MIN_TIME), args.benchmark_repetitions


def _cmd_benchmark(args):
    from rt import benchmark_runner as gbench

    min_time, repetitions = _benchmark_settings(args)
    if args.ranks is not None or args.channel:
        raise InvalidArgumentError("rt benchmark runs one rank; time SPMD programs with rt run --ranks "
                                   "or --channel=mpi")
    check_outputs(args)
    tracer = tracer_for(args)
    capture = Capture(args, tracer)
    module = load_module(args, capture.sink)
    try:
        chakra = chakra_recorder(module, args)
        function = function_named(module, args.function)
        prepared = function.prepare(*parse_inputs(function, args.input))
        if args.device_replay_output:
            capture.record(module, lambda: function.invoke(prepared))
        for _ in range(args.warmup):
            function.invoke(prepared)
        clock = simulated_clock(module)
        simulated = []

        def call():
            begin = clock() if clock else 0.0
            function.invoke(prepared)
            if clock:
                simulated.append(clock() - begin)

        rows, times = gbench.measure(call, min_time, repetitions, f"BM_{function.name}/process_time/real_time")
        if args.print_statistics:
            print_statistics(module)
        capture.write(module)
        finish(module, args, chakra)
    finally:
        module.close()
        if tracer is not None:
            tracer.write(args.trace)
    rows += gbench.aggregates(rows)
    shown = [r for r in rows if r.aggregate_name] if (
        args.benchmark_display_aggregates_only or args.benchmark_report_aggregates_only) and len(rows) > 1 else rows
    ctx = gbench.context()
    if args.benchmark_format != "json":
        sys.stderr.write(gbench.context_text(ctx))
    sys.stdout.write(gbench.report(shown, args.benchmark_format, ctx))
    if simulated and args.benchmark_format == "console":
        print("\n".join(simulated_rows(f"BM_{function.name}", simulated)[0]))
    if args.benchmark_out:
        saved = [r for r in rows if r.aggregate_name] if args.benchmark_report_aggregates_only and len(rows) > 1 \
            else rows
        atomic_write(args.benchmark_out, gbench.report(saved, args.benchmark_out_format, ctx))
    if args.json:
        import json
        import statistics

        summary = {"function": function.name, "module": args.module, "repetitions": len(times),
                   "median_ms": statistics.median(times), "min_ms": min(times), "max_ms": max(times),
                   "mean_ms": statistics.fmean(times),
                   "stddev_ms": statistics.stdev(times) if len(times) > 1 else 0.0}
        if simulated:
            summary.update(simulated_rows(f"BM_{function.name}", simulated)[1])
        atomic_write(args.json, json.dumps(summary, indent=2))
    return 0


def _cmd_keygen(args):
    from rt.runtime.signing import generate_key

    private, public = generate_key()
    atomic_write(args.output + ".key", private, 0o600)
    atomic_write(args.output + ".pub", public, 0o644)
    print(f"wrote {args.output}.key (private: keep it secret) and {args.output}.pub")
    return 0


def _cmd_sign(args):
    from rt.runtime.signing import sign_module

    try:
        with open(args.module, "rb") as f:
            data = f.read()
    except OSError as e:
        raise NotFoundError(f"cannot read module {args.module!r}: {e.strerror}") from None
    atomic_write(args.output or args.module, sign_module(data, args.key))
    return 0


def _cmd_devices(args):
    from rt.runtime.hal import format_device_table

    sys.stdout.write("HAL drivers and devices:\n" + format_device_table())
    try:
        import llvmlite.binding as llvm

        from rt.devices.llvm_cpu.cpu_features import host_cpu_features

        features = sorted(host_cpu_features())
        print(f"host CPU: {llvm.get_host_cpu_name()} ({llvm.get_process_triple()}), "
              f"{os.cpu_count()} logical cores")
        print(f"CPU features ({len(features)}): " + " ".join("+" + f for f in features))
    except ImportError as e:
        print(f"host CPU: unknown (llvmlite unavailable: {e})")
    return 0


def _add_compile(sub):
    """The ``compile`` subcommand's parser."""
    p = sub.add_parser("compile", help="compile an .mlir file into a .vmfb module")
    p.add_argument("input", help="input .mlir file")
    p.add_argument("-o", "--output", required=True, help="output .vmfb path (- for stdout)")
    p.add_argument("--device", action="append", default=[], metavar="[NAME=]TARGET",
                   help="device global and its target: vmvx, llvm-cpu, llvm-cpu:<cpu> (repeatable)")
    p.add_argument("--dump-after", default=None, metavar="PASS|all", help="write the IR after a pass")
    p.add_argument("--dump-dir", default=None, metavar="DIR",
                   help="directory for --dump-after files (- prints them to stderr)")
    p.add_argument("--no-data-tiling", dest="data_tiling", action="store_false",
                   help="do not pack matmul operands (no set-encoding)")
    p.add_argument("--no-reassociate-fp-reductions", dest="reassociate_fp_reductions", action="store_false",
                   help="keep llvm-cpu float reductions in loop order (reproducible sums, slower)")
    p.add_argument("--compile-to", default="end", metavar="PHASE",
                   help="stop after this phase and write its MLIR (input, abi, ..., flow, stream, hal, vm)")
    p.add_argument("--input-type", default="auto", metavar="TYPE",
                   help="auto (default: StableHLO/CHLO/TOSA ops are converted), stablehlo, tosa, or none "
                        "(iree-compile's --iree-input-type)")
    p.add_argument("--compile-from", default=None, metavar="PHASE",
                   help="the input is IR dumped after this phase; run the phases after it")
    p.add_argument("--timing", action="store_true", help="print the time of every pass to stderr")
    p.add_argument("--cache-dir", default=None, metavar="DIR",
                   help="keep generated executables in DIR by content and reuse them in later compiles")
    p.add_argument("--verify-each", action="store_true",
                   help="verify the IR after every pass (default: the input and the output; "
                        "RT_VERIFY=phase in the environment: after every phase)")
    p.add_argument("--jobs", type=int, default=0, metavar="N",
                   help="processes translating executables in parallel (default 0: one per core)")
    p.add_argument("--trace-dispatch-tensors", action="store_true",
                   help="print every dispatch's input and output tensors to stderr when the module runs")
    p.add_argument("--trace-dispatch", default="", metavar="SYMBOL",
                   help="like --trace-dispatch-tensors, for the dispatches whose symbol contains SYMBOL")
    p.set_defaults(func=_cmd_compile)


def _add_run_or_benchmark(sub, name):
    """The ``run`` or ``benchmark`` (``name``) subcommand's parser: the same module, input and
    device flags; run adds the output flags, benchmark Google Benchmark's."""
    func, text = (_cmd_run, "run one function of a module and print its results") if name == "run" else \
        (_cmd_benchmark, "time one function as iree-benchmark-module")
    p = sub.add_parser(name, help=text)
    p.add_argument("module", nargs="?", help=".vmfb module or .mlir file (compiled first)")
    p.add_argument("--module", dest="module_flag", default=None, metavar="PATH",
                   help="the module, iree-run-module style (instead of the positional)")
    p.add_argument("--function", default=None, help="exported function to call")
    p.add_argument("--input", action="append", default=[], metavar="SPEC",
                   help="argument in IREE syntax: 2x3xf32=1,2,3,4,5,6 | i32=4 | 2.5 | @x.npy")
    p.add_argument("--device", action="append", default=[], metavar="URI",
                   help="device URI bound to the module's devices in order (repeatable)")
    p.add_argument("--trace", default=None, metavar="FILE.json",
                   help="write a Chrome/Perfetto trace (a lane per device queue)")
    p.add_argument("--untrusted", action="store_true",
                   help="safe mode: refuse native executables unless allowed or signed")
    p.add_argument("--allow-executable", action="append", default=[], metavar="SHA256",
                   help="with --untrusted: a native executable to accept (repeatable)")
    p.add_argument("--trusted-key", action="append", default=[], metavar="KEY.pub",
                   help="with --untrusted: a public key whose module signatures to accept")
    p.add_argument("--parameters", action="append", default=[], metavar="[SCOPE=]FILE",
                   help="parameter file (.irpa or .safetensors) for the module's parameters (repeatable)")
    p.add_argument("--print-statistics", action="store_true",
                   help="print each device's allocator statistics after the run")
    add_mlir_compile_arguments(p)
    add_arguments(p)
    add_capture_arguments(p)
    p.set_defaults(func=func)
    if name == "run":
        p.add_argument("--output", action="append", default=[], metavar="SPEC",
                       help="per result: - (print), empty (drop), @FILE (write) or +FILE (append); "
                            "FILE.npy an ndarray, other names the raw bytes (as iree-run-module)")
        p.add_argument("--output_max_element_count", type=int, default=1024, metavar="N",
                       help="print up to N elements of each result and elide the rest (default 1024)")
    else:
        p.add_argument("--benchmark_repetitions", type=int, default=1, metavar="N",
                       help="Google Benchmark repetitions; with N > 1 mean/median/stddev/cv rows follow")
        p.add_argument("--benchmark_min_time", "--min-time", default=None, metavar="T|Ts|Nx",
                       help="per repetition: iterate until T seconds (default 0.5s), or N iterations (Nx)")
        p.add_argument("--repetitions", type=int, default=None, metavar="N",
                       help="rt's shorthand for --benchmark_min_time=Nx: N timed calls")
        p.add_argument("--benchmark_format", choices=("console", "json", "csv"), default="console",
                       help="report format on stdout (default console)")
        p.add_argument("--benchmark_out", default=None, metavar="FILE",
                       help="also write the report to FILE, in --benchmark_out_format")
        p.add_argument("--benchmark_out_format", choices=("console", "json", "csv"), default="json",
                       help="format of --benchmark_out (default json)")
        p.add_argument("--benchmark_display_aggregates_only", action="store_true",
                       help="with repetitions: show only the aggregate rows on stdout")
        p.add_argument("--benchmark_report_aggregates_only", action="store_true",
                       help="with repetitions: only the aggregate rows, on stdout and in --benchmark_out")
        p.add_argument("--warmup", type=int, default=1, help="untimed calls first (default 1)")
        p.add_argument("--json", default=None, metavar="FILE",
                       help="also write rt's summary of the timed calls (median/min/max ms) as JSON")


def _add_collectives(sub):
    """The ``benchmark-collectives`` subcommand's parser (rt.cli_collectives)."""
    from rt.cli_collectives import add_subcommand

    add_subcommand(sub)


def _add_devices(sub):
    """The ``devices`` subcommand's parser."""
    p = sub.add_parser("devices", help="list HAL drivers, devices and the host CPU's features")
    p.set_defaults(func=_cmd_devices)


def _add_dump(sub):
    """The ``dump`` subcommand's parser."""
    p = sub.add_parser("dump", help="print a .vmfb: manifest, segments and disassembly")
    p.add_argument("module", help="path to a .vmfb file")
    p.add_argument("--executables-to", default=None, metavar="DIR",
                   help="also write each executable's binary (llvm-cpu: NAME.o) and metadata (NAME.json) into DIR")
    p.set_defaults(func=_cmd_dump)


def _add_keygen(sub):
    """The ``keygen`` subcommand's parser."""
    p = sub.add_parser("keygen", help="make an Ed25519 key pair for signing modules")
    p.add_argument("-o", "--output", required=True, metavar="NAME", help="writes NAME.key, NAME.pub")
    p.set_defaults(func=_cmd_keygen)


def _add_sign(sub):
    """The ``sign`` subcommand's parser."""
    p = sub.add_parser("sign", help="sign a .vmfb with an Ed25519 private key")
    p.add_argument("module", help="path to a .vmfb file")
    p.add_argument("--key", required=True, metavar="NAME.key", help="private key (PEM)")
    p.add_argument("-o", "--output", default=None, help="signed module path (default: in place)")
    p.set_defaults(func=_cmd_sign)


def _add_opt(sub):
    """The ``opt`` subcommand's parser."""
    sub.add_parser("opt", help="run compiler passes on an .mlir file and print the result")


def _add_calibrate(sub):
    """The ``calibrate`` subcommand's parser (rt.cli_calibrate)."""
    from rt.cli_calibrate import add_parser

    add_parser(sub)


def _add_replay(sub):
    """The ``replay`` subcommand's parser (rt.replay_cli)."""
    from rt.replay_cli import register

    register(sub)


def _add_profile(sub):
    """The ``profile`` subcommand's parser (rt.profile_report)."""
    from rt.profile_report import register

    register(sub)


#: each subcommand's parser builder, in the order ``python -m rt --help`` lists them
_SUBPARSERS = {"compile": _add_compile, "run": functools.partial(_add_run_or_benchmark, name="run"),
               "benchmark": functools.partial(_add_run_or_benchmark, name="benchmark"),
               "benchmark-collectives": _add_collectives, "devices": _add_devices, "dump": _add_dump,
               "keygen": _add_keygen, "sign": _add_sign, "opt": _add_opt, "calibrate": _add_calibrate,
               "replay": _add_replay, "profile": _add_profile}


def build_parser(command=None):
    """The ``python -m rt`` parser; with ``command``, its subparser is the only one built (a run
    starts faster; every flag, message and help text is the same as in the full parser)."""
    parser = _Parser(prog="python -m rt", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for name in (_SUBPARSERS if command is None else (command,)):
        _SUBPARSERS[name](sub)
    return parser


# Subcommands that own their whole argument list (their flags are parsed by the tool itself).
_PASSTHROUGH = {"opt": _cmd_opt}
_COMMANDS = ("compile", "run", "benchmark", "benchmark-collectives", "devices", "dump", "opt",
             "keygen", "sign", "calibrate", "replay", "profile")


def _long_flags(parser, command):
    """The ``--flags`` of subcommand ``command`` (to name the nearest one to an unknown flag)."""
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return [o for a in sub.choices[command]._actions for o in a.option_strings if o.startswith("--")]


def _parse(parser, argv, command):
    """``parser.parse_args(argv)``, with "did you mean" for an unknown command or flag."""
    from rt.cli_support import did_you_mean

    if argv and command is None and not argv[0].startswith("-"):
        raise InvalidArgumentError(f"unknown command {argv[0]!r}{did_you_mean(argv[0], _COMMANDS)} "
                                   f"(commands: {', '.join(_COMMANDS)})")
    args, extra = parser.parse_known_args(argv)
    for arg in extra:
        if arg.startswith("-"):
            flag = arg.partition("=")[0]
            known = _long_flags(parser, command) if command else ["--help", "--version"]
            from rt.iree_flags import iree_spellings

            raise InvalidArgumentError(f"unknown flag {flag}{did_you_mean(flag, known + iree_spellings(command))} "
                                       f"(see python -m rt {command or ''} --help)".replace("  ", " "))
    if extra:
        raise InvalidArgumentError(f"unexpected argument {extra[0]!r} (see python -m rt {command} --help)")
    return args


def _fail(command, error):
    text = str(error)
    print(f"rt {command}: {text}" if command else f"rt: {text}", file=sys.stderr)
    return 1


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    command = argv[0] if argv and argv[0] in _COMMANDS else None
    args = None
    try:
        if "--version" in argv[:argv.index("--")] if "--" in argv else "--version" in argv:
            from rt.cli_support import version_text

            sys.stdout.write(version_text())
            sys.stdout.flush()
            return 0
        if command in _PASSTHROUGH:
            return _PASSTHROUGH[command](argv[1:])
        parser = build_parser(command)
        if command is not None:
            from rt.iree_flags import translate

            argv = [command] + translate(command, argv[1:], _long_flags(parser, command))
        args = _parse(parser, argv, command)
        code = args.func(args)
        sys.stdout.flush()
    except BrokenPipeError:
        from rt.cli_support import end_on_broken_pipe

        code = end_on_broken_pipe()
    except RtError as e:
        code = _fail(command, e)
    except KeyboardInterrupt:
        code = 130
    except Exception as e:
        if os.environ.get("RT_TRACEBACK"):
            import traceback

            traceback.print_exc()
        code = _fail(command, f"internal error: {type(e).__name__}: {e} (set RT_TRACEBACK=1 for details)")
    if code and getattr(args, "channel", None) == "mpi":
        # A failed rank skips MPI_Finalize, which would wait for the peers it failed, and ends
        # the job with MPI_Abort: mpiexec exits with this code (the peers have seen the cause).
        from rt.runtime.hal.drivers.mpi_channel import end_job

        end_job(code)
    return code


def process_main():
    """The ``python -m rt`` / ``rt`` process: :func:`main` on ``sys.argv``; returns its exit code.

    The objects still alive afterwards are then frozen out of the garbage collector
    (``gc.freeze``), so that the interpreter's teardown does not traverse every imported
    module's objects in its final collections (~20 ms of a small ``rt run``, issue 24 item 6).
    atexit handlers, stream flushes and module finalization run as usual; only objects caught
    in reference cycles may end without their ``__del__``, which Python never promises at exit.
    """
    code = main()
    import gc

    gc.freeze()
    return code
