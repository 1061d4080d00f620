"""Compiler fuzzing by mutating the e2e programs (issue 25, item 4).

A case is one of ``tests/e2e/programs/*.mlir`` with 1 to 3 seeded text mutations (a number or a
tensor dimension replaced by a boundary value, an element type swapped, an op name replaced by
another one of the corpus, an SSA use pointed at another value, a line deleted, duplicated or
moved, a span deleted, a punctuation character inserted, the text cut short), compiled for vmvx.
Every case must end in a compiled module or a :class:`CompileError` with ``file:line:col``:
anything else (another exception, an error without a location, a crash, a hang) is a finding.

Each batch of cases runs in a child process with a CPU-time limit (and a far longer clock
limit); a batch that crashes or hangs is split until the single case is found. The suite runs a
small seeded count (``tests/fuzz/test_compiler_fuzz.py``); a long run is::

    python tests/fuzz/compiler_fuzz.py --cases 10000 [--seed 1] [--batch 200] [--jobs 2]

which prints the outcome counts and every finding with its seed and case index (re-run one with
``--first INDEX --cases 1 --show``).
"""
import argparse
import collections
import concurrent.futures
import glob
import json
import os
import random
import re
import resource
import signal
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = sorted(glob.glob(os.path.join(os.path.dirname(HERE), "e2e", "programs", "*.mlir")))
#: the programs the CI run draws from: the smaller ones, so a case compiles in about a second
SMALL = [p for p in PROGRAMS if os.path.getsize(p) <= 2500]
#: CPU seconds a case may take before its batch counts as hung (plus 60 for starting up)
CASE_SECONDS = 20
#: clock seconds a batch may take to start (import rt) before it counts as hung, plus CASE_SECONDS a case
START_SECONDS = 600

_NUMBER = re.compile(r"(?<![\w.%@#])-?\d+(?:\.\d+)?(?:e[+-]?\d+)?(?![\w.])")
_DIM = re.compile(r"(?<=[<x])(?:\d+|\?)(?=x)")
_ELEMENT = re.compile(r"\b(?:f16|bf16|f32|f64|i1|i4|i8|i16|i32|i64|index)\b")
_OP = re.compile(r"\b[a-z_]+\.[a-z_.]+(?=[ (<{])")
_SSA = re.compile(r"%[\w.$]+")
NUMBERS = ["0", "1", "-1", "2", "3", "7", "255", "65536", "2147483648", "-9223372036854775808",
           "18446744073709551616", "1e400", "0.5", "-0.0", "1" * 40]
DIMS = ["0", "1", "?", "3", "65537", "9223372036854775807"]
ELEMENTS = ["f16", "bf16", "f32", "f64", "i1", "i4", "i8", "i16", "i32", "i64", "index"]
PUNCTUATION = list('"{}()<>[]:,=%@#^!?x') + ["->", "//", "loc(", "dense<", "\\"]


def _replace_match(rng, text, pattern, choices):
    matches = list(pattern.finditer(text))
    if not matches:
        return text
    m = rng.choice(matches)
    return text[:m.start()] + rng.choice(choices) + text[m.end():]


def _lines(rng, text, action):
    lines = text.split("\n")
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    if action == "delete":
        del lines[i]
    elif action == "duplicate":
        lines.insert(j, lines[i])
    else:
        lines.insert(j, lines.pop(i))
    return "\n".join(lines)


def mutate(rng, text):
    """``text`` with one seeded mutation (see the module docstring)."""
    kind = rng.randrange(11)
    if kind == 0:
        return _replace_match(rng, text, _NUMBER, NUMBERS)
    if kind == 1:
        return _replace_match(rng, text, _DIM, DIMS)
    if kind == 2:
        return _replace_match(rng, text, _ELEMENT, ELEMENTS)
    if kind == 3:
        return _replace_match(rng, text, _OP, sorted(set(_OP.findall(text))) or ["arith.addf"])
    if kind == 4:
        return _replace_match(rng, text, _SSA, sorted(set(_SSA.findall(text))) or ["%0"])
    if kind in (5, 6, 7):
        return _lines(rng, text, ("delete", "duplicate", "move")[kind - 5])
    position = rng.randrange(len(text) + 1)
    if kind == 8:
        return text[:position] + text[position + rng.randint(1, 20):]
    if kind == 9:
        return text[:position] + rng.choice(PUNCTUATION) + text[position:]
    return text[:position]


def make_case(seed, index, programs=None):
    """(program path, mutated text) of case ``index`` of run ``seed``."""
    rng = random.Random(f"{seed}:{index}")
    path = rng.choice(programs or SMALL)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    for _ in range(rng.randint(1, 3)):
        text = mutate(rng, text)
    return path, text


