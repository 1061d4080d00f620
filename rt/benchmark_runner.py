"""``rt benchmark`` as iree-benchmark-module runs it: Google Benchmark's repetitions, iteration
counts, aggregates and its console / JSON / CSV reports.

One benchmark, ``BM_<function>/process_time/real_time`` (iree-benchmark-module registers each
function with ``MeasureProcessCPUTime()->UseRealTime()->Unit(kMillisecond)``), is run
``--benchmark_repetitions`` times. The first repetition finds its iteration count: 1 iteration,
then ``max(1.4 * min_time / seconds * iterations, iterations + 1)`` (x10 while the time is
under a tenth of ``min_time``) until the real time reaches ``--benchmark_min_time`` seconds;
``--benchmark_min_time=Nx`` runs exactly N iterations. Later repetitions run the same count.
With more than one repetition, ``_mean``, ``_median``, ``_stddev`` (time) and ``_cv``
(percentage) rows follow, each with the repetition count as its iterations.
Times: ms per iteration (real: wall clock; CPU: process CPU time).

Source followed: google/benchmark 1.8 (``benchmark_runner.cc`` PredictNumItersNeeded,
``statistics.cc`` ComputeStats, ``console_reporter.cc``, ``json_reporter.cc``,
``csv_reporter.cc``) and IREE ``tools/iree-benchmark-module-main.cc``.
"""
import dataclasses
import datetime
import json
import math
import os
import socket
import statistics
import time

from rt.runtime.errors import InvalidArgumentError

MAX_ITERATIONS = 1_000_000_000
FORMATS = ("console", "json", "csv")
DEFAULT_MIN_TIME = "0.5s"


@dataclasses.dataclass(frozen=True)
class MinTime:
    """``--benchmark_min_time``: ``seconds`` to reach, or a fixed ``iterations`` count."""
    seconds: float = 0.0
    iterations: int = 0


def parse_min_time(text):
    """``"0.5"`` / ``"0.5s"`` -> MinTime(seconds=0.5); ``"100x"`` -> MinTime(iterations=100).
    InvalidArgumentError for anything else (as Google Benchmark refuses it)."""
    value = text.strip()
    try:
        if value.endswith("x"):
            count = int(value[:-1])
            if count < 1:
                raise ValueError
            return MinTime(iterations=count)
        seconds = float(value[:-1] if value.endswith("s") else value)
        if not math.isfinite(seconds) or seconds < 0:
            raise ValueError
        return MinTime(seconds=seconds)
    except ValueError:
        raise InvalidArgumentError(f"--benchmark_min_time={text}: expected seconds (0.5 or 0.5s) or an "
                                   "iteration count (100x)") from None


@dataclasses.dataclass(frozen=True)
class Run:
    """One report row. ``real_time`` / ``cpu_time``: ms per iteration (for a ``cv`` aggregate:
    the coefficient of variation as a fraction)."""
    name: str
    run_name: str
    iterations: int
    real_time: float
    cpu_time: float
    repetitions: int
    repetition_index: int = 0
    aggregate_name: str = ""
    items_per_second: float = 0.0

    @property
    def is_percentage(self):
        return self.aggregate_name == "cv"


def _next_iterations(iterations, seconds, min_time):
    multiplier = min_time * 1.4 / max(seconds, 1e-9)
    if seconds / min_time <= 0.1:
        multiplier = 10.0
    return min(max(int(multiplier * iterations), iterations + 1), MAX_ITERATIONS)


def measure(call, min_time, repetitions, name):
    """Run ``call()`` as Google Benchmark would; returns (the repetition rows, per-call ms of
    every reported iteration)."""
    rows, per_call = [], []
    iterations = min_time.iterations or 1
    for index in range(repetitions):
        while True:
            times = []
            cpu = time.process_time()
            for _ in range(iterations):
                start = time.perf_counter()
                call()
                times.append((time.perf_counter() - start) * 1e3)
            cpu = (time.process_time() - cpu) * 1e3
            seconds = sum(times) / 1e3
            if (index or min_time.iterations or iterations >= MAX_ITERATIONS or seconds >= min_time.seconds):
                break
            iterations = _next_iterations(iterations, seconds, min_time.seconds)
        per_call += times
        real = sum(times) / iterations
        rows.append(Run(name, name, iterations, real, cpu / iterations, repetitions, index, "",
                        1e3 / real if real else 0.0))
    return rows, per_call


def aggregates(rows):
    """``_mean``, ``_median``, ``_stddev``, ``_cv`` rows of the repetitions (none for one)."""
    if len(rows) < 2:
        return []
    real, cpu, items = ([r.real_time for r in rows], [r.cpu_time for r in rows],
                        [r.items_per_second for r in rows])
    stats = (("mean", statistics.fmean), ("median", statistics.median), ("stddev", statistics.stdev),
             ("cv", lambda v: statistics.stdev(v) / statistics.fmean(v) if statistics.fmean(v) else 0.0))
    base = rows[0]
    return [Run(f"{base.run_name}_{key}", base.run_name, len(rows), f(real), f(cpu), len(rows), 0, key, f(items))
            for key, f in stats]


