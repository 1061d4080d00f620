"""IREE's own end-to-end tests (``tests/e2e``) run through rt, as IREE runs them.

Usage::

    python benchmarks/iree_conformance.py PATH_TO_IREE_CHECKOUT [--devices=llvm-cpu,vmvx]
        [--jobs=N] [--timeout=S] [--filter=SUBSTRING] [--json=OUT.json] [--markdown]
        [--no-out-of-scope] [--verbose]

The IREE tree is read at run time (nothing of it is copied into rt). For every
``tests/e2e/**/*.mlir``:

* **Scope.** A file is in scope when every op it contains belongs to one of rt's input dialects
  (``INPUT_DIALECTS``); the op names are read from the text (comments stripped).
* **How IREE runs it** comes from the folder's ``CMakeLists.txt`` (generated from ``BUILD.bazel``
  or written by hand): ``iree_check_single_backend_test_suite`` (target backend, compiler flags)
  or ``iree_lit_test_suite``. A check file that IREE runs only on GPU backends, or in no suite at
  all, is *excluded* from the headline ratio with that reason, but still run and reported.
* **Check files** run as ``iree-check-module`` runs them: each exported function without
  arguments is one test, called in a fresh context (``rt.load`` per function); a failing
  ``check.expect_*`` fails it. Compiler flags of IREE's suite for the same backend are mapped to
  rt options where rt has one (``FLAG_OPTIONS``); the others are listed as ignored.
* **Lit files** run their ``iree-run-mlir`` RUN lines as ``python -m rt run FILE --device=URI
  --input=...`` piped into ``filecheck FILE``; RUN lines of other tools (IR checks of IREE's own
  passes, parameter tooling) are reported as not applicable.
* Every file and device runs in its own subprocess with a timeout; a crash or timeout fails the
  tests it had not finished.
* **Out-of-scope files** are compiled by rt once each (llvm-cpu) to prove the compiler answers
  with a located error (``file:line:col: error: ...``), never an internal exception.

The report prints pass/fail per folder and device, the blockers ranked by the number of tests
each blocks (a blocker is the first line of the first error, location stripped), the excluded
files with reasons, and any internal or unlocated error. ``--markdown`` prints the same as the
tables of ``docs/CONFORMANCE.md``; ``--json`` writes every result.
"""
import argparse
import collections
import concurrent.futures
import json
import os
import pathlib
import re
import shlex
import signal
import subprocess
import sys
import time

INPUT_DIALECTS = frozenset(
    {"builtin", "func", "arith", "math", "tensor", "linalg", "scf", "cf", "util", "check", "flow", "hal", "stablehlo",
     "chlo", "tosa", "ml_program", "iree_linalg_ext"})
CPU_BACKENDS = frozenset({"llvm-cpu", "vmvx"})
#: rt target -> device URI (IREE's check suites run on the local-task driver)
DEVICES = {"llvm-cpu": "local-task://llvm-cpu", "vmvx": "local-task://vmvx"}
#: the peer column: IREE 3.13 (benchmarks/iree_peer.py) on the CPU backend of IREE's own suite
PEER = "iree"
#: IREE compiler flag -> rt.compile keyword arguments with the same meaning
FLAG_OPTIONS = {
    "--iree-opt-data-tiling": {"data_tiling": True},
    "--iree-opt-data-tiling=true": {"data_tiling": True},
    "--iree-opt-data-tiling=false": {"data_tiling": False},
    "--iree-dispatch-creation-data-tiling": {"data_tiling": True},
    "--iree-llvmcpu-reassociate-fp-reductions=false": {"reassociate_fp_reductions": False},
    "--iree-llvmcpu-reassociate-fp-reductions=true": {"reassociate_fp_reductions": True},
}

_COMMENT = re.compile(r"//.*")
_OP_LINE = re.compile(
    r"\s*(?:%[\w#:, %]*=\s*)?\"?([a-z_][a-z0-9_]*)\.([a-z_][a-z0-9_.]*)\"?(?![\w.])(?!\s*=)")
