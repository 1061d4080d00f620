"""``rt calibrate``: measure this host's devices and links, and write a topology describing them.

Every figure is a median of repeated runs (on a host shared with other jobs the median of
samples that take turns is what a job's calls see; the fastest is a lucky one), kernels the
median of their samples with the job's devices busy at once. The timed calls of the links and
of the host's costs take turns in one schedule (``Turns``), each turn after ``WARM_S`` of
untimed calls of itself; a benchmark may pass its own ``Turns`` so that they take turns with
the calls it measures (benchmarks/sim_accuracy.py):

* **Kernels**, per device URI: the programs of rt.runtime.sim.calibration_programs (matmuls,
  convs, elementwise ops and reductions of several sizes) run with the ``measured`` time model
  on as many devices of that URI at once as the topology has, up to the host's cores (SPMD
  ranks: the devices of a job share the host's caches and memory bandwidth; beyond the cores
  they share the cores too, which the simulator models, rt.runtime.sim.cores), traced: every dispatch slice gives ``(class,
  work, µs)``, work being the dispatch's flops for matmul/conv and its bytes (costs.dispatch_bytes) otherwise,
  exactly what the simulator will cost. Per class a least-squares line ``µs = overhead + work
  / throughput`` (rt.runtime.sim.dispatch_classes; matmul and conv also ``+ bytes / gbps``
  over square and skinny shapes, ``fit_compute``); the overhead is the per-dispatch launch
  cost (the executor's dispatch of the workgroups, the barrier after it). Each rank runs on
  data of its own, as a job's ranks do.
* **Memory**: ``queue_copy`` (work = bytes read + written) and ``queue_fill`` (bytes written)
  of several sizes within a device: the ``copy`` and ``fill`` classes; the copy throughput is
  the device's ``memory_gbps`` (and the matmul throughput its ``peak_gflops``).
* **In-process links**, two figures, for the two paths data takes between devices of one
  process. ``collective``: a call doing one all_reduce, of several sizes, over N ranks
  (``rt.load(..., ranks=N)``, the ranks' channel a ``LocalWorld`` rendezvous) minus a call of
  ``@nop`` taken moments before (the host's call cost, ``paired_difference``); the ring formula
  ``2(N-1)(α + S/(Nβ))`` fitted to it gives α and β (``fit_ring``). ``copy``:
  ``queue_copy`` of several sizes from a buffer of one device to another's less a tiny
  ``queue_fill`` (one queue operation) taken moments apart (``α + S/β``): what a copy command
  of ``flow.tensor.transfer`` adds to the operation it is in (``measure_copy_link``).
* **The host's cost of a call** (rt.runtime.sim.host_costs): a call of ``@nop`` (one
  4-element dispatch) on the N ranks, taking turns with the all_reduces: handing the call to the
  rank threads, the VM's work, one queue round trip (submission, the executor's wake-up, the
  fence's signal). Written as the topology's
  ``host: {call_us}``, with ``cores`` (``os.sched_getaffinity``) and ``dispatch_us``: what
  one more dispatch of an operation costs an untraced call of ``@chain`` (taking turns with
  ``@nop``) beyond the dispatch's own traced duration (``dispatch_gap_us``), and ``wake_us``:
  what a dependency between two devices' queues costs (``measure_wake``).
* **MPI loopback** (``mpi=True``), between two ``mpiexec -n 2`` processes
  (rt.runtime.sim.mpi_loopback): a ping-pong over several sizes (round trip ``2(α + S/β)``,
  the raw link, reported in the header), the ``@nop`` call on the two processes, and rt's
  all_reduce over ``channel="mpi"`` (a call of one minus the ``@nop`` call) fitted to the
  2-rank ring (the ``mpi`` link figures: they include rt's agreement exchange and polling,
  which a collective pays on top of the raw link). Without mpi4py or mpiexec the step is skipped, with the
  reason in the header.

The topology (``Calibration.yaml_text(links)``) has one device per requested URI (``cpu0``,
``cpu1``, ...) with its ``kernels``, a link between every two devices with the ``links``
figures (``collective``, ``copy`` or ``mpi``), a link from each device to the host (the copy
class), the host's call cost (of the MPI processes with ``mpi`` links), a group ``all`` and a
comment header saying how and when each figure was measured. Source of the method: the α-β
(Hockney) model fitted from ping-pong, as nccl-tests / OSU report links; Vidur's and
LLMCompass' per-operator profiles.
"""
import contextlib
import datetime
import importlib.util
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

import numpy as np
import yaml

from rt.runtime.errors import InvalidArgumentError, NotFoundError, RtError
from rt.runtime.sim import calibration_programs as programs
from rt.runtime.sim.calibration_defaults import DEFAULT_URI, LINKS
from rt.runtime.sim.dispatch_classes import COMPUTE_CLASSES, ClassCost, KernelCosts, classify
from rt.runtime.sim.link_table import LinkTable

REPS = {"quick": 3, "full": 7}
#: Sizes of the link sweeps (the link tables, rt.runtime.sim.link_table, and the α–β fits):
#: 1.5 · 2^k, a factor 2 apart as nccl-tests sweeps, and not benchmarks/sim_accuracy.py's
#: sizes (64 KiB, 1 and 4 MiB).
LINK_SIZES = {"quick": (3 << 12, 3 << 18, 3 << 21),
              "full": tuple(3 << k for k in range(12, 23))}
