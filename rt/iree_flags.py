"""IREE's command-line spellings, accepted by ``python -m rt`` where they mean what rt's flags mean.

Users paste ``iree-compile`` / ``iree-run-module`` / ``iree-benchmark-module`` command lines;
:func:`translate` rewrites the IREE flags of one subcommand's argument list into rt's flags
before argparse sees them. ``ALIASES`` is the table (also printed in docs/iree_flags.md, which a
test keeps in sync): ``(commands, IREE flag, rt flag, note)``. An ``--iree-*`` flag that is not
in the table is an error, never silently ignored: ``INSTEAD`` says what to use for common IREE
flags rt has no counterpart for; otherwise it names the nearest rt flag (or IREE alias).

Source followed: the flags of IREE's tools (``iree-compile --help``, ``iree-run-module --help``,
``iree-benchmark-module --help``; TargetOptions, GlobalOptimizationOptions, Google Benchmark).
"""

from rt.runtime.errors import InvalidArgumentError

COMPILE = ("compile",)
RUN = ("run", "benchmark")
BENCH = ("benchmark",)

#: (commands, IREE spelling, rt spelling, note) -- the documented alias table
ALIASES = (
    (COMPILE, "--iree-hal-target-backends=B", "--device=B",
     "one backend per device in rt: llvm-cpu or vmvx; several backends are an error"),
    (COMPILE, "--iree-hal-target-device=[NAME=]D", "--device=[NAME=]B",
     "D: local (backend from --iree-hal-local-target-device-backends, default llvm-cpu), llvm-cpu or vmvx"),
    (COMPILE, "--iree-hal-local-target-device-backends=B", "--device=B", "the backend of 'local' devices"),
    (COMPILE, "--iree-llvmcpu-target-cpu=CPU", "--device=llvm-cpu:CPU",
     "applied to every llvm-cpu device; host = the default; generic = x86-64"),
    (COMPILE, "--iree-opt-data-tiling[=true|false]", "(default) | --no-data-tiling", ""),
    (COMPILE, "--iree-llvmcpu-reassociate-fp-reductions[=true|false]", "(default) | --no-reassociate-fp-reductions",
     "false: llvm-cpu float reductions in loop order"),
    (COMPILE, "--mlir-print-ir-after-all", "--dump-after=all --dump-dir=-", "IR after every pass on stderr"),
    (COMPILE, "--mlir-print-ir-after=PASS", "--dump-after=PASS --dump-dir=-", "pass names are IREE's"),
    (COMPILE, "--compile-to=PHASE", "--compile-to=PHASE", "IREE's phase names"),
    (COMPILE, "--mlir-timing", "--timing", "the time of every pass on stderr"),
    (COMPILE, "--mlir-disable-threading", "--jobs=1", "executables translated one at a time, in this process"),
    (COMPILE, "--iree-flow-trace-dispatch-tensors", "--trace-dispatch-tensors",
     "each dispatch's inputs and outputs printed to stderr at run time"),
    (COMPILE, "--iree-flow-trace-dispatch=SYMBOL", "--trace-dispatch=SYMBOL",
     "dispatches whose symbol contains SYMBOL; IREE's @function:ordinal form is not supported"),
    (COMPILE, "--output-format=vm-bytecode", "(default)", "the only output format"),
    (COMPILE, "--iree-input-type=auto|none|stablehlo|tosa", "--input-type=TYPE",
     "StableHLO/CHLO and TOSA programs are converted by rt's own input phase; torch and onnx are not read yet"),
    (COMPILE, "-o -", "-o -", "write the module (or IR) to stdout"),
    (RUN, "--Xcompiler,FLAG", "FLAG's rt spelling",
     "iree-run-mlir's form (the iree-compile flags above are also taken bare): they apply to an .mlir "
     "module, compiled first; a target backend B becomes --device=local-task://B"),
    (RUN, "--module=PATH", "MODULE (positional)", ""),
    (RUN, "--device=local-task|local-sync", "--device=URI", "also local-task://vmvx etc."),
    (RUN, "--function=F / --input=SPEC / --output=SPEC", "the same", "IREE's value syntax"),
    (RUN, "--parameters=[SCOPE=]FILE", "--parameters=[SCOPE=]FILE", ".irpa or .safetensors (repeatable)"),
    (RUN, "--print_statistics", "--print-statistics", "allocator statistics of each device after the run"),
    (RUN, "--task_topology_group_count=N", "--device=local-task://D?threads=N",
     "added to every local-task --device (or --device=local-task?threads=N when none is given); "
     "default: the CPUs the process may use"),
    (RUN, "--task_topology_max_group_count=N", "--device=local-task://D?max_threads=N",
     "caps that default"),
    (RUN, "--task_topology_cpu_ids=0,1,...", "--device=local-task://D?cpu_ids=0,1,...",
     "pins the llvm-cpu workers to these CPUs in order (threads: their count); default: nothing pinned"),
    (BENCH, "--benchmark_repetitions=N", "--benchmark_repetitions=N",
     "Google Benchmark repetitions, with _mean/_median/_stddev/_cv rows"),
    (BENCH, "--benchmark_min_time=T|Ts|Nx", "--benchmark_min_time=T|Ts|Nx",
     "per repetition: T seconds (default 0.5s) or N iterations; rt's --repetitions=N is Nx"),
)

