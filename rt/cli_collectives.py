"""``rt benchmark-collectives``: collective time, algbw and busbw per message size, as
nccl-tests prints them.

    python -m rt benchmark-collectives --topology=t.yaml --op=all_reduce --sizes=8:256M
        [--step=2x|BYTES] [--dtype=float] [--algorithm=NAME] [--ranks=N] [--group=NAME]
    python -m rt benchmark-collectives --real --ranks=4 --op=all_gather --sizes=1K:64M
    mpiexec -n 2 python -m rt benchmark-collectives --real --channel=mpi --sizes=1K:64M

Simulated (the default, also spelled ``--dry-run``): every size is one collective on the
topology's links (rt.runtime.sim.collective_bench: the algorithm the topology or
``--algorithm`` picks, the ranks arriving together); the time is virtual. ``--real``: the
ranks are threads of this process (``LocalWorld``) or, with ``--channel=mpi``, the processes of
an ``mpiexec`` job; each size runs ``--warmup`` untimed then ``--iters`` timed collectives on
the channel (``Channel.collective``, what a compiled program's collective command calls)
between barriers, and the time is the mean wall time of one.

Sizes follow nccl-tests (``-b/-e/-f/-i``): ``MIN:MAX`` in bytes with K/M/G = 2^10/2^20/2^30,
``--step=2x`` multiplies, ``--step=1M`` adds. A size is the bytes nccl-tests counts (all_reduce,
broadcast, reduce: the buffer; all_gather, reduce_scatter: the n blocks gathered or scattered;
all_to_all: the send buffer), rounded down to whole elements (and to n blocks); count is its
elements. algbw = size / time, busbw = algbw x (all_reduce 2(n-1)/n; all_gather,
reduce_scatter, all_to_all (n-1)/n; broadcast, reduce 1), in GB/s (10^9 B/s), as nccl-tests'
PERFORMANCE.md defines them.
"""
import re
import statistics
import threading
import time

import numpy as np

from rt.runtime.errors import InvalidArgumentError

_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
_SIZE = re.compile(r"^([0-9]{1,15})([KMG]?)$")
MAX_BYTES = 1 << 40
MAX_SIZES = 1000
MAX_LOCAL_RANKS = 256
#: nccl-tests' type names (and rt's) -> collective element type name.
DTYPES = {"int8": "SINT_8", "uint8": "UINT_8", "int32": "SINT_32", "uint32": "UINT_32",
          "int64": "SINT_64", "uint64": "UINT_64", "half": "FLOAT_16", "float": "FLOAT_32",
          "double": "FLOAT_64", "bfloat16": "BFLOAT_16"}
_ALIASES = {"float16": "half", "float32": "float", "float64": "double", "f16": "half",
            "f32": "float", "f64": "double", "bf16": "bfloat16"}


def add_subcommand(sub):
    """Register ``benchmark-collectives`` on the ``rt`` subparsers ``sub``."""
    p = sub.add_parser("benchmark-collectives", help="collective time, algbw and busbw per size "
                       "(nccl-tests' columns), simulated on a topology or measured")
    p.add_argument("--topology", default=None, metavar="T.yaml",
                   help="the topology to simulate (a dims topology or an ASTRA-sim network file too)")
    p.add_argument("--op", default="all_reduce", metavar="OP",
                   help="all_reduce (default), all_gather, reduce_scatter, all_to_all, broadcast, reduce")
    p.add_argument("--sizes", default="8:256M", metavar="MIN:MAX",
                   help="message sizes in bytes, K/M/G = 2^10/2^20/2^30 (default 8:256M)")
    p.add_argument("--step", default="2x", metavar="Fx|BYTES",
                   help="multiply by F (2x, the default) or add BYTES between sizes")
    p.add_argument("--dtype", default="float", metavar="TYPE",
                   help="element type: " + ", ".join(DTYPES) + " (default float)")
    p.add_argument("--algorithm", default=None, metavar="NAME",
                   help="simulated: ring, tree, direct, halving_doubling, hierarchical, auto or "
                        "rendezvous (rt's in-process channel) (default: the topology's)")
    p.add_argument("--ranks", type=int, default=None, metavar="N",
                   help="ranks: the first N devices of the group (simulated; default all), or the "
                        "local ranks of --real (default 2)")
    p.add_argument("--group", default=None, metavar="NAME", help="the topology group the ranks use")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--dry-run", action="store_true", help="simulate (the default)")
    mode.add_argument("--real", action="store_true", help="run on this machine and measure")
    p.add_argument("--channel", choices=["mpi"], default=None,
                   help="with --real: one rank per process of an mpiexec job")
    p.add_argument("--iters", type=int, default=20, metavar="N", help="--real: timed collectives per size")
    p.add_argument("--warmup", type=int, default=5, metavar="N", help="--real: untimed collectives first")
    p.set_defaults(func=run)
    return p