#: A fitted byte rate above this (GB/s) means a compute class's bytes do not matter.
MAX_BYTE_GBPS = 1e6
#: Timed calls in a row per turn of the collective sweeps (interleaved_samples): as many as
#: benchmarks/sim_accuracy.py's bursts of real calls (--repeats), so that both see calls
#: among calls of themselves alike.
RUNS = 15
#: Seconds of untimed calls before each turn of ``Turns`` (``interleaved_samples``' ``warm_s``).
WARM_S = 0.02
#: Untimed calls before each turn where the calls are MPI processes' (rt.runtime.sim.mpi_loopback,
#: benchmarks/sim_accuracy.py's MPI cases): what ``WARM_S`` is in process, as a count, since
#: every rank must make the same calls and a clock would stop each rank at another one. Why:
#: with one untimed call, 2 MPI processes' TP MLP, 0.45 ms a call among calls of itself,
#: measured 0.48-0.54 ms right after the sweep's 12 MiB all_reduces (2-vCPU development host,
#: 2026-11-29), 12-17% above what its matmuls and all_reduce measured alone add to.
WARM_RUNS = 20
MPI_SIZES = {"quick": (8, 1 << 16, 1 << 20), "full": (8, 1 << 12, 1 << 16, 1 << 20, 1 << 22)}


def fit_line(points, relative=True):
    """``(intercept >= 0, slope > 0)`` of the least-squares line through ``(x, y)`` points;
    through the origin when the free fit's intercept is negative. ``relative``: minimize the
    squared *relative* errors (y > 0), so that small sizes (where the intercept, a latency or
    an overhead, dominates) weigh as much as large ones: right for times whose noise grows with
    them (kernels, copies); otherwise the squared errors themselves, for differences of two
    timed calls, whose noise is the calls' (about the same at every size; such a difference may
    even be negative at a small size). InvalidArgumentError for fewer than two distinct x."""
    xs = np.array([p[0] for p in points], float)
    ys = np.array([p[1] for p in points], float)
    if len(set(xs.tolist())) < 2:
        raise InvalidArgumentError(f"a line needs two distinct sizes, got {sorted(set(xs.tolist()))}")
    weights = 1.0 / np.maximum(ys, 1e-9) if relative else np.ones_like(ys)
    slope, intercept = np.polyfit(xs, ys, 1, w=weights)
    if intercept < 0:
        w2 = weights ** 2
        intercept, slope = 0.0, float((w2 * xs) @ ys / ((w2 * xs) @ xs))
    return float(intercept), max(float(slope), 1e-12)


@dataclass(frozen=True)
class LinkFit:
    """A link's ``latency_us`` (α) and ``bandwidth_gbps`` (β, 1e9 B/s), how they were
    measured (``method``, one line) and ``points``: the measured ``(bytes, µs)`` of one
    transfer alone per size, the link's table (rt.runtime.sim.link_table; () if none)."""

    latency_us: float
    bandwidth_gbps: float
    method: str
    points: tuple = ()

    def table(self):
        """The ``LinkTable`` of ``points``, or None without two of them."""
        return LinkTable.from_points(self.points) if len(self.points) >= 2 else None