_TEST_FUNC = re.compile(
    r"^\s*(?:func|util)\.func\s+(?:public\s+)?@(\"[^\"]+\"|[\w$.\-]+)\s*\(\s*\)", re.M)
_LOCATED = re.compile(r"^(?:\S.*?):\d+:\d+: error: ")


# ---------------------------------------------------------------------------------------------
# Discovery: scope, IREE's suites, tests


def ops_of(text):
    """The op names (``dialect.op``) that start a statement in MLIR ``text``."""
    ops = set()
    for line in _COMMENT.sub("", text).splitlines():
        m = _OP_LINE.match(line)
        if m:
            ops.add(f"{m.group(1)}.{m.group(2)}")
    return ops


def test_functions(text):
    """Names of the public functions without arguments, in file order (iree-check-module's tests)."""
    return [name.strip('"') for name in _TEST_FUNC.findall(_COMMENT.sub("", text))]


def _cmake_calls(text, macro):
    """Argument token lists of every ``macro(...)`` call in CMake ``text``."""
    calls = []
    for m in re.finditer(rf"\b{macro}\(", text):
        depth, i = 1, m.end()
        while depth and i < len(text):
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        body = re.sub(r"#.*", "", text[m.end():i - 1])
        calls.append(shlex.split(body, posix=True))
    return calls


def _sections(tokens):
    """CMake keyword arguments: {KEYWORD: [values]} (keywords are upper-case tokens)."""
    out, key = {}, None
    for tok in tokens:
        if re.fullmatch(r"[A-Z][A-Z_]+", tok):
            key = tok
            out.setdefault(key, [])
        elif key is not None:
            out[key].append(tok)
    return out


def iree_suites(folder):
    """{file name: [suite]} for the ``.mlir`` files of ``folder`` named in its CMakeLists.txt.

    A suite is a dict: kind (``check``/``lit``), name, backend, driver, flags.
    """
    cmake = folder / "CMakeLists.txt"
    suites = collections.defaultdict(list)
    if not cmake.exists():
        return suites
    text = cmake.read_text()
    for kind, macro in (("check", "iree_check_single_backend_test_suite"), ("lit", "iree_lit_test_suite")):
        for tokens in _cmake_calls(text, macro):
            s = _sections(tokens)
            suite = {"kind": kind, "name": (s.get("NAME") or ["?"])[0],
                     "backend": (s.get("TARGET_BACKEND") or [None])[0],
                     "driver": (s.get("DRIVER") or [None])[0], "flags": s.get("COMPILER_FLAGS", [])}
            for src in s.get("SRCS", []):
                suites[src].append(suite)
    return suites


def discover(iree_root, pattern=None):
    """Every ``tests/e2e`` file with its scope, IREE suites and tests (a list of dicts)."""
    e2e = pathlib.Path(iree_root) / "tests" / "e2e"
    if not e2e.is_dir():
        raise SystemExit(f"{e2e} does not exist: give the root of an IREE checkout (with tests/e2e)")
    suites_by_folder, files = {}, []
    for path in sorted(e2e.rglob("*.mlir")):
        rel = path.relative_to(e2e).as_posix()
        if pattern and pattern not in rel:
            continue
        if path.parent not in suites_by_folder:
            suites_by_folder[path.parent] = iree_suites(path.parent)
        text = path.read_text(encoding="utf-8", errors="replace")
        foreign = sorted(op for op in ops_of(text) if op.split(".")[0] not in INPUT_DIALECTS)
        suites = suites_by_folder[path.parent].get(path.name, [])
        entry = {"file": rel, "path": str(path), "folder": rel.rsplit("/", 1)[0] if "/" in rel else ".",
                 "in_scope": not foreign, "foreign_ops": foreign, "suites": suites}
        entry["kind"] = "lit" if any(s["kind"] == "lit" for s in suites) else "check"
        entry["tests"] = test_functions(text) if entry["kind"] == "check" else []
        entry["excluded"] = exclusion(entry)
        files.append(entry)
    return files


