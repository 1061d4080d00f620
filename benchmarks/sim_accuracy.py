"""How far the simulator's times are from real runs on this machine (issue 23 item 4).

    python benchmarks/sim_accuracy.py [--rounds=N] [--repeats=N] [--quick] [--no-mpi] [--bind=core|none]
                                      [--json=out.json] [--save=DIR | --resimulate=DIR
                                      [--without=TERM,...] [--profile-statistic=S]]

Calibration and real runs take turns, ``--rounds`` times (default 5), so that both see the
same load on a shared host. Each round:

1. **Calibrates** this host (``rt.runtime.sim.calibration.calibrate``, what ``rt calibrate
   --devices=N --bind-to=core`` writes) for 2 and for 4 devices: kernel classes measured with
   N devices busy at once (at most the host's cores), memory, in-process links (a measured
   time per size and an α–β fit), the host's cost of an SPMD call (``host.call_us``), its
   cores, the time between dispatches and what a dependency between two devices' queues costs
   (``host.wake_us``). The calibration programs (rt.runtime.sim.calibration_programs) are
   not the programs below.
2. **Runs each program for real** (benchmarks/sim_accuracy_programs.py): SPMD programs on N
   in-process ranks (``rt.load(..., ranks=N, bind="core")``, each rank its own ``local-task``
   device), the pipelines on k devices of one process, the MPI cases on ``mpiexec -n 2``
   processes (``channel="mpi"`` on the calibrated ``threads=1`` device, every call after a
   barrier, the barrier's own time taken off) where mpi4py and mpiexec are installed, in one
   job with the calibration's MPI loopback (the ``mpi`` links and the call cost, what ``rt
   calibrate --mpi`` measures), whose calls take turns with theirs (MPI loopback jobs run in
   a fast or a slow mode that lasts minutes; there every turn starts after ``WARM_RUNS``
   untimed calls of itself, a count both processes keep, and each call has ``MPI_BURSTS`` =
   15 samples, each MPI case predicted turn by turn: ``MpiTurns``). A traced run first gives
   the program's dispatch profile. The calibration's in-process timed calls (links, call cost,
   dispatch gap, wake) and the programs' calls take turns in one schedule
   (rt.runtime.sim.calibration ``Turns``: 7 samples per call, each the median of ``--repeats``
   calls in a row after 20 ms of untimed calls of itself), and a program's real time in the
   round is the median of its samples.
3. **Simulates each program** in a dry run on the round's calibrated topology (N devices, the
   links of the path its data takes: ``collective`` for ranks of one process, ``copy`` for the
   pipelines' ``flow.tensor.transfer``s, ``mpi`` for the processes): ``calibrated`` with
   kernels from the calibrated classes (a priori), ``profiled`` with the dispatch profile of
   the round's traced run. The simulated time is the prediction: the topology carries the
   host's costs (rt.runtime.sim.host_costs), nothing is added outside the model.

Why the ranks are bound (``--bind=none`` leaves them to the OS): the OS places a module's rank
threads on the same core or on different ones, and keeps a placement for minutes; on the
same core a rank hands over to the next without waking a sleeping core, so a small call is
much faster. Each loaded module (the calibration's, each program's) settles on its own, so a
64 KiB all_gather measured 117-136 µs a call while the calibration's ``@nop`` on its own
ranks took 94-112 µs (2-vCPU development host, 2026-11-29); bound as ``mpiexec --bind-to
core`` binds processes, every module's ranks sit where the calibration's did.

Per case the script reports the median over rounds of the real time and of each prediction,
and its error: the median over rounds of each round's (predicted - real) / real, a prediction
judged against the real calls timed in the same turns as its calibration (``summarize``);
then the mean and worst |error| over the in-process cases and over all. The load average (1 minute) is printed before each round and at the end.

``--save=DIR`` keeps each round's measurements (the calibrations with their raw points, the
dispatch profiles, the real times) in ``DIR/round<k>/``; ``--resimulate=DIR`` simulates those
rounds again with the current model (kernel classes re-fitted from the raw points, link
tables from the measured sweeps), no real run: model changes compared on the same data,
free of the host's noise; ``--profile-statistic=lower_quartile|median|min`` rebuilds the
saved profiles from their saved dispatch samples (``*.dispatches.json``) with another
statistic; ``--without=tables,cores,gap,wake`` leaves model terms out of the
calibrated topologies (the links' measured tables, ``host.cores``, ``host.dispatch_us``,
``host.wake_us``) to show what each contributes.
"""
import argparse
import contextlib
import dataclasses
import importlib.util
import json
import os
import pickle
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))

