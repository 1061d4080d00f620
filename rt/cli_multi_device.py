"""``rt run`` / ``rt benchmark`` on simulated topologies and SPMD ranks (the CLI side of
rt.multi_device).

Flags: ``--topology=t.yaml`` (simulate the topology's devices; ``--collective-algorithm=NAME``
overrides its collectives' algorithm), ``--deterministic`` (roofline
times only, byte-identical runs), ``--dry-run`` (simulate without computing: no kernels, no
device memory; results print as ``4x8xf32=<not computed>``), ``--report=r.json`` (the simulation report),
``--chakra-trace=PREFIX`` (the run as a Chakra execution trace: ``PREFIX.{device index}.et`` and
``PREFIX.comm_groups.json``, rt.runtime.sim.chakra_trace), ``--inject=SPEC`` (repeatable fault,
rt.runtime.sim.faults), ``--ranks=N`` (SPMD: run the
function once per rank; ``{rank}`` in ``--input`` / ``--output`` expands to the rank),
``--group=NAME`` (the topology group the ranks run on), ``--bind-to=core`` (rank r's threads
on CPU r mod n, as mpiexec binds processes; rt.load's ``bind``), ``--channel=mpi`` (this process is one
rank of an MPI job started by ``mpiexec``; ``{rank}`` expands to the MPI rank). A simulated
``rt run`` ends with a summary table (makespan, per-device busy time and peak bytes, per-link
traffic); a simulated ``rt benchmark`` adds rows of the simulated time per call.
"""
import contextlib
import io
import sys

from rt.runtime.errors import InvalidArgumentError

RANK = "{rank}"


def add_arguments(parser):
    """Add the multi-device flags to a run/benchmark subparser."""
    parser.add_argument("--topology", default=None, metavar="FILE.yaml",
                        help="simulate the devices and links of a topology file")
    parser.add_argument("--collective-algorithm", default=None, metavar="NAME",
                        help="run the topology's collectives with ring | tree | direct | "
                             "halving_doubling | hierarchical | auto (overrides the file's)")
    parser.add_argument("--deterministic", action="store_true",
                        help="simulated time from the roofline model only: byte-identical runs")
    parser.add_argument("--dry-run", action="store_true",
                        help="simulate shapes, allocations, transfers and collectives without "
                             "executing kernels or backing device memory (results not computed)")
    parser.add_argument("--report", default=None, metavar="FILE.json",
                        help="write the simulation report (makespan, devices, links)")
    parser.add_argument("--chakra-trace", default=None, metavar="PREFIX",
                        help="write the simulated run as a Chakra execution trace for ASTRA-sim: "
                             "PREFIX.0.et ... (one per topology device) and PREFIX.comm_groups.json")
    parser.add_argument("--inject", action="append", default=[], metavar="SPEC",
                        help="inject a fault: device=NAME,fail_at=N | link=A-B,fail | link=A-B,slow=F "
                             "| device=NAME,memory=SIZE (repeatable)")
    parser.add_argument("--ranks", type=int, default=None, metavar="N",
                        help="run the function SPMD on N ranks ({rank} in --input/--output)")
    parser.add_argument("--group", default=None, metavar="NAME",
                        help="the topology group the ranks run on (default: the first group)")
    parser.add_argument("--bind-to", choices=["core"], default=None, dest="bind_to",
                        help="with --ranks on real devices: run rank r's threads on CPU r mod n "
                             "of this process's n (as mpiexec --bind-to core)")
    parser.add_argument("--channel", choices=["mpi"], default=None,
                        help="run as one rank of an MPI job (mpiexec -n N python -m rt run ... "
                             "--channel=mpi; {rank} in --input/--output is the MPI rank; "
                             "RT_MPI_TIMEOUT=seconds bounds each collective's wait)")


def load_options(args):
    """Keyword arguments for ``rt.load`` from the parsed flags."""
    if args.ranks is not None and args.ranks < 1:
        raise InvalidArgumentError(f"--ranks must be >= 1, got {args.ranks}")
    if args.bind_to is not None and args.ranks is None:
        raise InvalidArgumentError("--bind-to=core binds SPMD ranks' threads to cores: give "
                                   "--ranks=N too")
    topology = args.topology
    if args.collective_algorithm is not None:
        if topology is None:
            raise InvalidArgumentError("--collective-algorithm needs --topology")
        from rt.multi_device import as_topology

        topology = as_topology(topology).with_algorithm(args.collective_algorithm)
    if args.chakra_trace is not None:
        if not (args.topology or args.deterministic or args.inject or args.dry_run):
            raise InvalidArgumentError("--chakra-trace needs a simulation: give --topology, "
                                       "--deterministic or --dry-run")
        if args.channel:
            raise InvalidArgumentError("--chakra-trace with --channel=mpi: each MPI process "
                                       "simulates only its own ranks; export from one process "
                                       "with --ranks=N instead")
        from rt.runtime.sim.chakra_trace import check_prefix

        check_prefix(args.chakra_trace)
    return {"topology": topology, "deterministic": args.deterministic, "faults": args.inject,
            "dry_run": args.dry_run,
            "ranks": args.ranks, "group": args.group, "channel": args.channel,
            "bind": args.bind_to}