def exclusion(entry):
    """The reason a check file is left out of the headline ratio, or None."""
    if entry["kind"] != "check":
        return None
    backends = sorted({s["backend"] for s in entry["suites"] if s["kind"] == "check"})
    if not backends:
        return "IREE's build files run it in no test suite"
    if not CPU_BACKENDS & set(backends):
        return f"IREE runs it only on GPU backends ({', '.join(backends)})"
    return None


def peer_backend(entry):
    """(IREE backend, IREE's compiler flags) the peer runs a check file with: the suite's CPU
    backend (llvm-cpu first) and its flags, or llvm-cpu without flags for GPU-only files."""
    for backend in ("llvm-cpu", "vmvx"):
        for s in entry["suites"]:
            if s["kind"] == "check" and s["backend"] == backend:
                return backend, s["flags"]
    return "llvm-cpu", []


def compile_options(entry, target):
    """(rt.compile kwargs, ignored IREE flags) from IREE's suite for ``target``'s backend."""
    suites = [s for s in entry["suites"] if s["kind"] == "check" and s["backend"] == target]
    flags = suites[0]["flags"] if suites else []
    options, ignored = {}, []
    for flag in flags:
        if flag in FLAG_OPTIONS:
            options.update(FLAG_OPTIONS[flag])
        else:
            ignored.append(flag)
    return options, ignored


# ---------------------------------------------------------------------------------------------
# Workers (run in a subprocess: one file on one device)


def _first_line(exc):
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0]


def _describe(exc):
    """(kind, first line) of an exception: ``error``, ``check`` or ``internal``."""
    import rt

    if isinstance(exc, rt.CheckError):
        return "check", _first_line(exc)
    if isinstance(exc, rt.RtError):
        return "error", f"{type(exc).__name__}: {_first_line(exc)}"
    return "internal", f"{type(exc).__name__}: {_first_line(exc)}"


def _emit(record):
    print(json.dumps(record), flush=True)


def _run_functions(functions, call, describe):
    """Report each function's run: ``call(name)`` runs it (fresh context), ``describe(exc)`` gives
    (kind, first line) of a failure; a ``start`` event before and a ``function`` record after."""
    for name in functions:
        _emit({"event": "start", "function": name})
        start = time.perf_counter()
        record = {"event": "function", "function": name, "ok": True}
        try:
            call(name)
        except BaseException as exc:  # every failure is a result to report
            kind, line = describe(exc)
            record.update(ok=False, kind=kind, error=line)
        record["seconds"] = time.perf_counter() - start
        _emit(record)


def worker_check(path, target, uri, options, functions):
    """Compile ``path`` for ``target``, then call each function in a fresh context on ``uri``."""
    import rt

    start = time.perf_counter()
    try:
        vmfb = rt.compile(path, devices=[target], **options)
    except BaseException as exc:  # every failure is a result to report
        kind, line = _describe(exc)
        located = bool(_LOCATED.match(str(exc))) if isinstance(exc, rt.CompileError) else None
        _emit({"event": "compile", "ok": False, "kind": kind, "error": line, "located": located,
               "seconds": time.perf_counter() - start})
        return
    _emit({"event": "compile", "ok": True, "seconds": time.perf_counter() - start, "bytes": len(vmfb)})
    def call(name):
        module = rt.load(vmfb, devices=[uri])
        try:
            module[name]()
        finally:
            module.close()

    _run_functions(functions, call, _describe)