import numpy as np  # noqa: E402
import rt  # noqa: E402
import sim_accuracy_programs as programs  # noqa: E402
from iree_peer import machine  # noqa: E402
from rt.runtime.errors import DeviceError, RtError  # noqa: E402
from rt.runtime.sim.calibration import (DEFAULT_URI, LINK_SIZES, WARM_RUNS, Turns, calibrate,  # noqa: E402
                                        fit_mpi_collectives, interleaved_samples, kernel_costs,
                                        median_us, mpi_collective_times)
from rt.runtime.sim.calibration_programs import collective_module  # noqa: E402
from rt.runtime.sim.profile import ProfileTable, lower_quartile  # noqa: E402

URI = DEFAULT_URI
#: Samples per call and round, each the median of ``--repeats`` calls in a row (one_round).
BURSTS = 7
#: Samples per call and round in the MPI job: its turns take about a second each, and its
#: spells of slow calls hit single turns of single calls (a 64 KiB all_reduce's 7 turns read
#: 114, 189, 115, 120, 202, 146, 199 µs while the sweep's neighbouring sizes stayed fast), so
#: a median over 7 was often a slowed turn's.
MPI_BURSTS = 15
#: How the MPI worker loads a case: the calibrated device (one thread per dispatch, as the
#: topology's kernels); the default local-task device would give each rank every core.
MPI_LOAD = {"channel": "mpi", "devices": [URI]}

#: (case name, builder, ranks or devices, how it runs: spmd | devices | mpi)
CASES = [
    ("tp_mlp 2 ranks", lambda: programs.tp_mlp(2), 2, "spmd"),
    ("tp_mlp 4 ranks", lambda: programs.tp_mlp(4), 4, "spmd"),
    ("transformer layer 2 ranks", lambda: programs.tp_transformer(2), 2, "spmd"),
    ("pipeline 2 stages", lambda: programs.pipeline(2), 2, "devices"),
    ("pipeline 4 stages", lambda: programs.pipeline(4), 4, "devices"),
    *[(f"all_reduce {size >> 10} KiB 2 ranks", lambda s=size: programs.collective("all_reduce", 2, s), 2, "spmd")
      for size in (64 << 10, 1 << 20, 4 << 20)],
    ("all_reduce 1024 KiB 4 ranks", lambda: programs.collective("all_reduce", 4, 1 << 20), 4, "spmd"),
    *[(f"all_gather {size >> 10} KiB 2 ranks", lambda s=size: programs.collective("all_gather", 2, s), 2, "spmd")
      for size in (64 << 10, 1 << 20)],
]
MPI_CASES = [
    ("MPI tp_mlp 2 ranks", lambda: programs.tp_mlp(2), 2, "mpi"),
    *[(f"MPI all_reduce {size >> 10} KiB 2 ranks", lambda s=size: programs.collective("all_reduce", 2, s), 2, "mpi")
      for size in (64 << 10, 1 << 20, 4 << 20)],
]


def compile_case(builder, layout, count):
    text, function, inputs = builder()
    devices = [f"s{i}=llvm-cpu" for i in range(count)] if layout == "devices" else ["llvm-cpu"]
    return rt.compile(text, devices=devices), function, inputs


def open_case(vmfb, function, inputs, layout, count, tracer=None, bind=None):
    """``(module, call)``: the program loaded on real local devices (in-process ranks, their
    threads placed as ``bind`` says: rt.load's, or k devices) and one call of it; with
    ``tracer`` the calls are traced (for a profile, not for their time)."""
    if layout == "devices":
        module = rt.load(vmfb, devices=[URI] * count, tracer=tracer)
        f = getattr(module, function)
        return module, lambda: f(*inputs, to_host=False)
    module = rt.load(vmfb, ranks=count, devices=[URI], tracer=tracer, bind=bind)
    f = getattr(module, function)
    return module, lambda: f.spmd(inputs, to_host=False)