@dataclass
class Calibration:
    """What ``calibrate`` measured: ``uris`` (one per topology device), ``kernels`` (URI ->
    KernelCosts), the in-process ``collective_link`` and ``copy_link`` (None with one device),
    the MPI ``mpi_link`` (rt's collectives over MPI), ``mpi_pingpong`` (the raw link) and
    ``mpi_call_us`` (or None; ``mpi_note`` says why), ``call_us`` (ranks -> the host's µs per
    in-process call of ``@nop``), ``cores`` (the host cores this process may run on, which
    the devices share: rt.runtime.sim.cores), ``dispatch_us`` (µs between two dispatches of an
    operation) and ``wake_us`` (µs from one device's queue's signal to another's work waiting
    on it; both rt.runtime.sim.host_costs), ``kernel_points`` (URI -> the ``{class: [points]}`` the
    kernel fits came from, ``measure_kernels``' form, kept to re-fit) and ``seconds`` (how long
    it took)."""

    uris: list
    kernels: dict
    collective_link: LinkFit | None = None
    copy_link: LinkFit | None = None
    mpi_link: LinkFit | None = None
    mpi_pingpong: LinkFit | None = None
    mpi_call_us: float | None = None
    mpi_note: str = "not asked for (--mpi)"
    call_us: dict = field(default_factory=dict)
    kernel_points: dict = field(default_factory=dict)
    cores: int = 1
    dispatch_us: float = 0.0
    wake_us: float = 0.0
    mode: str = "full"
    seconds: float = 0.0

    def link(self, links):
        """The ``LinkFit`` of ``links`` ("collective", "copy" or "mpi"), None if not measured."""
        if links not in LINKS:
            raise InvalidArgumentError(f"links must be one of {', '.join(LINKS)}, got {links!r}")
        return {"collective": self.collective_link, "copy": self.copy_link, "mpi": self.mpi_link}[links]

    def topology_dict(self, links="collective"):
        """The topology as plain data, the links between devices with the ``links`` figures
        ("collective", "copy": in-process; "mpi": MPI loopback) and ``host.call_us`` the
        measured call cost of that setting (in-process ranks; the MPI processes for "mpi")."""
        fit = self.link(links)
        if links == "mpi" and fit is None:
            raise InvalidArgumentError(f"no MPI link was measured: {self.mpi_note}")
        names = [f"cpu{i}" for i in range(len(self.uris))]
        devices, host_links = [], []
        for name, uri in zip(names, self.uris):
            kernels = self.kernels[uri]
            entry = {"name": name, "uri": uri}
            if kernels.get("matmul") is not None:
                entry["peak_gflops"] = _round(kernels.get("matmul").rate)
            if kernels.get("copy") is not None:
                entry["memory_gbps"] = _round(kernels.get("copy").rate)
                copy = kernels.get("copy")
                host_links.append({"between": [name, "host"], "bandwidth_gbps": _round(copy.rate),
                                   "latency_us": _round(copy.overhead_us)})
            entry["kernels"] = {k: {u: _round(v) for u, v in c.items()}
                                for k, c in kernels.to_dict().items()}
            devices.append(entry)
        device_links = []
        if fit is not None:
            table = fit.table()
            extra = {"table": [[s, _round(t)] for s, t in table.to_list()]} if table else {}
            device_links = [{"between": [a, b], "bandwidth_gbps": _round(fit.bandwidth_gbps),
                             "latency_us": _round(fit.latency_us), **extra}
                            for i, a in enumerate(names) for b in names[i + 1:]]
        # in-process ranks run rt's rendezvous channel (rt.runtime.sim.collective_model)
        algorithm = "rendezvous" if links == "collective" else "ring"
        out = {"name": f"{platform.node() or 'host'}-calibrated", "collectives": {"algorithm": algorithm},
               "devices": devices, "links": device_links + host_links, "groups": {"all": names}}
        call_us = self.mpi_call_us if links == "mpi" else self.call_us.get(len(self.uris))
        out["host"] = {"call_us": _round(max(call_us or 0.0, 0.0)), "cores": self.cores,
                       "dispatch_us": _round(self.dispatch_us), "wake_us": _round(self.wake_us)}
        return out

    def header(self, links="collective"):
        """The comment lines saying how and when each figure was measured."""
        when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        lines = [f"Written by `python -m rt calibrate` ({self.mode}, {self.seconds:.0f} s) on "
                 f"{platform.node()} ({platform.machine()}, {os.cpu_count()} cores) at {when}.",
                 "Times: the median of repeated runs taking turns (kernels: of their samples, with the devices busy at once);",
                 "  the host is shared, so figures move with its load.",
                 "kernels: per dispatch class, a least-squares fit of µs = overhead_us + work / "
                 "throughput (matmul, conv: + bytes / gbps),",
                 "  over the calibration programs' dispatches (work: flops for matmul/conv, "
                 "bytes otherwise);",
                 "  peak_gflops = the matmul throughput, memory_gbps = the copy throughput."]
        for label, fit in (("collective links", self.collective_link), ("copy links", self.copy_link),
                           ("MPI links", self.mpi_link), ("MPI ping-pong", self.mpi_pingpong)):
            if fit is not None:
                lines.append(f"{label}: latency {fit.latency_us:.4g} us, bandwidth "
                             f"{fit.bandwidth_gbps:.4g} GB/s: {fit.method}")
        if self.mpi_link is None:
            lines.append(f"MPI loopback: {self.mpi_note}")
        lines.append(f"device-to-device links below: the {links} figures; host links: the copy "
                     "class (latency = its overhead).")
        lines.append(f"host.dispatch_us: what one more dispatch of an operation costs an untraced call of @chain "
                     f"beyond its traced duration ({self.dispatch_us:.3g} us).")
        lines.append(f"host.wake_us: a chain of fills on devices A -> B -> A less A -> A -> A, over its 2 hops "
                     f"({self.wake_us:.3g} us).")
        lines.append(f"host.cores: the {self.cores} cores this process may run on "
                     "(os.sched_getaffinity); more devices computing at once share them.")
        if self.call_us or self.mpi_call_us is not None:
            calls = ", ".join(f"{n} rank(s) {us:.0f} us" for n, us in sorted(self.call_us.items()))
            if self.mpi_call_us is not None:
                calls += f"{', ' if calls else ''}2 MPI processes {self.mpi_call_us:.0f} us"
            lines.append(f"host cost per call (@nop; host.call_us below): {calls}")
        return lines

    def yaml_text(self, links="collective"):
        body = yaml.safe_dump(self.topology_dict(links), sort_keys=False, default_flow_style=None,
                              width=100)
        return "".join(f"# {line}\n" for line in self.header(links)) + body


def _round(value):
    return float(f"{value:.4g}")


def _median_by_key(samples):
    """``{key: [values]}`` -> ``{key: median}``."""
    return {k: statistics.median(v) for k, v in samples.items()}