def is_multi_device(args):
    return bool(args.topology or args.deterministic or args.inject or args.ranks is not None
                or args.group or args.report or args.channel or args.dry_run or args.bind_to
                or args.chakra_trace is not None)


def rank_specs(specs, rank):
    """``specs`` with ``{rank}`` replaced by ``rank``."""
    return [s.replace(RANK, str(rank)) for s in specs]


def run_spmd(module, function, args, parse_inputs, print_results):
    """``rt run --ranks=N``: per-rank inputs, one SPMD call, per-rank results (with
    ``--dry-run`` the same inputs may go to every rank: their values are never read). Under
    ``--channel=mpi`` the N ranks are this process's share of N x (MPI size): ``{rank}`` is the
    global rank and MPI rank 0 prints every process's results in rank order."""
    ranks = len(module.ranks)
    offset = getattr(module.world, "rank_offset", 0)
    if (ranks > 1 and args.input and not args.dry_run
            and not any(RANK in s for s in args.input + args.output)):
        raise InvalidArgumentError(f"--ranks={ranks}: give per-rank inputs with {RANK} in their path "
                                   f"(e.g. --input=@x_{RANK}.npy); the same inputs on every rank would "
                                   "be passed as written")
    text = io.StringIO()
    try:
        inputs = [parse_inputs(function, rank_specs(args.input, offset + r)) for r in range(ranks)]
        results = function.spmd(inputs)
        with contextlib.redirect_stdout(text):
            for r, values in enumerate(results):
                print(f"rank {offset + r}:")
                print_results(function, values, rank_specs(args.output, offset + r))
    except BaseException as error:
        module.world.abort(error)
        raise
    mpi = getattr(module.world, "mpi", None)
    parts = [text.getvalue()] if mpi is None else mpi.gather_text(text.getvalue())
    if parts is not None:
        processes = "" if mpi is None else f" in {mpi.count} MPI processes"
        print(f"EXEC @{function.name} on {ranks * (1 if mpi is None else mpi.count)} rank(s){processes}")
        sys.stdout.write("".join(parts))


def run_mpi(module, function, args, parse_inputs, print_results):
    """``rt run --channel=mpi``: this process's rank runs the call; rank 0 prints every rank's
    results in rank order. A failure on any rank is posted to the others (their collectives
    fail naming it) before the error propagates."""
    provider = module.channel_provider
    rank = provider.rank
    try:
        inputs = parse_inputs(function, rank_specs(args.input, rank))
        prepared = function.prepare(*inputs)
        values = function.convert_results(function.invoke(prepared), prepared)
        text = io.StringIO()
        with contextlib.redirect_stdout(text):
            print(f"rank {rank}:")
            print_results(function, values, rank_specs(args.output, rank))
    except BaseException as error:
        provider.abort(error)
        raise
    parts = provider.gather_text(text.getvalue())
    if parts is not None:
        print(f"EXEC @{function.name} on {provider.count} MPI rank(s)")
        sys.stdout.write("".join(parts))


def simulated_clock(module):
    """``rt benchmark``: a function returning the simulation's virtual time (µs) once every
    pending event has run, or None for a module on real devices."""
    sim = getattr(module, "simulation", None)
    return None if sim is None else sim.drain


def simulated_rows(name, times_us):
    """``rt benchmark`` rows of the simulated time per call (µs) and their summary entries."""
    import statistics

    stats = {"median": statistics.median(times_us), "mean": statistics.fmean(times_us),
             "min": min(times_us), "max": max(times_us)}
    summary = {f"simulated_{key}_us": round(value, 3) for key, value in stats.items()}
    rows = [f"{name + '/simulated_time_' + key:<40}{summary['simulated_' + key + '_us']:>9.3f} us"
            f"{len(times_us):>8}" for key in ("median", "mean", "min", "max")]
    return rows, summary


def chakra_recorder(module, args):
    """A ``ChakraRecorder`` on the module's simulation for ``--chakra-trace`` (else None),
    created before the call so that it sees every operation."""
    if args.chakra_trace is None:
        return None
    from rt.runtime.sim.chakra_trace import ChakraRecorder

    return ChakraRecorder(module.simulation)


def finish(module, args, chakra=None):
    """After a run: the summary table, ``--report`` and ``--chakra-trace`` (``chakra``: the
    recorder of ``chakra_recorder``; a simulated module only)."""
    sim = getattr(module, "simulation", None)
    if sim is None:
        if args.report:
            raise InvalidArgumentError("--report needs a simulation: give --topology or --deterministic")
        return
    from rt.runtime.sim.report import summary, to_json

    report = sim.report()
    print(summary(report))
    if args.report:
        from rt.runtime.atomic_write import atomic_write

        atomic_write(args.report, to_json(report))
    if chakra is not None:
        paths = chakra.write(args.chakra_trace)
        print(f"chakra trace: {len(paths) - 1} files {args.chakra_trace}.{{0..{len(paths) - 2}}}.et "
              f"and {paths[-1]}")