def profile_file(events, folder, name):
    """Write the dispatch profile (lower quartile of the samples per dispatch) of a real run's
    trace events, and beside it the samples themselves (``*.dispatches.json``: the dispatch
    slices, for ``--resimulate --profile-statistic``)."""
    stem = os.path.join(folder, name.replace(" ", "_"))
    slices = [{"ph": "X", "name": e["name"], "dur": e["dur"], "args": {"workgroups": e["args"]["workgroups"]}}
              for e in events if e.get("ph") == "X" and "workgroups" in (e.get("args") or {})]
    with open(stem + ".dispatches.json", "w") as f:
        json.dump(slices, f)
    ProfileTable.from_trace_events(slices, stem + ".profile.json").write(stem + ".profile.json")
    return stem + ".profile.json"


#: ``--profile-statistic`` choices: what a dispatch's traced samples become in a profile.
STATISTICS = {"lower_quartile": lower_quartile, "median": statistics.median, "min": min}


def reprofile(folder, target, statistic):
    """Copy the saved round ``folder`` to ``target`` with every profile rebuilt from its saved
    dispatch samples with ``statistic`` (of STATISTICS); a profile saved without its samples
    (before they were kept) is an error naming it."""
    shutil.copytree(folder, target)
    for name in os.listdir(target):
        if name.endswith(".profile.json"):
            samples = os.path.join(target, name[:-len(".profile.json")] + ".dispatches.json")
            if not os.path.exists(samples):
                raise SystemExit(f"--profile-statistic: {os.path.join(folder, name)} was saved "
                                 "without its dispatch samples (an older --save); save the "
                                 "rounds again")
            with open(samples) as f:
                table = ProfileTable.from_trace_events(json.load(f), samples, STATISTICS[statistic])
            table.write(os.path.join(target, name))


def simulated_us(vmfb, function, inputs, layout, topology):
    """Virtual µs of one call (the second: the first loads constants) in a dry run."""
    if layout == "devices":
        module = rt.load(vmfb, topology=topology, dry_run=True)
        call = lambda: getattr(module, function)(*inputs, to_host=False)  # noqa: E731
    else:
        module = rt.load(vmfb, topology=topology, ranks=len(inputs), dry_run=True)
        call = lambda: getattr(module, function).spmd(inputs, to_host=False)  # noqa: E731
    with module:
        call()
        before = module.simulation.drain()
        call()
        return module.simulation.drain() - before