def measure_kernels(uri, mode, reps, vmfb=None, devices=1):
    """``{class: [(work, µs), ...]}`` of the calibration programs' dispatches on ``uri``
    (compute classes: ``(flops, µs, bytes)``), with ``devices`` such devices running the
    same program at once (SPMD ranks) on data of their own, as the ranks of a job share this
    host's cores, caches and memory bandwidth, each with its own shard (one array shared by
    every rank stays in cache: a 32x512x512 matmul took 188 µs on shared data, 350 µs on
    per-rank copies, 2 devices at once)."""
    import rt

    vmfb = vmfb or rt.compile(programs.module_text(mode), devices=["llvm-cpu"])
    tracer = rt.Tracer()
    topology = {"devices": [{"name": f"d{i}", "uri": uri, "time_model": "measured"}
                            for i in range(devices)]}
    with rt.load(vmfb, topology=topology, ranks=devices, tracer=tracer) as module:
        for name, args in programs.calls(mode):
            function = getattr(module, name)
            per_rank = [[a.copy() for a in args] for _ in range(devices)]
            for _ in range(reps + 1):
                function.spmd(per_rank)
    found = {}
    for event in tracer.events:
        args = event.get("args") or {}
        if event.get("ph") == "X" and "workgroups" in args:
            key = (event["name"], tuple(args["workgroups"]), args.get("flops", 0), args["bytes"])
            found.setdefault(key, []).append(event["dur"])
    per_class = {}
    for (name, _, flops, nbytes), us in _median_by_key(found).items():
        kind = classify(name)
        work = flops if kind in COMPUTE_CLASSES and flops else nbytes
        kind = kind if kind not in COMPUTE_CLASSES or flops else "elementwise"
        point = (work, us, nbytes) if kind in COMPUTE_CLASSES else (work, us)
        per_class.setdefault(kind, []).append(point)
    return per_class


def measure_writes(uri, mode, reps):
    """``{"copy": [(bytes read + written, µs)], "fill": [(bytes, µs)]}`` within ``uri``."""
    from rt.runtime.sim.simulation import Simulation
    from rt.runtime.sim.topology import Topology

    sim = Simulation(Topology.from_dict({"devices": [{"name": "d", "uri": uri,
                                                      "time_model": "measured"}]}))
    try:
        device = sim.devices[0]
        out = {"copy": [], "fill": []}
        for size in programs.COPY_SIZES[mode]:
            source = device.allocator.allocate_buffer(size)
            target = device.allocator.allocate_buffer(size)
            runs = {"copy": lambda: device.queue_copy(source, 0, target, 0, size),
                    "fill": lambda: device.queue_fill(target, 0, size, 0x01020304, 4)}
            for kind, run in runs.items():
                times = []
                for _ in range(reps + 1):
                    before = sim.report()["devices"]["d"]["busy_us"]
                    run().wait()
                    times.append(sim.report()["devices"]["d"]["busy_us"] - before)
                out[kind].append((2 * size if kind == "copy" else size, statistics.median(times[1:])))
        return out
    finally:
        sim.release()


def kernel_costs(per_class):
    """``KernelCosts`` from ``{class: [(work, µs)]}`` (classes with fewer than two sizes are
    left out: the simulator then falls back as rt.runtime.sim.dispatch_classes says). Points
    ``(flops, µs, bytes)`` of a compute class give ``overhead + flops / gflops + bytes / gbps``
    (``fit_compute``)."""
    classes = []
    for kind, points in sorted(per_class.items()):
        if len({p[0] for p in points}) < 2:
            continue
        if all(len(p) == 3 for p in points):
            classes.append((kind, fit_compute(points)))
        else:
            overhead, slope = fit_line([p[:2] for p in points])
            classes.append((kind, ClassCost(overhead, 1.0 / (slope * 1e3))))
    return KernelCosts(tuple(classes))


def fit_compute(points):
    """``ClassCost(overhead, gflops, gbps)`` minimizing the squared relative errors of
    ``µs = overhead + flops / (gflops 1e3) + bytes / (gbps 1e3)`` over ``(flops, µs, bytes)``
    points; the one-term line over flops (``fit_line``, no byte term) when the points do not
    separate the terms (fewer than three, a fitted term that is not positive, or a byte rate
    over ``MAX_BYTE_GBPS``: no memory is that fast, the bytes do not matter)."""
    flops, us, nbytes = (np.array(column, float) for column in zip(*points))
    if len(points) >= 3:
        weights = 1.0 / np.maximum(us, 1e-9)
        design = np.stack([np.ones_like(flops), flops, nbytes], axis=1) * weights[:, None]
        overhead, per_flop, per_byte = np.linalg.lstsq(design, us * weights, rcond=None)[0]
        if overhead >= 0 and per_flop > 0 and per_byte > 1.0 / (MAX_BYTE_GBPS * 1e3):
            return ClassCost(float(overhead), float(1.0 / (per_flop * 1e3)), float(1.0 / (per_byte * 1e3)))
    overhead, slope = fit_line(list(zip(flops, us)))
    return ClassCost(overhead, 1.0 / (slope * 1e3))