def worker_peer(path, backend, flags, functions):
    """``worker_check`` for the peer: iree-compile ``path`` with IREE's suite flags, then call
    each function in a fresh context holding a ``check`` module (``iree_peer.iree_check_module``)."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from iree_peer import iree_check_module, load_iree

    ic, ireert = load_iree()
    start = time.perf_counter()
    try:
        vmfb = ic.compile_file(path, target_backends=[backend], extra_args=[f.replace("\\", "") for f in flags])
    except BaseException as exc:
        error = next((l for l in str(exc).splitlines() if "error:" in l), _first_line(exc))
        _emit({"event": "compile", "ok": False, "kind": "error", "error": error.strip()[:300],
               "located": True, "seconds": time.perf_counter() - start})
        return
    _emit({"event": "compile", "ok": True, "seconds": time.perf_counter() - start, "bytes": len(vmfb)})
    def call(name):
        module, ctx = iree_check_module(ireert, vmfb)
        getattr(module, name)()
        del module, ctx

    def describe(exc):
        text = str(exc)
        line = next((l for l in text.splitlines() if "check.expect" in l), _first_line(exc))
        return ("check" if "check.expect" in text else "error"), line.strip()[:300]

    _run_functions(functions, call, describe)


def worker_compile(path, target):
    """Compile ``path`` only; report whether a failure is a located rt error."""
    import rt

    try:
        rt.compile(path, devices=[target])
        _emit({"event": "compile", "ok": True})
    except BaseException as exc:
        kind, line = _describe(exc)
        located = bool(_LOCATED.match(str(exc))) if isinstance(exc, rt.CompileError) else False
        _emit({"event": "compile", "ok": False, "kind": kind, "error": line, "located": located})


def _run_worker(args, timeout):
    """Run this script's worker mode; returns (records, failure or None)."""
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", json.dumps(args)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
        failure = None
        if proc.returncode:
            tail = (err.strip().splitlines() or ["no output"])[-1]
            failure = (f"crash: signal {-proc.returncode}" if proc.returncode < 0
                       else f"worker exited with status {proc.returncode}: {tail}")
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        failure = f"timeout after {timeout:g} s"
    records = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    return records, failure


# ---------------------------------------------------------------------------------------------
# Running check files, lit files and the out-of-scope sweep


def run_check(entry, target, timeout):
    """Results of one check file on one device: a list of test dicts."""
    if target == PEER:
        backend, ignored = peer_backend(entry)
        args = {"mode": "peer", "path": entry["path"], "backend": backend, "flags": ignored,
                "functions": entry["tests"]}
        ignored = []
    else:
        options, ignored = compile_options(entry, target)
        args = {"mode": "check", "path": entry["path"], "target": target, "uri": DEVICES[target],
                "options": options, "functions": entry["tests"]}
    records, failure = _run_worker(args, timeout)
    compiled = next((r for r in records if r["event"] == "compile"), None)
    compile_seconds = compiled.get("seconds") if compiled else None
    done = {r["function"]: r for r in records if r["event"] == "function"}
    running = [r["function"] for r in records if r["event"] == "start" and r["function"] not in done]
    results = []
    for name in entry["tests"]:
        res = {"file": entry["file"], "test": name, "target": target, "ignored_flags": ignored,
               "compile_seconds": compile_seconds}
        if compiled is None:
            res.update(ok=False, kind="internal" if failure.startswith("crash") else "timeout",
                       error=f"compiling: {failure}")
        elif not compiled["ok"]:
            res.update(ok=False, kind=compiled["kind"], error=compiled["error"],
                       located=compiled.get("located"), stage="compile")
        elif name in done:
            r = done[name]
            res.update(ok=r["ok"], kind=r.get("kind"), error=r.get("error"), seconds=r["seconds"])
        else:
            where = "running" if name in running else "before running"
            res.update(ok=False, kind="internal" if failure and failure.startswith("crash") else "timeout",
                       error=f"{where} @{name}: {failure}")
        results.append(res)
    return results