def _time_text(ms):
    if ms < 1.0:
        return "%10.3f" % ms
    if ms < 10.0:
        return "%10.2f" % ms
    if ms < 100.0:
        return "%10.1f" % ms
    if ms > 9999999999:
        return "%1.4e" % ms
    return "%10.0f" % ms


_PREFIXES_UP = ("", "k", "M", "G", "T", "P", "E")
_PREFIXES_DOWN = ("", "m", "u", "n", "p")


def _human(value):
    """A counter as Google Benchmark prints it: ``68.8136``, ``97.702k``, ``500m``."""
    scale = 0
    while abs(value) >= 1000 and scale < len(_PREFIXES_UP) - 1:
        value, scale = value / 1000, scale + 1
    if scale:
        return "%g%s" % (value, _PREFIXES_UP[scale])
    while value and abs(value) < 1 and scale < len(_PREFIXES_DOWN) - 1:
        value, scale = value * 1000, scale + 1
    return "%g%s" % (value, _PREFIXES_DOWN[scale])


def console(rows):
    """Google Benchmark's console table (header, rule, one line per row with its
    ``items_per_second`` counter, calls per second as iree-benchmark-module counts them)."""
    width = max([10] + [len(r.name) for r in rows])
    header = "%-*s %13s %15s %12s UserCounters..." % (width, "Benchmark", "Time", "CPU", "Iterations")
    lines = ["-" * len(header), header, "-" * len(header)]
    for r in rows:
        if r.is_percentage:
            times = "%10.2f %-4s %10.2f %-4s " % (100 * r.real_time, "%", 100 * r.cpu_time, "%")
            items = "%.2f%%" % (100 * r.items_per_second)
        else:
            times = "%s %-4s %s %-4s " % (_time_text(r.real_time), "ms", _time_text(r.cpu_time), "ms")
            items = _human(r.items_per_second) + "/s"
        lines.append("%-*s " % (width, r.name) + times + "%10d" % r.iterations + " items_per_second=" + items)
    return "\n".join(lines) + "\n"


def context():
    """The run's context: date, host, CPUs, load (Google Benchmark's ``context`` object)."""
    mhz = 0.0  # as /proc/cpuinfo gives it
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            mhz = next((float(line.split(":")[1]) for line in f if line.startswith("cpu MHz")), 0.0)
    except OSError:
        pass
    from rt import __version__

    return {"date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
            "host_name": socket.gethostname(), "executable": "python -m rt benchmark",
            "num_cpus": os.cpu_count(), "mhz_per_cpu": round(mhz), "mhz": mhz, "cpu_scaling_enabled": False,
            "caches": [], "load_avg": list(os.getloadavg()), "library_build_type": "release",
            "rt_version": __version__}


def context_text(ctx):
    """The context lines the console and CSV reporters print to stderr."""
    return (f"{ctx['date']}\nRunning {ctx['executable']}\nRun on ({ctx['num_cpus']} X {ctx['mhz']:g} MHz "
            f"CPU s)\nLoad Average: {', '.join('%.2f' % v for v in ctx['load_avg'])}\n")


def to_json(rows, ctx):
    """Google Benchmark's JSON report."""
    out = []
    for r in rows:
        entry = {"name": r.name, "family_index": 0, "per_family_instance_index": 0, "run_name": r.run_name,
                 "run_type": "aggregate" if r.aggregate_name else "iteration", "repetitions": r.repetitions}
        if r.aggregate_name:
            entry.update(threads=1, aggregate_name=r.aggregate_name,
                         aggregate_unit="percentage" if r.is_percentage else "time")
        else:
            entry.update(repetition_index=r.repetition_index, threads=1)
        entry.update(iterations=r.iterations, real_time=r.real_time, cpu_time=r.cpu_time, time_unit="ms",
                     items_per_second=r.items_per_second)
        out.append(entry)
    context = {key: value for key, value in ctx.items() if key != "mhz"}
    return json.dumps({"context": context, "benchmarks": out}, indent=2) + "\n"


def to_csv(rows):
    """Google Benchmark's CSV report."""
    lines = ["name,iterations,real_time,cpu_time,time_unit,bytes_per_second,items_per_second,label,"
             "error_occurred,error_message"]
    for r in rows:
        lines.append(f'"{r.name}",{r.iterations},{r.real_time:g},{r.cpu_time:g},'
                     f'{"" if r.is_percentage else "ms"},,{r.items_per_second:g},,,')
    return "\n".join(lines) + "\n"


def report(rows, fmt, ctx):
    """``rows`` in format ``fmt`` (console, json or csv)."""
    if fmt == "json":
        return to_json(rows, ctx)
    return to_csv(rows) if fmt == "csv" else console(rows)