#: IREE flags rt has no alias for, with what to use instead (named in the error before the
#: nearest-spelling guess, which cannot know meanings)
INSTEAD = {
    "--iree-hal-dump-executable-files-to": "--dump-after=iree-hal-materialize-interfaces --dump-dir=DIR "
                                           "(each executable's IR before codegen); python -m rt dump M.vmfb "
                                           "lists the executables built",
    "--iree-hal-dump-executable-sources-to": "--dump-after=iree-hal-materialize-interfaces --dump-dir=DIR",
    "--iree-hal-dump-executable-intermediates-to": "nothing: rt keeps the LLVM IR it generates in memory; "
                                                   "--dump-after=iree-hal-materialize-interfaces --dump-dir=DIR "
                                                   "shows each executable's IR before codegen",
    "--iree-hal-dump-executable-binaries-to": "python -m rt dump M.vmfb --executables-to=DIR (each "
                                              "executable's object file and metadata)",
    "--iree-llvmcpu-target-triple": "rt's llvm-cpu targets the host's x86_64 ELF; choose the CPU with "
                                    "--device=llvm-cpu:CPU",
    "--iree-llvmcpu-enable-ukernels": "rt's data-tiled matmuls always run its mmt4d microkernels; "
                                      "--no-data-tiling turns that path off",
    "--iree-opt-const-eval": "nothing: rt evaluates hoisted constant expressions in the module "
                             "initializer at load time (iree-util-hoist-into-globals), never at compile time",
    "--iree-flow-break-dispatch": "--compile-to=flow and edit the IR, or --trace-dispatch=SYMBOL",
}

_TRUE = {"true", "1", "on", ""}
_FALSE = {"false", "0", "off"}
_BACKENDS = ("llvm-cpu", "vmvx")


def _split(arg):
    flag, sep, value = arg.partition("=")
    return flag, value if sep else None


def _bool(flag, value):
    text = (value or "").lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise InvalidArgumentError(f"{flag}={value}: expected true or false")


def _backend(flag, value):
    backend = {"local": None}.get(value, value)
    if backend is not None and backend not in _BACKENDS:
        raise InvalidArgumentError(f"{flag}={value}: rt compiles for {' or '.join(_BACKENDS)}")
    return backend