def run_case(text):
    """``"ok"``, ``"located"`` (a CompileError at file:line:col) or a finding's description."""
    import rt
    from rt.runtime.errors import CompileError

    try:
        rt.compile(text.encode("utf-8"), devices=["vmvx"], jobs=1)
    except CompileError as e:
        if e.file is None or e.line is None:
            return f"unlocated: {e}"
        return "located"
    except Exception as e:  # noqa: BLE001 - anything but a located CompileError is what this hunts
        return f"{type(e).__name__}: {str(e)[:300]}"
    return "ok"


def _worker(seed, first, count, all_programs):
    """Run cases ``first .. first+count-1`` here; print one JSON line of outcomes and findings."""
    import warnings

    budget = cpu_budget(count)
    resource.setrlimit(resource.RLIMIT_CPU, (budget, budget + 5))
    warnings.simplefilter("ignore")
    outcomes, findings = collections.Counter(), []
    for index in range(first, first + count):
        path, text = make_case(seed, index, PROGRAMS if all_programs else None)
        result = run_case(text)
        if result in ("ok", "located"):
            outcomes[result] += 1
        else:
            outcomes["finding"] += 1
            findings.append([index, os.path.basename(path), result])
    print(json.dumps({"outcomes": outcomes, "findings": findings}))


def cpu_budget(count):
    """CPU seconds a batch of ``count`` cases may spend before it counts as hung."""
    return 60 + CASE_SECONDS * count


def _batch(seed, first, count, all_programs):
    """Run a batch in a child process: ``(status, result)``. The child limits its own CPU time
    (``cpu_budget``; a case spinning forever ends in SIGXCPU); the clock limit is far looser, for
    a wait that never ends: on a loaded machine a batch waits for a core far longer than it
    computes (under a load average of 40 on 2 cores a 1-case batch took more than the 80 s the
    clock once gave it just to import rt)."""
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", "--seed", str(seed), "--first", str(first),
           "--cases", str(count)] + (["--all-programs"] if all_programs else [])
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=START_SECONDS + CASE_SECONDS * count)
    except subprocess.TimeoutExpired:
        return "hang", None
    if out.returncode == -signal.SIGXCPU:
        return "hang", None
    if out.returncode != 0:
        return "crash", f"exit {out.returncode}: {out.stderr.strip()[-300:]}"
    return "ok", json.loads(out.stdout.strip().splitlines()[-1])


def run(seed, cases, first=0, batch=200, jobs=1, all_programs=False):
    """Run ``cases`` cases from ``first``; returns ``(outcome counts, findings)`` where each
    finding is ``[index, program, what]`` (what: a description, ``hang`` or ``crash ...``)."""
    outcomes, findings = collections.Counter(), []
    pending = [(start, min(batch, first + cases - start)) for start in range(first, first + cases, batch)]
    with concurrent.futures.ThreadPoolExecutor(max(1, jobs)) as pool:
        while pending:
            work, pending = pending, []
            for (start, count), (status, result) in zip(work, pool.map(
                    lambda item: _batch(seed, item[0], item[1], all_programs), work)):
                if status == "ok":
                    outcomes.update(result["outcomes"])
                    findings += result["findings"]
                elif count == 1:
                    outcomes[status] += 1
                    program = make_case(seed, start, PROGRAMS if all_programs else None)[0]
                    findings.append([start, os.path.basename(program), status + (
                        f" {result}" if result else "")])
                else:
                    pending += [(start, count // 2), (start + count // 2, count - count // 2)]
    return outcomes, findings


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", default="20261128")
    parser.add_argument("--cases", type=int, default=10000)
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--batch", type=int, default=200)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--all-programs", action="store_true", help="draw from every e2e program, not the small ones")
    parser.add_argument("--show", action="store_true", help="print the mutated text of each case")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        return _worker(args.seed, args.first, args.cases, args.all_programs)
    if args.show:
        for index in range(args.first, args.first + args.cases):
            path, text = make_case(args.seed, index, PROGRAMS if args.all_programs else None)
            print(f"// case {index}: {os.path.basename(path)}\n{text}\n// => {run_case(text)}")
        return 0
    outcomes, findings = run(args.seed, args.cases, args.first, args.batch, args.jobs, args.all_programs)
    print(json.dumps(dict(outcomes)))
    for finding in findings:
        print(f"seed {args.seed} case {finding[0]} ({finding[1]}): {finding[2]}")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