def lit_runs(path):
    """The RUN pipelines of a lit file: [(command words, note)]; note says why one is not run."""
    lines = [l.split("RUN:", 1)[1] for l in path.read_text().splitlines() if re.match(r"\s*//\s*RUN:", l)]
    joined, cur = [], ""
    for line in lines:
        cur += line.rstrip()
        if cur.endswith("\\"):
            cur = cur[:-1] + " "
        else:
            joined.append(cur.strip())
            cur = ""
    runs, notes = [], set()
    for cmd in joined:
        stages = [shlex.split(s) for s in cmd.split("|")]
        tools = [s[0] for s in stages if s]
        if "iree-run-mlir" in tools and tools[-1] == "FileCheck":
            prefixes = [w for w in stages[-1][1:] if w.startswith(("--check-prefix", "-check-prefix"))]
            runs.append((stages[tools.index("iree-run-mlir")], tools[0] if tools[0] != "iree-run-mlir" else None,
                         prefixes))
        elif tools and tools[0] != "rm" and " | ".join(tools) not in notes:
            notes.add(" | ".join(tools))
            runs.append((None, f"{' | '.join(tools)}: checks IREE's own IR or needs IREE's tools", []))
    return runs


def _rt_run_args(words, target):
    """``iree-run-mlir`` words -> ``rt run`` arguments: the device is ``target``'s (the file's
    own target flags are dropped); other ``--Xcompiler,FLAG`` compile flags pass through (rt run
    takes iree-run-mlir's form and names any it cannot honour)."""
    out = [f"--device={DEVICES[target]}"]
    for w in words[1:]:
        if w.startswith("--Xcompiler,"):
            flag = w.split(",", 1)[1]
            if not re.match(r"iree-hal-(target-device|local-target-device-backends|target-backends)=", flag):
                out.append(w)
        elif w.startswith(("--input=", "--function=")):
            out.append(w)
    return out


def run_lit(entry, target, timeout):
    """Results of one lit file on one device: one test per applicable RUN pipeline (deduplicated)."""
    results, seen = [], set()
    for words, note, prefixes in lit_runs(pathlib.Path(entry["path"])):
        res = {"file": entry["file"], "target": target, "lit": True}
        if words is None:
            results.append({**res, "test": "RUN", "ok": None, "note": note})
            continue
        args = _rt_run_args(words, target)
        key = (tuple(args), tuple(prefixes))
        if key in seen:
            continue
        seen.add(key)
        res["test"] = "run " + " ".join(a for a in args if not a.startswith("--device"))
        if note:
            res["note"] = f"{note} preprocessing skipped"
        merge = " 2>&1" if "2>&1" in words else ""    # the RUN line checks stderr too
        cmd = (f"{shlex.quote(sys.executable)} -m rt run {shlex.quote(entry['path'])} "
               f"{' '.join(map(shlex.quote, args))}{merge} | filecheck {shlex.quote(entry['path'])} "
               f"{' '.join(map(shlex.quote, prefixes))}")
        try:
            proc = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], capture_output=True, text=True,
                                  timeout=timeout)
            ok = proc.returncode == 0
            err = (proc.stderr.strip().splitlines() or ["filecheck failed"])[0] if not ok else None
            results.append({**res, "ok": ok, "kind": None if ok else "error", "error": err})
        except subprocess.TimeoutExpired:
            results.append({**res, "ok": False, "kind": "timeout", "error": f"timeout after {timeout:g} s"})
    return results


def sweep(entry, timeout):
    """Compile an out-of-scope file (or a lit file's source) once; return its outcome."""
    records, failure = _run_worker({"mode": "compile", "path": entry["path"], "target": "llvm-cpu"}, timeout)
    rec = records[0] if records else {"ok": False, "kind": "internal" if failure else "timeout",
                                      "error": failure, "located": False}
    return {"file": entry["file"], **{k: rec.get(k) for k in ("ok", "kind", "error", "located")}}


# ---------------------------------------------------------------------------------------------
# Report