class _Compile:
    """State gathered from iree-compile flags, turned into rt flags at the end."""

    def __init__(self):
        self.devices, self.local_backend, self.cpu, self.out = [], None, None, []

    def take(self, flag, value):
        if flag == "--iree-hal-target-backends":
            backends = [b for b in (value or "").split(",") if b]
            if len(backends) != 1:
                raise InvalidArgumentError(
                    f"{flag}={value}: rt compiles one backend per device; give one of {', '.join(_BACKENDS)}, "
                    "or one device each: --device=a=llvm-cpu --device=b=vmvx")
            self.devices.append((None, _backend(flag, backends[0])))
        elif flag == "--iree-hal-target-device":
            name, sep, device = (value or "").rpartition("=")
            self.devices.append((name if sep else None, _backend(flag, device)))
        elif flag == "--iree-hal-local-target-device-backends":
            self.local_backend = _backend(flag, value)
        elif flag == "--iree-llvmcpu-target-cpu":
            self.cpu = {"host": "", "generic": "x86-64"}.get(value, value)
        elif flag == "--iree-opt-data-tiling":
            if not _bool(flag, value):
                self.out.append("--no-data-tiling")
        elif flag == "--iree-llvmcpu-reassociate-fp-reductions":
            if not _bool(flag, value):
                self.out.append("--no-reassociate-fp-reductions")
        elif flag == "--mlir-timing":
            if _bool(flag, value):
                self.out.append("--timing")
        elif flag == "--mlir-disable-threading":
            if _bool(flag, value):
                self.out.append("--jobs=1")
        elif flag == "--mlir-print-ir-after-all":
            self.out += ["--dump-after=all", "--dump-dir=-"]
        elif flag == "--mlir-print-ir-after":
            self.out += [f"--dump-after={value}", "--dump-dir=-"]
        elif flag == "--iree-flow-trace-dispatch-tensors":
            if _bool(flag, value):
                self.out.append("--trace-dispatch-tensors")
        elif flag == "--iree-flow-trace-dispatch":
            if not value or value.startswith("@"):
                raise InvalidArgumentError(
                    f"{flag}={value}: rt selects traced dispatches by symbol text "
                    "(--iree-flow-trace-dispatch=main_dispatch_0); the @function:ordinal form is not supported")
            self.out.append(f"--trace-dispatch={value}")
        elif flag == "--output-format":
            if value != "vm-bytecode":
                raise InvalidArgumentError(f"{flag}={value}: rt writes vm-bytecode modules only "
                                           "(use --compile-to=PHASE for MLIR text)")
        elif flag == "--iree-input-type":
            from rt.compiler.passes.pipeline import INPUT_TYPES

            if value not in INPUT_TYPES:
                raise InvalidArgumentError(
                    f"{flag}={value}: rt reads {', '.join(INPUT_TYPES)}; for {value}, convert first with "
                    f"iree-compile --iree-input-type={value} --compile-to=input")
            self.out.append(f"--input-type={value}")
        else:
            return False
        return True

    def finish(self, argv):
        out = []
        for arg in argv:
            flag, value = _split(arg)
            if flag == "--device" and value is not None and self.cpu is not None:
                arg = "--device=" + _with_cpu(value, self.cpu)
            out.append(arg)
        for name, backend in self.devices:
            target = _with_cpu(backend or self.local_backend or "llvm-cpu", self.cpu or "")
            out.append(f"--device={name}={target}" if name else f"--device={target}")
        return out + self.out


def _with_cpu(target, cpu):
    name, sep, rest = target.rpartition("=")
    spec = rest if sep else target
    if spec == "llvm-cpu" and cpu:
        spec = f"llvm-cpu:{cpu}"
    return f"{name}={spec}" if sep else spec


#: IREE's task topology flags and the local-task URI parameter each becomes
TOPOLOGY = {"--task_topology_group_count": "threads", "--task_topology_max_group_count": "max_threads",
            "--task_topology_cpu_ids": "cpu_ids"}


def _with_topology(out, topology):
    """``out`` with the local-task URI parameters ``topology`` added to every local-task
    ``--device`` (a ``--device=local-task?...`` when none is given)."""
    if not topology:
        return out
    query = "&".join(f"{key}={value}" for key, value in topology.items())
    result, devices = [], 0
    for arg in out:
        flag, value = _split(arg)
        if flag == "--device" and value:
            devices += 1
            if value.partition("?")[0].partition("://")[0] == "local-task":
                arg = f"--device={value}{'&' if '?' in value else '?'}{query}"
        result.append(arg)
    return result if devices else result + [f"--device=local-task?{query}"]


def _topology_value(flag, value):
    """A topology flag's value: a positive count, or (cpu_ids) comma-separated CPU numbers."""
    if flag == "--task_topology_cpu_ids":
        ok, want = bool(value) and all(p.isdigit() for p in value.split(",")), "comma-separated CPU numbers (0,1,2)"
    else:
        ok, want = bool(value) and value.isdigit() and int(value) >= 1, "a positive integer"
    if not ok:
        raise InvalidArgumentError(f"{flag}={value or ''}: expected {want}")
    return value


def _run_flag(command, flag, value):
    """rt spelling of one iree-run-module / iree-benchmark-module flag, or None."""
    if flag == "--print_statistics":
        return ["--print-statistics"] if value is None or _bool(flag, value) else []
    return None


def _device_kind(uri):
    """The device kind a ``--device`` URI names (``vmvx`` of ``local-task://vmvx?threads=2``)."""
    return uri.partition("://")[2].partition("?")[0] if "://" in uri else uri


