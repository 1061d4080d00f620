"""Runs fuzz cases in subprocesses, in batches, and pins crashes and hangs to single cases.

Each batch is one ``fuzz_worker.py`` process with a timeout. A batch that crashes (non-zero
exit, e.g. SIGSEGV/SIGABRT) or hangs is split in halves and re-run until the cases that crash
or hang alone are found, so one bad case costs a few extra processes, not a run per case.
"""
import json
import os
import subprocess
import sys
from dataclasses import dataclass, field

WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fuzz_worker.py")


@dataclass
class Report:
    """What a run found: outcome counts, and the cases that crashed, hung or raised non-rt errors."""

    cases: int = 0
    outcomes: dict = field(default_factory=dict)
    crashes: list = field(default_factory=list)
    hangs: list = field(default_factory=list)
    bugs: list = field(default_factory=list)

    def merge(self, result):
        for k, v in result["outcomes"].items():
            self.outcomes[k] = self.outcomes.get(k, 0) + v
            self.cases += v
        self.bugs += result["bugs"]


def _batch(corpus, family, seed, start, count, seconds_per_case):
    cmd = [sys.executable, WORKER, corpus, family, str(seed), str(start), str(count)]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True,
                              timeout=60 + seconds_per_case * count)
    except subprocess.TimeoutExpired:
        return "hang", None
    if proc.returncode != 0:
        return "crash", f"exit {proc.returncode}: {proc.stderr.strip()[-300:]}"
    return "ok", json.loads(proc.stdout.strip().splitlines()[-1])


def run(corpus, family, seed, count, batch=1000, seconds_per_case=0.5):
    """Run cases ``0..count-1`` of ``family``; returns a Report."""
    report = Report()
    pending = [(start, min(batch, count - start)) for start in range(0, count, batch)]
    while pending:
        start, n = pending.pop()
        status, result = _batch(corpus, family, seed, start, n, seconds_per_case)
        if status == "ok":
            report.merge(result)
        elif n == 1:
            (report.hangs if status == "hang" else report.crashes).append((start, result))
            report.cases += 1
        else:
            half = n // 2
            pending += [(start, half), (start + half, n - half)]
    return report