def blocker_key(res):
    """The blocker a failed test counts against: its first error line without location."""
    text = res.get("error") or "?"
    text = re.sub(r"^(\w+Error: )?(\S+?:\d+:\d+: )?(error: )?", r"\1", text)
    if res.get("kind") == "check":
        return f"wrong result ({res['file']})"
    return text.split("; supported")[0][:160]


def summarize(files, results, sweeps, devices):
    """The report as a dict: per folder/device counts, blockers, exclusions, internal errors."""
    excluded = {f["file"]: f["excluded"] for f in files if f["excluded"]}
    table = collections.defaultdict(lambda: collections.Counter())
    blockers = {d: collections.Counter() for d in devices}
    examples = {}
    for res in results:
        if res.get("ok") is None:
            continue
        group = "excluded" if res["file"] in excluded else ("lit" if res.get("lit") else "counted")
        folder = res["file"].rsplit("/", 1)[0] if "/" in res["file"] else "."
        table[(group, folder, res["target"])]["total"] += 1
        table[(group, folder, res["target"])]["pass"] += bool(res["ok"])
        if not res["ok"] and group != "excluded":
            key = blocker_key(res)
            blockers[res["target"]][key] += 1
            examples.setdefault(key, f"{res['file']} @{res['test']}: {res.get('error')}")
    bad = [s for s in sweeps if s["kind"] == "internal" or (s["ok"] is False and not s["located"])]
    bad += [{"file": r["file"], "test": r["test"], "target": r["target"], "kind": r["kind"], "error": r["error"]}
            for r in results if r.get("kind") == "internal" or (r.get("stage") == "compile" and r.get("located") is False)]
    return {"table": {"|".join(k): dict(v) for k, v in table.items()}, "excluded": excluded,
            "blockers": {d: c.most_common() for d, c in blockers.items()}, "examples": examples,
            "internal_or_unlocated": bad}


def print_report(files, summary, devices, markdown, out=sys.stdout):
    """Print the per-folder table, the totals, the ranked blockers and the exclusions."""
    table = summary["table"]
    p = lambda *a: print(*a, file=out)  # noqa: E731
    p(f"\n{'group':9} {'folder':16} " + " ".join(f"{d:>12}" for d in devices))
    totals = collections.defaultdict(collections.Counter)
    for group in ("counted", "lit", "excluded"):
        folders = sorted({k.split("|")[1] for k in table if k.startswith(group + "|")})
        for folder in folders:
            cells = []
            for d in devices:
                c = table.get(f"{group}|{folder}|{d}", {})
                totals[(group, d)].update(c)
                cells.append(f"{c.get('pass', 0):>5}/{c.get('total', 0):<6}")
            p(f"{group:9} {folder:16} " + " ".join(f"{c:>12}" for c in cells))
    for group in ("counted", "lit", "excluded"):
        cells = []
        for d in devices:
            c = totals[(group, d)]
            pct = 100.0 * c["pass"] / c["total"] if c["total"] else 0.0
            cells.append(f"{d} {c['pass']}/{c['total']} ({pct:.1f}%)")
        p(f"TOTAL {group:9} " + "   ".join(cells))
    for d in devices:
        p(f"\nblockers on {d} (tests blocked, first error line):")
        for key, n in summary["blockers"][d]:
            p(f"  {n:4}  {key}")
    p("\nexcluded from the ratio:")
    for name, why in sorted(summary["excluded"].items()):
        p(f"  {name}: {why}")
    bad = summary["internal_or_unlocated"]
    p(f"\ninternal exceptions or unlocated errors: {len(bad)}")
    for b in bad:
        p(f"  {b['file']}{' @' + b['test'] + ' on ' + b['target'] if 'test' in b else ''}: {b['error']}")
    if markdown:
        p("\n" + markdown_tables(summary, devices))


