"""How far the simulator's times are from real runs on this machine (issue 23 item 4).

    python benchmarks/sim_accuracy.py [--quick] [--repeats=N] [--no-mpi] [--json=out.json]

One run does three things, in this order, so that every figure sees the same host load:

1. **Calibrates** this host twice (``rt.runtime.sim.calibration.calibrate``, what
   ``rt calibrate --devices=N`` writes), for 2 and for 4 devices: kernel classes measured with
   N devices busy at once, memory bandwidth, in-process links fitted on N ranks, and (N = 2)
   MPI loopback links (``mpiexec -n 2`` ping-pong) where mpi4py and mpiexec are installed.
   Each case is simulated on the calibration of its device count.
2. **Runs each program for real** (benchmarks/sim_accuracy_programs.py): SPMD programs on N
   in-process ranks (``rt.load(..., ranks=N)``, each rank its own ``local-task`` device), the
   pipeline on k devices of one process, and the MPI cases on ``mpiexec -n 2`` processes
   (``channel="mpi"``). Real time = the fastest wall time of ``--repeats`` calls.
3. **Simulates each program** on the calibrated topology (N devices, ring links with the
   calibrated link figures of the path the program's data takes: ``collective`` for SPMD ranks
   in one process, whose collectives meet in a rendezvous of rank threads; ``copy`` for the
   pipeline, whose ``flow.tensor.transfer``s are copies between devices; ``mpi`` for the MPI
   processes) in a dry run (the calibrated model is deterministic, so nothing needs
   computing); simulated time = the virtual time of one call.

The simulator models device queues, kernels, transfers and collectives, not the host's own
cost of a call (Python, the VM, handing the call to N rank threads or processes). That cost is
measured in the same run with a call of the same layout that does no work (``@id``), and the
**prediction is simulated time + that per-call cost**; both terms are printed. Error = |predicted
- real| / real; the script prints each case, the mean and the worst. The host is shared (2
cores, other agents' jobs): every figure, calibration and real runs alike, is the fastest of
its repeats (the run least disturbed by other jobs; medians moved by 2x with the load average),
the calibration runs in the same process just before, and the load average is printed.
"""
import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))

import rt  # noqa: E402
import sim_accuracy_programs as programs  # noqa: E402
from iree_peer import machine  # noqa: E402
from rt.runtime.sim.calibration import DEFAULT_URI, calibrate, fastest_us  # noqa: E402
from rt.runtime.sim.profile import ProfileTable  # noqa: E402

URI = DEFAULT_URI

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


def real_us(vmfb, function, inputs, layout, count, repeats, tracer=None):
    """The fastest wall µs of one call on real local devices (in-process ranks or k devices);
    with ``tracer`` the calls are traced (for a profile, not for their time)."""
    if layout == "devices":
        with rt.load(vmfb, devices=[URI] * count, tracer=tracer) as module:
            f = getattr(module, function)
            return fastest_us(lambda: f(*inputs, to_host=False), repeats)
    with rt.load(vmfb, ranks=count, devices=[URI], tracer=tracer) as module:
        f = getattr(module, function)
        return fastest_us(lambda: f.spmd(inputs, to_host=False), repeats)


def profile_file(events, folder, name):
    """Write the dispatch profile (median sample per dispatch) of a real run's trace events."""
    path = os.path.join(folder, name.replace(" ", "_") + ".profile.json")
    ProfileTable.from_trace_events(events, path).write(path)
    return path


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
    """Under ``mpiexec -n 2``: time every ``NN.vmfb`` in ``folder`` on this rank
    (``channel="mpi"``); rank 0 also writes the dispatch profile of traced calls beside it and
    prints ``{case: fastest µs}`` as one JSON line."""
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    rank = comm.Get_rank()
    builders = {name: builder for name, builder, _, _ in MPI_CASES}
    builders["id"] = lambda: programs.call_overhead(2)
    found = {}
    for name in sorted(n for n in os.listdir(folder) if n.endswith(".vmfb")):
        with open(os.path.join(folder, name[:-5] + ".json")) as f:
            case = json.load(f)["case"]
        _, function, inputs = builders[case]()
        mine, path = inputs[rank], os.path.join(folder, name)
        tracer = rt.Tracer()
        with rt.load(path, channel="mpi", tracer=tracer) as module:
            fastest_us(lambda: getattr(module, function)(*mine, to_host=False), repeats)
        if rank == 0:
            profile_file(tracer.events, folder, case)
        with rt.load(path, channel="mpi") as module:
            f = getattr(module, function)

            def call():
                comm.Barrier()
                f(*mine, to_host=False)
            barrier = fastest_us(comm.Barrier, repeats)
            found[case] = fastest_us(call, repeats) - barrier
    if rank == 0:
        print(json.dumps(found), flush=True)