def mpi_worker(folder, repeats):
    """Under ``mpiexec -n 2``: time every case ``NN.vmfb`` in ``folder`` on this rank
    (``MPI_LOAD``: on the calibrated device, one thread per dispatch) and the MPI calibration's
    ``@nop`` and ``@ar_S`` (``calibration.vmfb``, sizes in ``calibration.json``), each call
    after a barrier, all taking turns as in process (``one_round``), the barrier's own time
    taken off; rank 0 also writes the dispatch profile of traced calls beside each case and
    prints ``{"cases": {case: µs}, "calibration": {"nop": µs, "S": µs}}`` as one JSON line
    (the calibration's figures as rt.runtime.sim.mpi_loopback gives them,
    ``calibration.mpi_collective_times``)."""
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    rank = comm.Get_rank()
    builders = {name: builder for name, builder, _, _ in MPI_CASES}
    with open(os.path.join(folder, "calibration.json")) as f:
        sizes = json.load(f)["sizes"]

    def after_barrier(f, args):
        def call():
            comm.Barrier()
            f(*args, to_host=False)
        return call
    with contextlib.ExitStack() as stack:
        probes = stack.enter_context(rt.load(os.path.join(folder, "calibration.vmfb"), **MPI_LOAD))
        calls = {"barrier": comm.Barrier, "nop": after_barrier(probes.nop, [np.ones(4, np.float32)])}
        calls.update((f"ar_{s}", after_barrier(getattr(probes, f"ar_{s}"), [np.ones(s // 4, np.float32)]))
                     for s in sizes)
        cases = []
        for name in sorted(n for n in os.listdir(folder) if n.endswith(".vmfb") and n[0].isdigit()):
            with open(os.path.join(folder, name[:-5] + ".json")) as f:
                case = json.load(f)["case"]
            _, function, inputs = builders[case]()
            mine, path = inputs[rank], os.path.join(folder, name)
            tracer = rt.Tracer()
            with rt.load(path, tracer=tracer, **MPI_LOAD) as module:
                median_us(lambda: getattr(module, function)(*mine, to_host=False), repeats)
            if rank == 0:
                profile_file(tracer.events, folder, case)
            calls[case] = after_barrier(getattr(stack.enter_context(rt.load(path, **MPI_LOAD)), function), mine)
            cases.append(case)
        # both ranks take the same turns, so every call's barrier meets its peer's
        samples = dict(zip(calls, interleaved_samples(list(calls.values()), MPI_BURSTS, warm=True,
                                                      runs=repeats, warm_runs=WARM_RUNS)))
    # per turn k: each call's sample less the barrier's (and the calibration's) of that turn
    bursts = range(len(samples["barrier"]))
    calibration = [mpi_collective_times([samples["barrier"][k]], [samples["nop"][k]],
                                        [[samples[f"ar_{s}"][k]] for s in sizes], sizes) for k in bursts]
    if rank == 0:
        print(json.dumps({"cases": {case: [samples[case][k] - samples["barrier"][k] for k in bursts]
                                    for case in cases},
                          "calibration": calibration}), flush=True)


def run_mpi(folder, repeats, mode):
    """``MpiTurns``: the MPI cases and the MPI link and call cost measured in one ``mpiexec -n
    2`` job, taking turns (``mpi_worker``: MPI loopback jobs run in a fast or a slow mode that
    lasts minutes, so a calibration made in another job read another mode than the cases,
    +80..+180% off); the cases' profiles are left in ``folder``. RtError (no mpiexec, or the
    job failed) says why."""
    from rt.runtime.hal.drivers.mpi_channel import mpiexec_path

    for index, (name, builder, count, _) in enumerate(MPI_CASES):
        vmfb, _, _ = compile_case(builder, "spmd", count)
        with open(os.path.join(folder, f"{index:02d}.vmfb"), "wb") as f:
            f.write(vmfb)
        with open(os.path.join(folder, f"{index:02d}.json"), "w") as f:
            json.dump({"case": name}, f)
    sizes = LINK_SIZES[mode]
    with open(os.path.join(folder, "calibration.vmfb"), "wb") as f:
        f.write(rt.compile(collective_module(2, sizes), devices=["llvm-cpu"]))
    with open(os.path.join(folder, "calibration.json"), "w") as f:
        json.dump({"sizes": list(sizes)}, f)
    command = [mpiexec_path(), "-n", "2", sys.executable, __file__, "--mpi-worker", folder,
               f"--repeats={repeats}"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise DeviceError(f"the MPI cases failed: {(done.stderr or done.stdout)[-500:]}")
    found = json.loads(done.stdout.strip().splitlines()[-1])
    return MpiTurns(found["cases"], found["calibration"], list(sizes))


@dataclasses.dataclass
class MpiTurns:
    """The MPI job's samples, turn by turn: ``cases`` ``{case: [µs per turn]}``, ``calibration``
    ``[{"nop": µs, "S": µs} per turn]`` (rt.runtime.sim.calibration ``mpi_collective_times``
    of that turn's calls) over ``sizes``. Why per turn: the host's MPI loopback switches between
    a fast and a slow mode (a 1 MiB all_reduce 0.26 or 0.73-0.77 ms) that lasts minutes and may
    switch during a job; medians over all turns then took the cases from one mode and the
    calibration from the other (a round predicted 0.43 ms for a 1 MiB all_reduce measured at
    0.73 ms, 2-vCPU development host, 2026-11-29). A case's prediction is the median of its
    predictions from each turn's calibration, its real time the median of its turns: both
    medians over the same turns, so the same modes."""

    cases: dict
    calibration: list
    sizes: list

    def real(self):
        """``{case: median µs over the turns}``."""
        return {case: statistics.median(times) for case, times in self.cases.items()}

    def fits(self):
        """``[(LinkFit, call µs)]``: each turn's MPI link and call cost."""
        return [fit_mpi_collectives(times, self.sizes) for times in self.calibration]

    def fit(self):
        """``(LinkFit, call µs)`` of the median times over the turns (what a round reports)."""
        keys = self.calibration[0].keys()
        return fit_mpi_collectives({k: statistics.median(t[k] for t in self.calibration) for k in keys},
                                   self.sizes)


def one_round(compiled, quick, use_mpi, repeats, folder, bind):
    """``({case: (real, calibrated, profiled) µs}, calibrations, real, MpiTurns or None)`` of
    one round. The
    calibrations' in-process timed calls (links, the host's call cost, the dispatch gap, the wake) and
    the cases' calls take turns in one schedule (rt.runtime.sim.calibration ``Turns``): the
    host's cost of a call moves by phases of seconds to minutes, and a calibration timed
    before the real runs read another phase than they did (a round's calibration timed
    ``@nop`` on 2 ranks at 142 µs, then the real 64 KiB all_gather took 138 µs). The real
    time of a case is the median of its ``BURSTS`` samples, a sample being the median of
    ``repeats`` calls in a row: one case's calls in a row drifted by ±15% from one 40-call
    burst to the next (2 ranks on the 2-core host), so a single burst per round measured the
    drift as much as the program."""
    with Turns(BURSTS) as turns:
        cals = {n: calibrate([URI] * n, quick=quick, turns=turns, bind=bind) for n in (2, 4)}
        calls = {}
        for name, builder, count, layout in CASES:
            vmfb, function, inputs = compiled[name]
            tracer = rt.Tracer()
            module, call = open_case(vmfb, function, inputs, layout, count, tracer, bind)
            with module:
                for _ in range(repeats + 1):
                    call()
            profile_file(tracer.events, folder, name)
            module, calls[name] = open_case(vmfb, function, inputs, layout, count, bind=bind)
            turns.enter(module)
        timed = turns.add(list(calls.values()), repeats)
        turns.run()
    real = {name: statistics.median(b) for name, b in zip(calls, timed.value)}
    mpi = None
    if use_mpi:
        try:
            mpi = run_mpi(folder, repeats, "quick" if quick else "full")
        except RtError as error:
            print(f"MPI cases skipped this round: {error}")
        else:
            real.update(mpi.real())
            cals[2].mpi_link, cals[2].mpi_call_us = mpi.fit()
            cals[2].mpi_note = "measured in the MPI cases' job, taking turns with them"
    return simulate_round(compiled, cals, real, folder, mpi=mpi), cals, real, mpi


TERMS = ("tables", "cores", "gap", "wake")


def without_terms(topology, without):
    """``topology`` (plain data) with the model terms ``without`` (of ``TERMS``) left out."""
    links = [{k: v for k, v in link.items() if k != "table" or "tables" not in without}
             for link in topology["links"]]
    host = {k: v for k, v in topology.get("host", {}).items()
            if not (k == "cores" and "cores" in without or k == "dispatch_us" and "gap" in without
                    or k == "wake_us" and "wake" in without)}
    return {**topology, "links": links, **({"host": host} if host else {})}


def simulate_round(compiled, cals, real, folder, without=(), mpi=None):
    """``{case: (real, calibrated, profiled) µs}``: each case of ``real`` simulated on its
    round's calibrated topology (``cals``: ranks -> Calibration; terms ``without`` left out),
    with and without the dispatch profile the round left in ``folder``; with ``mpi`` (the
    round's ``MpiTurns``) an MPI case's predictions are the medians of those on each turn's
    MPI link and call cost."""
    found = {}
    turn_fits = mpi.fits() if mpi is not None else None  # once a round, for every MPI case
    for name, _, count, layout in CASES + MPI_CASES:
        if name not in real:
            continue
        vmfb, function, inputs = compiled[name]
        links = "mpi" if layout == "mpi" else "copy" if layout == "devices" else "collective"
        profile = os.path.join(folder, name.replace(" ", "_") + ".profile.json")
        calibrations = [cals[count]]
        if layout == "mpi" and turn_fits is not None:
            calibrations = [dataclasses.replace(cals[count], mpi_link=link, mpi_call_us=call)
                            for link, call in turn_fits]
        predictions = []
        for cal in calibrations:
            topology = without_terms(cal.topology_dict(links), without)
            predictions.append([simulated_us(vmfb, function, inputs, "spmd" if layout == "mpi" else layout, t)
                                for t in (topology, {**topology, "profile": profile})])
        found[name] = (real[name], *[statistics.median(p[k] for p in predictions) for k in range(2)])
    return found


def save_round(folder, target, cals, real, load, mpi=None):
    """Keep a round's profiles, calibrations (with their raw points), real times and the MPI
    job's turns."""
    shutil.copytree(folder, target, ignore=shutil.ignore_patterns("*.vmfb", "*.json.tmp"))
    with open(os.path.join(target, "round.pkl"), "wb") as f:
        pickle.dump({"cals": cals, "real": real, "load": load,
                     "mpi": None if mpi is None else dataclasses.asdict(mpi)}, f)


def resimulate(folder, compiled, without=(), statistic=None):
    """``(per_round, loads)`` of the rounds saved in ``folder``, simulated with the current
    model (terms ``without`` left out): kernel classes re-fitted from each calibration's raw
    points; with ``statistic`` (of STATISTICS) the profiles rebuilt from the saved samples."""
    per_round, loads = [], []
    with tempfile.TemporaryDirectory() as scratch:
        for name in sorted(n for n in os.listdir(folder) if n.startswith("round")):
            with open(os.path.join(folder, name, "round.pkl"), "rb") as f:
                saved = pickle.load(f)
            for cal in saved["cals"].values():
                cal.kernels = {uri: kernel_costs(points) for uri, points in cal.kernel_points.items()}
            profiles = os.path.join(folder, name)
            if statistic is not None:
                profiles = os.path.join(scratch, name)
                reprofile(os.path.join(folder, name), profiles, statistic)
            mpi = MpiTurns(**saved["mpi"]) if saved.get("mpi") else None  # rounds saved before had none
            per_round.append(simulate_round(compiled, saved["cals"], saved["real"], profiles, without, mpi))
            loads.append(saved["load"])
    return per_round, loads


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="quick calibration, fewer repeats, one round")
    parser.add_argument("--rounds", type=int, default=None, help="calibration + real runs, taking turns (default 5)")
    parser.add_argument("--repeats", type=int, default=None, help="timed calls per burst (default 15, quick 5)")
    parser.add_argument("--no-mpi", action="store_true", help="skip the MPI cases")
    parser.add_argument("--bind", default="core", choices=("core", "none"),
                        help="in-process ranks' threads: bound to cores as mpiexec --bind-to core "
                             "binds processes (default), or placed by the OS")
    parser.add_argument("--json", default=None, metavar="FILE", help="also write the rows as JSON")
    parser.add_argument("--save", default=None, metavar="DIR", help="keep each round's measurements in DIR")
    parser.add_argument("--resimulate", default=None, metavar="DIR",
                        help="simulate the rounds saved in DIR again (no real runs)")
    parser.add_argument("--without", default="", metavar="TERMS",
                        help=f"with --resimulate: leave out model terms ({', '.join(TERMS)})")
    parser.add_argument("--profile-statistic", default=None, choices=sorted(STATISTICS),
                        help="with --resimulate: rebuild the profiles from the saved dispatch "
                             "samples with this statistic (default: as saved, lower_quartile)")
    parser.add_argument("--mpi-worker", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    without = tuple(t for t in args.without.split(",") if t)
    unknown = sorted(set(without) - set(TERMS))
    if unknown:
        parser.error(f"--without: unknown term(s) {', '.join(unknown)}; expected {', '.join(TERMS)}")
    if args.resimulate and not (os.path.isdir(args.resimulate) and any(
            n.startswith("round") for n in os.listdir(args.resimulate))):
        parser.error(f"--resimulate: {args.resimulate!r} holds no saved rounds (round0/, ...); "
                     "make them with --save=DIR")
    if args.profile_statistic and not args.resimulate:
        parser.error("--profile-statistic rebuilds saved profiles: give --resimulate=DIR too")
    repeats = args.repeats or (5 if args.quick else 15)
    if args.mpi_worker:
        mpi_worker(args.mpi_worker, repeats)
        return
    rounds = args.rounds or (1 if args.quick else 5)
    started = time.perf_counter()
    print(machine(), flush=True)
    use_mpi = not args.no_mpi
    if use_mpi and importlib.util.find_spec("mpi4py") is None:
        print("MPI cases skipped: mpi4py is not installed (pip install -e '.[mpi]')")
        use_mpi = False
    cases = CASES + (MPI_CASES if use_mpi else [])
    compiled = {name: compile_case(builder, "devices" if layout == "devices" else "spmd", count)
                for name, builder, count, layout in cases}
    per_round, loads = [], []
    if args.resimulate:
        per_round, loads = resimulate(args.resimulate, compiled, without, args.profile_statistic)
        rounds = len(per_round)
    with tempfile.TemporaryDirectory() as folder:
        for index in range(0 if args.resimulate else rounds):
            loads.append(os.getloadavg()[0])
            print(f"round {index + 1}/{rounds}: load average {loads[-1]:.2f}", flush=True)
            found, cals, real, mpi = one_round(compiled, args.quick, use_mpi, repeats, folder,
                                               None if args.bind == "none" else args.bind)
            if args.save:
                save_round(folder, os.path.join(args.save, f"round{index}"), cals, real, loads[-1], mpi)
            per_round.append(found)
            for n, cal in cals.items():
                print(f"  calibration with {n} devices: {_figures(cal)}")
            for name, (real, calibrated, profiled) in found.items():
                print(f"  {name:<32} real {real / 1e3:7.3f} ms, calibrated {calibrated / 1e3:7.3f} ms, "
                      f"profiled {profiled / 1e3:7.3f} ms", flush=True)
    loads.append(os.getloadavg()[0])
    rows = [row for row in (summarize(name, per_round) for name, _, _, _ in cases) if row]
    print(f"\nmedians over {rounds} round(s) (load average {', '.join(f'{x:.1f}' for x in loads)}); "
          "error: the median of the rounds' own errors:")
    for row in rows:
        print(_row(*row))
    groups = (("in-process", [r for r in rows if not r[0].startswith("MPI")]), ("all", rows))
    for column, label in ((4, "calibrated classes"), (5, "profiled kernels")):
        for group, chosen in groups:
            errors = [abs(row[column]) for row in chosen]
            worst = max(range(len(chosen)), key=errors.__getitem__)
            print(f"{label:<19} {group:<10} {len(chosen):>2} cases: mean relative error "
                  f"{100 * statistics.fmean(errors):.1f}%, worst {100 * errors[worst]:.1f}% ({chosen[worst][0]})")
    print(f"{time.perf_counter() - started:.0f} s in all")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": machine(), "load_averages": loads, "rounds": per_round, "rows": [
                {"case": n, "real_us": r, "calibrated_us": c, "profiled_us": p, "calibrated_error": ce,
                 "profiled_error": pe, "rounds": k} for n, r, c, p, ce, pe, k in rows]}, f, indent=1)


def summarize(name, per_round):
    """``(name, real µs, calibrated µs, profiled µs, calibrated error, profiled error, rounds)``
    of a case over the rounds that ran it (``per_round``: ``[{case: (real, calibrated,
    profiled) µs}]``), or None if none did: the times are medians over the rounds; an error is
    the median over the rounds of each round's own ``(predicted - real) / real``, its
    prediction judged against the real time measured in the same turns as its calibration.
    Why not the error of the medians: a round's calibration and real calls see the same spell
    of the host (that is why they take turns), and the medians of the two taken apart break
    those pairs. On the 2-vCPU development host, 64 KiB all_reduce calls of 2 ranks measured
    0.083, 0.133, 0.098, 0.081, 0.083 ms over five rounds against 0.115, 0.106, 0.106, 0.084,
    0.082 predicted: errors +39, -20, +8, +4, -1% (median +4%), but +27% between the medians
    (2026-11-29)."""
    seen = [r[name] for r in per_round if name in r]
    if not seen:
        return None
    errors = [statistics.median((v[k] - v[0]) / v[0] for v in seen) for k in (1, 2)]
    return (name, *[statistics.median(v[k] for v in seen) for k in range(3)], *errors, len(seen))


def _figures(cal):
    """The calibrated links (α + S/β) and host call costs, one line."""
    parts = [f"{label} {fit.latency_us:.1f} us + S / {fit.bandwidth_gbps:.3g} GB/s"
             for label, fit in (("collective", cal.collective_link), ("copy", cal.copy_link),
                                ("mpi", cal.mpi_link)) if fit is not None]
    parts += [f"call {us:.0f} us on {n} ranks" for n, us in cal.call_us.items()]
    if cal.mpi_call_us is not None:
        parts.append(f"call {cal.mpi_call_us:.0f} us on 2 MPI processes")
    matmul = cal.kernels[URI].get("matmul")
    bytes_term = f" + bytes / {matmul.byte_rate:.3g} GB/s" if matmul.byte_rate else ""
    return "; ".join(parts + [f"matmul {matmul.overhead_us:.1f} us + flops / {matmul.rate:.3g} GFLOP/s{bytes_term}"])


def _row(name, real, calibrated, profiled, calibrated_error, profiled_error, rounds):
    return (f"{name:<32} real {real / 1e3:7.3f} ms | simulated: calibrated {calibrated / 1e3:7.3f} ms "
            f"{100 * calibrated_error:+6.1f}%, profiled {profiled / 1e3:7.3f} ms {100 * profiled_error:+6.1f}%"
            f"  ({rounds} rounds)")


if __name__ == "__main__":
    main()