def markdown_tables(summary, devices):
    """The per-folder table and blocker list as Markdown (for docs/CONFORMANCE.md)."""
    table = summary["table"]
    rows = ["| group | folder | " + " | ".join(devices) + " |", "|---|---|" + "---|" * len(devices)]
    for key in sorted({k.rsplit("|", 1)[0] for k in table}):
        cells = []
        for d in devices:
            c = table.get(f"{key}|{d}", {})
            cells.append(f"{c.get('pass', 0)}/{c.get('total', 0)}")
        rows.append(f"| {' | '.join(key.split('|'))} | " + " | ".join(cells) + " |")
    for d in devices:
        rows += ["", f"Blockers on {d}:", ""] + [f"* {n} — `{k}`" for k, n in summary["blockers"][d]]
    return "\n".join(rows)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("iree", nargs="?", help="root of an IREE checkout (holding tests/e2e)")
    ap.add_argument("--devices", default=f"llvm-cpu,vmvx,{PEER}",
                    help=f"rt devices ({', '.join(DEVICES)}) and {PEER} (IREE 3.13, the peer)")
    ap.add_argument("--jobs", type=int, default=1, help="files run at once (default 1)")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per file and device")
    ap.add_argument("--filter", default=None, help="only files whose path contains this")
    ap.add_argument("--json", default=None, help="write every result to this file")
    ap.add_argument("--markdown", action="store_true", help="also print Markdown tables")
    ap.add_argument("--no-out-of-scope", action="store_true", help="skip the compile sweep")
    ap.add_argument("--verbose", action="store_true", help="print every result as it arrives")
    ap.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        w = json.loads(args.worker)
        if w["mode"] == "check":
            worker_check(w["path"], w["target"], w["uri"], w["options"], w["functions"])
        elif w["mode"] == "peer":
            worker_peer(w["path"], w["backend"], w["flags"], w["functions"])
        else:
            worker_compile(w["path"], w["target"])
        return 0
    if not args.iree:
        ap.error("give the path of an IREE checkout")
    devices = [d for d in args.devices.split(",") if d]
    for d in devices:
        if d not in DEVICES and d != PEER:
            ap.error(f"--devices: {d!r} is not one of {', '.join([*DEVICES, PEER])}")
    files = discover(args.iree, args.filter)
    jobs = []
    for f in files:
        if f["in_scope"]:
            for d in devices:
                if f["kind"] == "check" or d != PEER:
                    jobs.append((run_lit if f["kind"] == "lit" else run_check, f, d))
        if (not f["in_scope"] or f["kind"] == "lit") and not args.no_out_of_scope:
            jobs.append((sweep, f, None))
    started = time.perf_counter()
    results, sweeps = [], []
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        futures = {pool.submit(fn, f, args.timeout) if d is None else pool.submit(fn, f, d, args.timeout):
                   (fn, f, d) for fn, f, d in jobs}
        for fut in concurrent.futures.as_completed(futures):
            fn, f, d = futures[fut]
            out = fut.result()
            if fn is sweep:
                sweeps.append(out)
            else:
                results.extend(out)
            if args.verbose:
                for r in out if isinstance(out, list) else [out]:
                    status = {True: "PASS", False: "FAIL", None: "n/a "}[r.get("ok")]
                    if fn is sweep:
                        status = "ok  " if r["ok"] or r["located"] else "BAD "
                    print(f"{status} {r['file']} {r.get('test', '(compile)')} {d or ''} "
                          f"{r.get('error') or r.get('note') or ''}", flush=True)
    in_scope = [f for f in files if f["in_scope"]]
    print(f"{len(files)} files, {len(in_scope)} in scope "
          f"({sum(f['kind'] == 'check' for f in in_scope)} check, {sum(f['kind'] == 'lit' for f in in_scope)} lit), "
          f"{sum(len(f['tests']) for f in in_scope)} check tests; {time.perf_counter() - started:.0f} s")
    summary = summarize(files, results, sweeps, devices)
    print_report(files, summary, devices, args.markdown)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"files": files, "results": results, "sweeps": sweeps, "summary": summary}, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