def _finish_run(state, out):
    """rt run / benchmark of an ``.mlir`` module: the compile flags gathered in ``state`` (given
    bare or as iree-run-mlir's ``--Xcompiler,FLAG``) as rt run flags. A target backend with no
    ``--device`` becomes ``--device=local-task://BACKEND`` (the driver iree-run-mlir picks for a
    local device); with ``--device`` flags they must name the same kinds."""
    if state.cpu:
        raise InvalidArgumentError(
            f"--iree-llvmcpu-target-cpu={state.cpu}: rt run compiles an .mlir module for the host "
            f"CPU; for another CPU compile first: python -m rt compile --device=llvm-cpu:{state.cpu}")
    backends = [b or state.local_backend or "llvm-cpu" for _, b in state.devices]
    if not backends and state.local_backend:
        backends = [state.local_backend]
    given = [value for flag, value in map(_split, out) if flag == "--device" and value]
    if given and backends and [_device_kind(u) for u in given] != backends:
        raise InvalidArgumentError(
            f"the compile flags target {', '.join(backends)} but --device runs "
            f"{', '.join(given)}; give one of them, or devices of the same kinds "
            f"(--device=local-task://{backends[0]})")
    devices = [] if given else [f"--device=local-task://{b}" for b in backends]
    return out + devices + state.out


def translate(command, argv, rt_flags=()):
    """``argv`` (the arguments after the subcommand) with IREE's spellings replaced by rt's.

    ``rt_flags``: the subcommand's own long flags, used to name the nearest one when an
    ``--iree-*`` flag is unknown. For ``run`` / ``benchmark``, iree-compile flags (bare, or as
    iree-run-mlir's ``--Xcompiler,FLAG``) apply to an ``.mlir`` module compiled first
    (``_finish_run``). Raises InvalidArgumentError for an unknown ``--iree-*`` flag or an IREE
    flag whose value rt cannot honour (naming what would be right).
    """
    state = _Compile() if command == "compile" or command in RUN else None
    out, topology = [], {}
    for arg in argv:
        given = arg.partition("=")[0]
        xcompiler = command in RUN and arg.startswith("--Xcompiler,")
        if xcompiler:
            arg = "--" + arg.partition(",")[2].lstrip("-")
        flag, value = _split(arg)
        if command in RUN and flag.startswith("--mlir-print-ir-after"):
            raise InvalidArgumentError(
                f"{given}: rt {command} compiles an .mlir module without IR dumps; dump with "
                "python -m rt compile IN.mlir -o OUT.vmfb --dump-after=PASS --dump-dir=DIR")
        if state is not None and state.take(flag, value):
            continue
        if xcompiler and not flag.startswith("--iree-"):
            raise InvalidArgumentError(
                f"--Xcompiler,{arg[2:]}: not an iree-compile flag rt knows; rt run takes the compile "
                "flags of an .mlir module as --trace-dispatch-tensors, --trace-dispatch=SYMBOL, "
                "--no-data-tiling and --no-reassociate-fp-reductions, or their IREE spellings")
        if command in RUN and flag in TOPOLOGY:
            topology[TOPOLOGY[flag]] = _topology_value(flag, value)
            continue
        if command in RUN:
            replaced = _run_flag(command, flag, value)
            if replaced is not None:
                out += replaced
                continue
        if flag.startswith("--iree-"):
            raise InvalidArgumentError(_unknown(command, flag, rt_flags))
        out.append(arg)
    if command in RUN:
        return _with_topology(_finish_run(state, out), topology)
    return state.finish(out) if state is not None else out


def iree_spellings(command):
    """The IREE flags ``command`` accepts (``--iree-hal-target-backends``, ...), for "did you mean"."""
    return [iree.split("=")[0].split("[")[0].split(" ")[0] for commands, iree, _, _ in ALIASES
            if command in commands and iree.startswith("--")]


def _unknown(command, flag, rt_flags):
    import difflib  # lazily: `rt run` does not need it at start
    if flag in INSTEAD:
        return f"{flag} is an IREE flag rt does not implement; instead: {INSTEAD[flag]}"
    known = {}
    for commands, iree, rt, _ in ALIASES:
        if command in commands:
            if iree.startswith("--"):
                known[iree.split("=")[0].split("[")[0]] = rt
    candidates = list(known) + list(rt_flags)
    nearest = difflib.get_close_matches(flag, candidates, n=1, cutoff=0.0)
    hint = ""
    if nearest:
        best = nearest[0]
        hint = f"; did you mean {best} (rt: {known[best]})?" if best in known else f"; did you mean {best}?"
    return (f"{flag} is an IREE flag rt does not implement{hint}; IREE flags rt accepts: "
            f"{', '.join(sorted(known))} (docs/iree_flags.md)")