def run_mpi(folder, repeats):
    """``{case: real µs}`` of the MPI cases and the per-call cost (key "id"); their profiles
    are left in ``folder``."""
    from rt.runtime.hal.drivers.mpi_channel import mpiexec_path

    cases = MPI_CASES + [("id", lambda: programs.call_overhead(2), 2, "mpi")]
    for index, (name, builder, count, _) in enumerate(cases):
        vmfb, _, _ = compile_case(builder, "spmd", count)
        with open(os.path.join(folder, f"{index:02d}.vmfb"), "wb") as f:
            f.write(vmfb)
        with open(os.path.join(folder, f"{index:02d}.json"), "w") as f:
            json.dump({"case": name}, f)
    command = [mpiexec_path(), "-n", "2", sys.executable, __file__, "--mpi-worker", folder,
               f"--repeats={repeats}"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"the MPI cases failed: {(done.stderr or done.stdout)[-500:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def host_cost_us(layout, count, repeats):
    """The host's µs per call of this layout without work: ``@id`` on ``count`` in-process
    ranks, or on one device for a single-call program."""
    vmfb, function, inputs = compile_case(lambda: programs.call_overhead(count if layout == "spmd" else 1), "spmd", 1)
    if layout == "spmd":
        return real_us(vmfb, function, inputs, "spmd", count, repeats * 3)
    return real_us(vmfb, function, inputs[0], "devices", 1, repeats * 3)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="quick calibration, fewer repeats")
    parser.add_argument("--repeats", type=int, default=None, help="timed calls per case (default 15, quick 5)")
    parser.add_argument("--no-mpi", action="store_true", help="skip the MPI cases")
    parser.add_argument("--json", default=None, metavar="FILE", help="also write the rows as JSON")
    parser.add_argument("--mpi-worker", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    repeats = args.repeats or (5 if args.quick else 15)
    if args.mpi_worker:
        mpi_worker(args.mpi_worker, repeats)
        return
    started = time.perf_counter()
    print(machine(), f"load average {os.getloadavg()[0]:.2f}", flush=True)
    use_mpi = not args.no_mpi
    if use_mpi:
        if importlib.util.find_spec("mpi4py") is None:
            print("MPI cases skipped: mpi4py is not installed (pip install -e '.[mpi]')")
            use_mpi = False
    cals = {n: calibrate([URI] * n, quick=args.quick, mpi=use_mpi and n == 2) for n in (2, 4)}
    if use_mpi and cals[2].mpi_link is None:
        print(f"MPI cases skipped: {cals[2].mpi_note}")
        use_mpi = False
    for n, cal in cals.items():
        print(f"calibration with {n} devices:")
        for line in cal.header():
            print("  " + line)
    rows, costs = [], {}
    with tempfile.TemporaryDirectory() as folder:
        for name, builder, count, layout in CASES:
            vmfb, function, inputs = compile_case(builder, layout, count)
            tracer = rt.Tracer()
            real_us(vmfb, function, inputs, layout, count, repeats, tracer)
            profile = profile_file(tracer.events, folder, name)
            real = real_us(vmfb, function, inputs, layout, count, repeats)
            links = "copy" if layout == "devices" else "collective"
            topology = cals[count].topology_dict(links)
            sims = [simulated_us(vmfb, function, inputs, layout, t)
                    for t in (topology, {**topology, "profile": profile})]
            if (layout, count) not in costs:
                costs[(layout, count)] = host_cost_us(layout, count, repeats)
            rows.append((name, real, *sims, costs[(layout, count)]))
            print(_row(*rows[-1]), flush=True)
        if use_mpi:
            measured = run_mpi(folder, repeats)
            topology = cals[2].topology_dict("mpi")
            for name, builder, count, _ in MPI_CASES:
                vmfb, function, inputs = compile_case(builder, "spmd", count)
                profile = os.path.join(folder, name.replace(" ", "_") + ".profile.json")
                sims = [simulated_us(vmfb, function, inputs, "spmd", t)
                        for t in (topology, {**topology, "profile": profile})]
                rows.append((name, measured[name], *sims, measured["id"]))
                print(_row(*rows[-1]), flush=True)
    groups = (("in-process", [r for r in rows if not r[0].startswith("MPI")]), ("all", rows))
    for column, label in ((2, "calibrated classes"), (3, "profiled kernels")):
        for group, chosen in groups:
            errors = [abs(row[column] + row[4] - row[1]) / row[1] for row in chosen]
            worst = max(range(len(chosen)), key=errors.__getitem__)
            print(f"{label:<19} {group:<10} {len(chosen):>2} cases: mean relative error "
                  f"{100 * statistics.fmean(errors):.1f}%, worst {100 * errors[worst]:.1f}% ({chosen[worst][0]})")
    print(f"{time.perf_counter() - started:.0f} s in all")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": machine(), "rows": [
                {"case": n, "real_us": r, "calibrated_us": c, "profiled_us": p, "host_us": h}
                for n, r, c, p, h in rows]}, f, indent=1)


def _row(name, real, calibrated, profiled, host):
    def error(sim):
        return f"{100 * (sim + host - real) / real:+6.1f}%"
    return (f"{name:<32} real {real / 1e3:7.3f} ms | host {host / 1e3:6.3f} + simulated: calibrated "
            f"{calibrated / 1e3:7.3f} ms {error(calibrated)}, profiled {profiled / 1e3:7.3f} ms {error(profiled)}")


if __name__ == "__main__":
    main()