def interleaved_samples(calls, reps, warm=False, runs=1, warm_s=0.0, warm_runs=1):
    """Per call of ``calls``, its ``reps`` timed samples in µs, after one warm-up each; the
    calls take turns (round by round, round k starting at call k mod n, so that no call always
    follows the same one), so that on a shared host every call sees the same mix of quiet and
    busy spells, and the k-th samples of two calls were taken moments apart. ``warm``: each
    timed call right after an untimed one of the same call, its data in the caches as a
    program's repeated (or just produced) data is, and what the call before left to do done;
    without it, calls of a size sweep taking turns each found their data evicted by the
    others (an in-process all_reduce of 1.5 MiB took 3-4x as long as the same call repeated).
    ``runs`` > 1 (one number, or one per call): a turn is ``runs`` timed calls in a row (after
    the untimed one with ``warm``) and its sample their median: a call among calls of itself,
    as a program's repeated calls run. Why: on 2 in-process ranks (2-core host, persistent
    rank threads), one timed call after one untimed one still took 60-130 µs longer than the
    same call repeated, for @nop and for all_reduces of 12 KiB-1.5 MiB alike, while a block of
    them in a row took what the repeated call takes. ``warm_s`` (with ``warm``): the untimed
    calls go on until they have taken that many seconds (at least ``warm_runs`` calls, default
    one; processes that must make the same calls count them, ``WARM_RUNS``): a call right after a
    heavy one is slower for many calls, not one (2 in-process ranks' TP MLP, 0.55 ms a call
    alone, took 0.58-0.81 ms as the median of 15 calls in a row right after 4 ranks'
    all_reduces of 12 MiB; after 20 ms of untimed calls of itself, what it takes alone)."""
    per_call = [runs] * len(calls) if isinstance(runs, int) else list(runs)
    for call in calls:
        call()
    samples = [[] for _ in calls]
    for k in range(reps):
        for i in [(k + j) % len(calls) for j in range(len(calls))]:
            call = calls[i]
            if warm:
                started = time.perf_counter()
                for _ in range(warm_runs):
                    call()
                while time.perf_counter() - started < warm_s:
                    call()
            times = []
            for _ in range(per_call[i]):
                start = time.perf_counter()
                call()
                times.append((time.perf_counter() - start) * 1e6)
            samples[i].append(statistics.median(times))
    return samples


class Timed:
    """Calls added to ``Turns``: ``samples`` (per call, as ``interleaved_samples`` gives them)
    once the turns ran, and ``value``: what ``finish(samples)`` makes of them."""

    def __init__(self, count, finish):
        self.count, self._finish, self.samples = count, finish, None

    @property
    def value(self):
        if self.samples is None:
            raise RtError("these calls have not been timed yet: run their Turns first")
        return self._finish(self.samples)


class Turns:
    """The timed calls of several measurements in one schedule: ``add`` gives each
    measurement's calls (and how many timed calls in a row make one of their samples),
    ``run`` times them all taking turns (``interleaved_samples``, ``reps`` samples per call,
    each turn after ``WARM_S`` of untimed calls of itself) and then runs what ``then`` was
    given. Modules and devices the calls need are kept (``enter``, ``callback``) until the ``Turns`` closes (``run``
    closes it; ``with Turns(...)`` closes it on an error too).

    Why one schedule: this host's cost of a call moves by phases that last seconds to minutes
    (the same 2-rank ``@nop`` took 97 and 184 µs two minutes apart on the 2-vCPU development
    host, and a 64 KiB all_gather measured 138 µs while the calibration minutes before had
    measured 142 µs for ``@nop`` alone). Calls that take turns see the same phases, so a
    calibration whose calls take turns with the calls it predicts (benchmarks/sim_accuracy.py)
    measures the host as they found it."""

    def __init__(self, reps):
        self.reps = reps
        self._calls, self._runs, self._timed, self._then = [], [], [], []
        self._stack = contextlib.ExitStack()

    def add(self, calls, runs=1, finish=None):
        """A ``Timed`` for ``calls``, each sample the median of ``runs`` timed calls in a row."""
        timed = Timed(len(calls), finish or (lambda samples: samples))
        self._calls += calls
        self._runs += [runs] * len(calls)
        self._timed.append(timed)
        return timed

    def then(self, fn):
        """Call ``fn()`` once the calls have been timed (in the order given)."""
        self._then.append(fn)

    def enter(self, context):
        """Keep ``context`` (a loaded module) entered until the turns close; returns it."""
        return self._stack.enter_context(context)

    def callback(self, fn):
        """Call ``fn()`` when the turns close (a device's release)."""
        self._stack.callback(fn)

    def run(self):
        with self:
            samples = interleaved_samples(self._calls, self.reps, warm=True, runs=self._runs,
                                          warm_s=WARM_S)
            for timed in self._timed:
                timed.samples, samples = samples[:timed.count], samples[timed.count:]
            for fn in self._then:
                fn()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._stack.close()
        return False


def median_interleaved(calls, reps, warm=False):
    """Per call, the median of its ``interleaved_samples`` (µs): what a job's calls see on a
    shared host (the fastest is a lucky one, and lucky more often for short calls than long)."""
    return [statistics.median(s) for s in interleaved_samples(calls, reps, warm)]


def median_us(call, reps):
    """The median of ``reps`` timed calls of ``call()`` after one warm-up, in µs."""
    return median_interleaved([call], reps)[0]


def paired_difference(samples, base):
    """The median of ``samples[k] - base[k]`` (µs): a call's time beyond another's, each pair
    taken moments apart (a burst of load slows both of a pair, and cancels)."""
    return statistics.median(a - b for a, b in zip(samples, base))


def fit_ring(ranks, points):
    """``(α µs, β GB/s)`` of the ring all_reduce ``2(N-1)(α + S/(Nβ))`` over ``ranks`` = N
    fitted (``fit_line``, absolute errors) to ``points``: ``(S bytes, µs of one all_reduce)``.
    InvalidArgumentError for fewer than two distinct sizes."""
    intercept, slope = fit_line(points, relative=False)
    steps = 2 * (ranks - 1)
    return intercept / steps, steps / (ranks * slope) / 1e3