def parse_size(text, flag):
    match = _SIZE.match(text.strip().upper()) if isinstance(text, str) else None
    value = int(match.group(1)) * _UNITS[match.group(2)] if match else 0
    if not match or not 1 <= value <= MAX_BYTES:
        raise InvalidArgumentError(f"{flag}: expected a size in bytes from 1 to 1T such as 8, 64K "
                                   f"or 256M, got {text!r}")
    return value


def sizes(spec, step):
    """The message sizes of ``--sizes=MIN:MAX`` and ``--step``."""
    low, colon, high = spec.partition(":")
    if not colon:
        raise InvalidArgumentError(f"--sizes: expected MIN:MAX such as 8:256M, got {spec!r}")
    low, high = parse_size(low, "--sizes"), parse_size(high, "--sizes")
    if high < low:
        raise InvalidArgumentError(f"--sizes: MAX ({high}) is below MIN ({low})")
    factor = re.match(r"^([0-9]+(?:\.[0-9]+)?)x$", step.strip()) if isinstance(step, str) else None
    if factor:
        ratio = float(factor.group(1))
        if not 1 < ratio <= 1024:
            raise InvalidArgumentError(f"--step: a factor must be above 1 and at most 1024, got {step!r}")
        nxt = lambda s: max(s + 1, int(s * ratio))
    else:
        add = parse_size(step, "--step (Fx or bytes)")
        nxt = lambda s: s + add
    out = [low]
    while nxt(out[-1]) <= high:
        out.append(nxt(out[-1]))
        if len(out) > MAX_SIZES:
            raise InvalidArgumentError(f"--sizes {spec} --step={step}: more than {MAX_SIZES} sizes; "
                                       "take a larger step")
    return out


def collective_op(kind, dtype):
    from rt.runtime.hal.collective import (CollectiveElementType, CollectiveKind, CollectiveOp,
                                           CollectiveReduction)

    reduces = kind in ("all_reduce", "reduce_scatter", "reduce")
    return CollectiveOp(CollectiveKind[kind.upper()],
                        CollectiveReduction.SUM if reduces else CollectiveReduction.NONE,
                        CollectiveElementType[DTYPES[dtype]])


def elements(kind, size, n, element_size):
    """The collective's element count (as ``iree_hal_command_buffer_collective`` counts) for a
    message of ``size`` bytes, rounded down; 0 when it holds no whole element per block."""
    whole = size // element_size
    if kind in ("all_gather", "reduce_scatter"):
        return whole // n
    if kind == "all_to_all":
        return whole // n * n
    return whole


def _check(args):
    from rt.runtime.sim.collective_bench import KINDS  # the simulator only when run

    kind = args.op
    if kind not in KINDS:
        from rt.cli_support import did_you_mean

        raise InvalidArgumentError(f"--op: unknown collective {kind!r}; expected one of "
                                   f"{', '.join(KINDS)}{did_you_mean(kind, KINDS)}")
    dtype = _ALIASES.get(args.dtype, args.dtype)
    if dtype not in DTYPES:
        raise InvalidArgumentError(f"--dtype: unknown type {args.dtype!r}; expected one of {', '.join(DTYPES)}")
    if args.ranks is not None and not 1 <= args.ranks <= 65536:
        raise InvalidArgumentError(f"--ranks must be from 1 to 65536, got {args.ranks}")
    if args.real:
        for flag, value in (("--topology", args.topology), ("--algorithm", args.algorithm),
                            ("--group", args.group)):
            if value is not None:
                raise InvalidArgumentError(f"{flag} is for simulated runs; --real measures the "
                                           "channel this machine has")
        if args.ranks is not None and args.ranks > MAX_LOCAL_RANKS and args.channel is None:
            raise InvalidArgumentError(f"--ranks={args.ranks}: --real runs local ranks as threads, "
                                       f"at most {MAX_LOCAL_RANKS}; use --channel=mpi for more")
        for flag, value in (("--iters", args.iters), ("--warmup", args.warmup)):
            if not 0 <= value <= 100000 or flag == "--iters" and value == 0:
                raise InvalidArgumentError(f"{flag} must be from {int(flag == '--iters')} to 100000, got {value}")
    else:
        if args.channel:
            raise InvalidArgumentError("--channel=mpi measures a real run: add --real")
        if args.topology is None:
            raise InvalidArgumentError("a simulated benchmark needs --topology=T.yaml (or --real to "
                                       "measure this machine)")
    return kind, dtype


def run(args):
    from rt.runtime.sim.collective_bench import BUS_FACTOR  # the simulator only when run

    kind, dtype = _check(args)
    op = collective_op(kind, dtype)
    plan = sizes(args.sizes, args.step)
    started = time.perf_counter()
    if args.real:
        rows, n, what = _real(args, kind, op, plan)
    else:
        rows, n, what = _simulated(args, kind, op, plan)
    if rows is None:                 # an MPI rank other than 0
        return 0
    if not rows:
        raise InvalidArgumentError(f"--sizes={args.sizes}: no size holds one {dtype} per block of "
                                   f"the {n} ranks; give larger sizes")
    redop = op.reduction.name.lower() if op.reduction.value else "none"
    root = 0 if kind in ("broadcast", "reduce") else -1
    out = [f"# rt benchmark-collectives: {kind} of {dtype} on {n} ranks, {what}",
           "#",
           f"# {'size':>10} {'count':>12} {'type':>8} {'redop':>6} {'root':>5} {'time':>11} "
           f"{'algbw':>8} {'busbw':>8}  algorithm",
           f"# {'(B)':>10} {'(elements)':>12} {'':>8} {'':>6} {'':>5} {'(us)':>11} "
           f"{'(GB/s)':>8} {'(GB/s)':>8}"]
    busbws = []
    for size, count, us, algorithm in rows:
        algbw = size / (us * 1e3) if us > 0 else 0.0
        busbw = algbw * BUS_FACTOR[kind](n)
        busbws.append(busbw)
        out.append(f"  {size:>10} {count:>12} {dtype:>8} {redop:>6} {root:>5} {us:>11.3f} "
                   f"{algbw:>8.2f} {busbw:>8.2f}  {algorithm}")
    out.append(f"# Avg bus bandwidth    : {statistics.fmean(busbws) if busbws else 0.0:.3f}")
    out.append(f"# {len(rows)} sizes in {time.perf_counter() - started:.2f} s wall time")
    print("\n".join(out))
    return 0


def _rows(kind, n, element_size, plan):
    """``(size, count)`` per planned size, skipping sizes below one element per block."""
    from rt.runtime.sim.collective_bench import message_bytes  # the simulator only when run

    rows = []
    for size in plan:
        count = elements(kind, size, n, element_size)
        if count:
            rows.append((message_bytes(kind, n, count, element_size), count))
    return rows


def _simulated(args, kind, op, plan):
    from rt.runtime.sim.collective_bench import simulate  # the simulator only when run

    from rt.multi_device import as_topology
    from rt.runtime.sim.simulation import Simulation

    topology = as_topology(args.topology)
    if args.algorithm is not None:
        topology = topology.with_algorithm(args.algorithm)
    names = topology.group(args.group)
    if args.ranks is not None:
        if args.ranks > len(names):
            raise InvalidArgumentError(f"--ranks={args.ranks}: topology {topology.name!r} has "
                                       f"{len(names)} devices in the group")
        names = names[:args.ranks]
    n = len(names)
    sim = Simulation(topology, dry_run=True)
    try:
        devices = [sim.device(name) for name in names]
        rows = []
        for size, count in _rows(kind, n, op.element_size, plan):
            algorithm, us = simulate(sim, devices, kind, count, op.element_size)
            rows.append((size, count, us, algorithm))
    finally:
        sim.release()
    return rows, n, f"simulated on {topology.name} ({topology.algorithm})"


def _real(args, kind, op, plan):
    if args.channel == "mpi":
        from rt.runtime.hal.drivers.mpi_channel import MpiChannelProvider

        provider = MpiChannelProvider()
        if args.ranks is not None and args.ranks != provider.count:
            raise InvalidArgumentError(f"--ranks={args.ranks}, but mpiexec started {provider.count} "
                                       "processes: leave --ranks out")
        channel = provider.create_channel(None, None, -1, -1)
        comm = provider.comm
        rows = _measure(channel, kind, op, plan, provider.count, args, comm.Barrier, "mpi")
        return (rows if provider.rank == 0 else None), provider.count, "measured on MPI"
    from rt.runtime.hal.drivers.local_channel import LocalWorld

    n = args.ranks or 2
    world = LocalWorld(n)
    channels = [world.provider(r).create_channel(None, None, -1, -1) for r in range(n)]
    barrier = threading.Barrier(n)
    results, errors = [None] * n, []

    def rank(r):
        try:
            results[r] = _measure(channels[r], kind, op, plan, n, args, barrier.wait, "local")
        except BaseException as e:       # the other ranks must not wait for this one
            errors.append(e)
            channels[r].abort(e)
            barrier.abort()

    threads = [threading.Thread(target=rank, args=(r,), name=f"rank {r}") for r in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return results[0], n, "measured on local ranks (threads)"


def _measure(channel, kind, op, plan, n, args, barrier, name):
    """Time ``args.iters`` collectives per size on ``channel`` (every rank runs this); rows
    name the channel ``name``."""
    rows = []
    for size, count in _rows(kind, n, op.element_size, plan):
        send_bytes, recv_bytes = op.byte_lengths(count, n)
        send = np.ones(send_bytes // op.element_size, op.dtype)
        recv = np.empty(recv_bytes // op.element_size, op.dtype)
        for _ in range(args.warmup):
            channel.collective(op, 0, send, recv, count)
        barrier()
        start = time.perf_counter()
        for _ in range(args.iters):
            channel.collective(op, 0, send, recv, count)
        barrier()
        rows.append((size, count, (time.perf_counter() - start) / args.iters * 1e6, name))
    return rows