def measure_local(uri, ranks, mode, turns, bind=None):
    """The in-process all_reduce over ``ranks`` ranks on ``uri``, added to ``turns`` (a
    ``Turns``): the returned ``Timed``'s ``value`` is ``(LinkFit, call µs, dispatch gap µs)``
    once they ran: a call of ``@ar_S`` minus a call of ``@nop`` taken moments apart
    (``paired_difference``) fitted per size (``fit_ring``), the host's cost of a call of
    ``@nop`` on them (its median) and the time between dispatches of an operation
    (``dispatch_gap_us`` from untraced calls of ``@chain``; both rt.runtime.sim.host_costs).
    ``@chain``'s traced run (its dispatches' durations) is done now, ``turns.reps`` calls."""
    import rt

    sizes = LINK_SIZES[mode]
    vmfb = rt.compile(programs.collective_module(ranks, sizes), devices=["llvm-cpu"])
    dispatches, kernel_us = measure_chain(vmfb, uri, ranks, turns.reps, bind)
    module = turns.enter(rt.load(vmfb, ranks=ranks, devices=[uri], bind=bind))

    def call(name, *shape):
        args = [[np.ones(shape, np.float32)]] * ranks
        function = getattr(module, name)
        return lambda: function.spmd(args, to_host=False)

    def finish(samples):
        nop, chain, *times = samples
        gap = dispatch_gap_us(paired_difference(chain, nop) / max(1, dispatches - 1), kernel_us,
                              ranks, len(os.sched_getaffinity(0)))
        points = [(s, paired_difference(t, nop)) for s, t in zip(sizes, times)]
        latency, bandwidth = fit_ring(ranks, points)
        method = (f"ring all_reduce fit 2(N-1)(a + S/(N b)) over N={ranks} in-process ranks, S = "
                  f"{', '.join(_bytes(s) for s in sizes)}; one all_reduce = a call of it minus a call of @nop")
        return (LinkFit(latency, bandwidth, method, ring_step_points(ranks, points)),
                statistics.median(nop), gap)

    return turns.add([call("nop", 4), call("chain", 64, 256)] + [call(f"ar_{s}", s // 4) for s in sizes],
                     RUNS, finish)


def ring_step_points(ranks, points):
    """The link table points of ring all_reduces over ``ranks`` = N: ``(S bytes, µs of one
    all_reduce)`` -> ``(S/N bytes, µs / (2(N-1)))``, one step's transfer of one chunk (the
    simulator's ring runs 2(N-1) such steps, each link carrying one transfer)."""
    return tuple((s // ranks, us / (2 * (ranks - 1))) for s, us in points)


def chain_dispatches(events):
    """``(dispatches, µs)`` of a traced run of ``@chain``: the most dispatches one queue
    operation (``queue_execute`` slice) held, and the median traced duration of a dispatch
    slice (what kernel classes, fitted to traced durations, charge such a dispatch)."""
    slices = [e for e in events if e.get("ph") == "X"]
    by_thread = {}
    for e in slices:
        if "workgroups" in (e.get("args") or {}):
            by_thread.setdefault(e["tid"], []).append(e)
    most = 0
    for op in slices:
        if op["name"].startswith("queue_execute"):
            most = max(most, sum(1 for e in by_thread.get(op["tid"], ())
                                 if op["ts"] <= e["ts"] <= op["ts"] + op["dur"]))
    durations = [e["dur"] for found in by_thread.values() for e in found]
    return most, (statistics.median(durations) if durations else 0.0)


def dispatch_gap_us(marginal_us, kernel_us, ranks, cores):
    """``host.dispatch_us``: what one more dispatch in a queue operation costs an untraced
    call (``marginal_us``: ``@chain`` minus ``@nop``, over the chain's dispatches but one)
    beyond the dispatch itself (``kernel_us``, its traced duration), never below 0. With
    ``ranks`` devices computing at once on ``cores`` cores each dispatch stretches by
    ranks/cores (rt.runtime.sim.cores), so the marginal is divided by that first.

    Why untraced: a traced execution runs every command alone, with the GIL, between its
    trace zones, and its gaps (9.5-12.4 µs per dispatch on the 2-vCPU development host) are
    the tracer's; an untraced one runs a command buffer's C-only commands back to back without
    the GIL (rt.runtime.hal.drivers._replay), where @chain's 16 dispatches cost 4.1-4.8 µs
    each on 2 ranks, their own traced duration (4.9 µs median) included, so a transformer
    layer's 17 dispatches per rank were predicted 150 µs long."""
    share = max(1.0, ranks / max(1, cores))
    return max(0.0, marginal_us / share - kernel_us)


def measure_chain(vmfb, uri, ranks, reps, bind=None):
    """``chain_dispatches`` of ``@chain`` (rt.runtime.sim.calibration_programs) run for real,
    traced, on ``ranks`` in-process ranks of ``uri`` (``bind``: rt.load's)."""
    import rt

    tracer = rt.Tracer()
    with rt.load(vmfb, ranks=ranks, devices=[uri], tracer=tracer, bind=bind) as module:
        args = [[np.ones((64, 256), np.float32)] for _ in range(ranks)]
        for _ in range(reps + 1):
            module.chain.spmd(args, to_host=False)
    return chain_dispatches(tracer.events)


def measure_copy_link(uri, mode, turns):
    """The in-process ``LinkFit`` of copying from one ``uri`` device's buffer to another's,
    ``α + S/β`` over several sizes: per size, ``queue_copy`` of S bytes less a 256-byte
    ``queue_fill`` on the same target device taken moments apart (``paired_difference``), what
    the copy adds to a queue operation. The returned ``Timed``'s ``value`` once ``turns`` (a
    ``Turns``, which releases the two devices when it closes) ran.

    Why less the fill: the simulator charges the link per copy, and a program's copies are
    commands inside its operations (``flow.tensor.transfer`` becomes a copy in the stage's
    command buffer), while a ``queue_copy`` alone also pays for a queue operation (submission,
    signal, the waiter's return: 4-6 µs, what the fill costs). Timed alone, a 64 KiB copy read
    6.6 µs and the fill 4.5 (2-vCPU development host, 2026-11-29); with the operation counted
    in every copy, the pipelines read +5.5% (2 stages) and +16.1% (4 stages: 7 copies) over
    five runs, +0.5% and +10.0% resimulated without it."""
    from rt.runtime.hal.driver_registry import create_device

    sizes = LINK_SIZES[mode]
    source = create_device(uri)
    turns.callback(source.release)
    target = create_device(uri)
    turns.callback(target.release)

    def copy(size):
        x, y = source.allocator.allocate_buffer(size), target.allocator.allocate_buffer(size)
        return lambda: target.queue_copy(x, 0, y, 0, size).wait()

    filled = target.allocator.allocate_buffer(256)

    def fill():
        target.queue_fill(filled, 0, 256, 0x01020304, 4).wait()

    return turns.add([copy(s) for s in sizes] + [fill], 1,
                     lambda samples: fit_copy_link(sizes, samples[:-1], samples[-1]))


def fit_copy_link(sizes, copies, fill):
    """The copy ``LinkFit`` from timed samples (µs, taken in turns): ``copies`` per size of
    ``sizes`` (``queue_copy`` of S bytes) and ``fill`` (a tiny ``queue_fill``); each point is
    a size's copy less the fill of the same turn (``paired_difference``), the table those
    points, ``α + S/β`` fitted to them (absolute errors: differences; ``fit_line``)."""
    points = [(size, paired_difference(s, fill)) for size, s in zip(sizes, copies)]
    intercept, slope = fit_line(points, relative=False)
    method = (f"queue_copy between two devices of one process less a 256-byte queue_fill "
              f"(one queue operation), a + S/b fitted over S = {', '.join(_bytes(s) for s in sizes)}")
    return LinkFit(intercept, 1 / slope / 1e3, method, tuple(points))


def measure_wake(uri, turns):
    """``host.wake_us`` (rt.runtime.sim.host_costs), added to ``turns``: the returned
    ``Timed``'s ``value`` once they ran. Three 256-byte fills, each waiting on the one before,
    the host waiting on the last: on two ``uri`` devices A -> B -> A less on one A -> A -> A
    (``paired_difference``), over the 2 hops, never below 0. The devices are released when
    ``turns`` closes."""
    from rt.runtime.hal.driver_registry import create_device

    devices = []
    for _ in range(2):
        devices.append(create_device(uri))
        turns.callback(devices[-1].release)
    buffers = [d.allocator.allocate_buffer(256) for d in devices]

    def chain(order):
        def run():
            fence = None
            for i in order:
                fence = devices[i].queue_fill(buffers[i], 0, 256, 0x01020304, 4, wait_fence=fence)
            fence.wait()
        return run

    return turns.add([chain((0, 0, 0)), chain((0, 1, 0))], RUNS,
                     lambda samples: max(0.0, paired_difference(samples[1], samples[0]) / 2))


def _mpiexec(arguments, timeout):
    """Run rt.runtime.sim.mpi_loopback on 2 processes; its JSON line."""
    from rt.runtime.errors import DeviceError
    from rt.runtime.hal.drivers.mpi_channel import mpiexec_path

    command = [mpiexec_path(), "-n", "2", sys.executable, "-m", "rt.runtime.sim.mpi_loopback",
               *map(str, arguments)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise DeviceError(f"MPI loopback did not finish in {timeout} s: {' '.join(command)}") from None
    if done.returncode != 0:
        raise DeviceError(f"MPI loopback {arguments[0]} failed (exit {done.returncode}): "
                          f"{(done.stderr or done.stdout).strip()[-300:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def measure_mpi(mode, reps, uri=DEFAULT_URI, timeout=300):
    """``(ping-pong LinkFit, collective LinkFit, per-call µs)`` of MPI loopback between two
    ``mpiexec`` processes: the raw link from a ping-pong (round trip ``2(α + S/β)``); rt's
    all_reduce over ``channel="mpi"`` on device ``uri`` in each process (the calibrated one:
    the default device would give each of the 2 processes every core), a call of one minus a
    call of ``@nop`` (the call cost), fitted to the 2-rank ring ``2(α + S/(2β))``, as
    in-process. NotFoundError (no mpi4py or mpiexec) or DeviceError (the job failed) with the
    reason."""
    import rt

    if importlib.util.find_spec("mpi4py") is None:
        raise NotFoundError("mpi4py is not installed (pip install -e '.[mpi]')")
    sizes = MPI_SIZES[mode]
    round_trips = _mpiexec(["pingpong", max(reps, 5) * 4, *sizes], timeout)
    intercept, slope = fit_line([(int(s), us) for s, us in round_trips.items()])
    listed = ", ".join(_bytes(s) for s in sizes)
    raw = LinkFit(intercept / 2, 2 / slope / 1e3,
                  f"ping-pong between 2 mpiexec processes, round trip 2(a + S/b) over S = {listed}")
    link_sizes = LINK_SIZES[mode]
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "collectives.vmfb")
        with open(path, "wb") as f:
            f.write(rt.compile(programs.collective_module(2, link_sizes), devices=["llvm-cpu"]))
        times = _mpiexec(["collectives", max(reps, 5), path, uri, *link_sizes], timeout)
    collective, call_us = fit_mpi_collectives(times, link_sizes)
    return raw, collective, call_us


def mpi_collective_times(barrier, nop, per_size, sizes):
    """``{"nop": µs, "S": µs}`` for ``fit_mpi_collectives`` from the samples of calls taken in
    turns on 2 MPI processes, each after a barrier: ``barrier`` (the barrier alone), ``nop``
    (``@nop``) and ``per_size`` (``@ar_S`` per size of ``sizes``); ``@nop`` less the barrier
    and ``@ar_S`` less ``@nop``, each pair taken moments apart (``paired_difference``)."""
    times = {"nop": paired_difference(nop, barrier)}
    times.update((str(s), paired_difference(t, nop)) for s, t in zip(sizes, per_size))
    return times


def fit_mpi_collectives(times, sizes):
    """``(LinkFit, call µs)`` of rt's all_reduce over ``channel="mpi"`` between 2 processes
    from ``times``: ``{"nop": µs of a call of @nop, "S": µs of one all_reduce of S bytes (a call
    of @ar_S less the @nop call)}`` over ``sizes``, fitted to the 2-rank ring ``2(α + S/(2β))``
    (``fit_ring``), the link's table from the same points."""
    points = [(s, times[str(s)]) for s in sizes]
    latency, bandwidth = fit_ring(2, points)
    method = (f"ring all_reduce fit 2(a + S/(2 b)) of rt's channel=\"mpi\" over 2 mpiexec "
              f"processes, S = {', '.join(_bytes(s) for s in sizes)}; one all_reduce = "
              "a call of it minus a call of @nop, each after a barrier")
    return LinkFit(latency, bandwidth, method, ring_step_points(2, points)), times["nop"]


def _bytes(size):
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale and size % scale == 0:
            return f"{size // scale} {unit}"
    return f"{size} B"


def calibrate(uris=(DEFAULT_URI, DEFAULT_URI), quick=False, mpi=False, log=None, bind=None,
              turns=None):
    """Measure the devices ``uris`` (one topology device each; identical URIs are measured
    once) and, with ``mpi``, the MPI loopback; returns a ``Calibration``. ``log(text)`` hears
    progress. ``bind``: rt.load's, for the in-process ranks' links, call cost and dispatch
    gap (the programs to be simulated run their ranks so bound). ``turns``: a ``Turns`` the
    in-process timed calls (links, call cost, dispatch gap) join instead of taking turns among
    themselves now: those fields of the returned Calibration are filled when ``turns.run()``
    has run (benchmarks/sim_accuracy.py: the calls it predicts take the same turns), and
    ``seconds`` leaves them out. Errors: InvalidArgumentError for a bad URI (from the HAL,
    naming it) or ``bind``."""
    import rt
    from rt.runtime.sim.topology import Topology

    log = log or (lambda text: None)
    uris = list(uris)
    if not uris:
        raise InvalidArgumentError("calibrate needs at least one device URI")
    mode = "quick" if quick else "full"
    reps = REPS[mode]
    start = time.perf_counter()
    result = Calibration(uris, {}, mode=mode, cores=len(os.sched_getaffinity(0)))
    vmfb = None
    for uri in dict.fromkeys(uris):
        Topology.from_dict({"devices": [{"name": "d", "uri": uri}]})
        log(f"kernels on {uris.count(uri)} x {uri} at once ...")
        vmfb = vmfb or rt.compile(programs.module_text(mode), devices=["llvm-cpu"])
        per_class = measure_kernels(uri, mode, reps, vmfb, min(uris.count(uri), result.cores))
        log(f"copies and fills on {uri} ...")
        per_class.update(measure_writes(uri, mode, reps))
        result.kernel_points[uri] = per_class
        result.kernels[uri] = kernel_costs(per_class)
    with contextlib.ExitStack() as stack:
        own = turns is None
        if own:
            turns = stack.enter_context(Turns(reps))
        if len(uris) > 1:
            log(f"in-process all_reduce over {len(uris)} ranks and copies between devices ...")
            local = measure_local(uris[0], len(uris), mode, turns, bind)
            copy = measure_copy_link(uris[0], mode, turns)
            wake = measure_wake(uris[0], turns)

            def links():
                result.collective_link, result.call_us[len(uris)], result.dispatch_us = local.value
                result.copy_link, result.wake_us = copy.value, wake.value
            turns.then(links)
        if own:
            turns.run()
    if mpi:
        log("MPI loopback: ping-pong and collectives ...")
        try:
            result.mpi_pingpong, result.mpi_link, result.mpi_call_us = measure_mpi(mode, reps, uris[0])
        except RtError as error:
            result.mpi_note = f"skipped: {error}"
    result.seconds = time.perf_counter() - start
    return result
