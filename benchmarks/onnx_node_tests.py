"""ONNX's backend node tests through IREE's ONNX importer, then rt (llvm-cpu, vmvx) beside IREE.

The ``onnx`` wheel ships the generators of its node tests (``onnx/backend/test/case/node/``),
not their data: ``collect_testcases()`` builds each test's model, inputs and reference outputs
in memory. A seeded sample of them is written to ``--work`` (model.onnx, io.npz), each is
imported as a new user would (``iree-import-onnx``, then ``iree-compile --compile-to=input``
for rt's input) and run on rt's llvm-cpu and vmvx devices and on IREE 3.13's llvm-cpu, every
test in its own subprocess (``--jobs`` at a time, ``--timeout`` each). Outputs are compared with
ONNX's references (rtol 1e-3, atol 1e-5, NaN equal to NaN, shapes equal).

Printed: how many tests IREE's importer accepts (the denominator), the pass rate per device,
whether rt's two devices agree (same outcome and, where both run, the same values), the count
of internal errors (an exception outside rt's RtError hierarchy), and rt's failures grouped by
cause (the first line of the error with names and numbers blanked), most common first.

The packages (onnx 1.23.2, IREE 3.13) are installed on first use into throwaway directories
outside the project's environment (``iree_peer.load_iree``, ``iree_importer_inputs.package_dir``).

Usage::

    python benchmarks/onnx_node_tests.py --sample=400 --seed=0 --jobs=2 [--work=DIR] [--markdown]
                                         [--json=FILE] [--max-seconds=S] [--timeout=S]
    python benchmarks/onnx_node_tests.py --filter=gather --verbose
"""
import argparse
import collections
import concurrent.futures
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from iree_importer_inputs import package_dir  # noqa: E402
from iree_peer import iree_dir, load_iree, machine  # noqa: E402

RT_DEVICES = {"llvm-cpu": "local-sync://llvm-cpu", "vmvx": "local-sync://vmvx"}
RTOL, ATOL = 1e-3, 1e-5


def _onnx_path():
    path = package_dir("onnx")
    if path not in sys.path:
        sys.path.append(path)  # after this environment: rt's numpy stays the one imported
    return path


# -- generation (parent process) ----------------------------------------------------------------
def generate(work, sample, seed, name_filter):
    """Write the sampled node tests to ``work/<name>/``; returns their names (sorted)."""
    _onnx_path()
    import ml_dtypes
    import numpy as np
    import onnx
    from onnx import numpy_helper
    from onnx.backend.test.case.node import collect_testcases

    cases = [c for c in collect_testcases() if not name_filter or re.search(name_filter, c.name)]
    cases.sort(key=lambda c: c.name)
    if sample and sample < len(cases):
        cases = sorted(random.Random(seed).sample(cases, sample), key=lambda c: c.name)
    for case in cases:
        folder = os.path.join(work, case.name)
        os.makedirs(folder, exist_ok=True)
        onnx.save(case.model, os.path.join(folder, "model.onnx"))
        inputs, outputs = ([numpy_helper.to_array(v) if isinstance(v, onnx.TensorProto) else v for v in vs]
                           for vs in case.data_sets[0])
        # a numpy scalar (Pad's constant value, QuantizeLinear's zero point) is a 0-d tensor
        inputs, outputs = ([np.asarray(v) if isinstance(v, np.generic) else v for v in vs] for vs in (inputs, outputs))
        # onnx keeps bf16 data as 2-byte void arrays: the same bits as ml_dtypes' bfloat16
        inputs, outputs = ([v.view(ml_dtypes.bfloat16) if isinstance(v, np.ndarray) and v.dtype.kind == "V"
                            and v.dtype.itemsize == 2 else v for v in vs] for vs in (inputs, outputs))
        arrays = {}
        if all(isinstance(v, np.ndarray) and v.dtype.kind not in "OUSV" for v in (*inputs, *outputs)):
            arrays = {**{f"in{i}": v for i, v in enumerate(inputs)},
                      **{f"out{i}": v for i, v in enumerate(outputs)}}
        np.savez(os.path.join(folder, "io.npz"), **arrays)
    return [c.name for c in cases]


# -- one test (worker subprocess) -------------------------------------------------------------------
def _first_line(error):
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0] if text else ''}"[:400]


def _tool(args, cwd):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([iree_dir(), _onnx_path()]))
    proc = subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=cwd, env=env)
    if proc.returncode != 0:
        lines = [ln for ln in proc.stderr.splitlines() if "error" in ln.lower()] or proc.stderr.splitlines()
        return (lines[0] if lines else f"exit status {proc.returncode}")[:400]
    return None


def _matches(got, want):
    import numpy as np
    got = got if isinstance(got, (list, tuple)) else (got,)
    if len(got) != len(want):
        return f"{len(got)} results, expected {len(want)}"
    for k, (g, w) in enumerate(zip(got, want)):
        g = np.asarray(g)
        if g.dtype.kind in "iu" and w.dtype.kind in "iu" and g.dtype.itemsize == w.dtype.itemsize:
            g = g.view(w.dtype)  # MLIR's integers are signless: ui8 data comes back as i8 bits
        if g.shape != w.shape:
            return f"result {k} has shape {g.shape}, expected {w.shape}"
        if w.dtype.kind in "biu" or w.dtype == bool:
            if not np.array_equal(g, w):
                return f"result {k} differs"
        elif not np.allclose(g.astype(np.float64), w.astype(np.float64), rtol=RTOL, atol=ATOL, equal_nan=True):
            return f"result {k} differs"
    return None


def run_one(folder):
    """Import, compile and run the test in ``folder``; returns a result dict (see main)."""
    import numpy as np

    name = os.path.basename(folder)
    out = {"name": name}
    io = np.load(os.path.join(folder, "io.npz"))
    if not io.files:
        out["import"] = "not numeric tensor inputs/outputs (sequences, optionals, strings)"
        return out
    inputs = [io[f"in{i}"] for i in range(sum(k.startswith("in") for k in io.files))]
    want = [io[f"out{i}"] for i in range(sum(k.startswith("out") for k in io.files))]
    error = _tool(["-m", "iree.compiler.tools.import_onnx", "model.onnx", "-o", "model.torch.mlir"], folder)
    error = error or _tool([os.path.join(iree_dir(), "bin", "iree-compile"), "model.torch.mlir",
                            "--compile-to=input", "-o", "model.input.mlir"], folder)
    out["import"] = error or "ok"
    if error:
        return out
    import rt
    for device, uri in RT_DEVICES.items():
        try:
            module = rt.load(rt.compile(os.path.join(folder, "model.input.mlir"), devices=[device]), devices=[uri])
            got = module[name](*inputs)
            got = tuple(np.asarray(g) for g in (got if isinstance(got, (list, tuple)) else (got,)))
            np.savez(os.path.join(folder, f"rt-{device}.npz"), *got)
            out[device] = _matches(got, want) or "pass"
        except rt.RtError as e:
            out[device] = _first_line(e)
        except Exception as e:  # noqa: BLE001 -- an internal error is what this counts
            out[device] = "INTERNAL " + _first_line(e)
    try:
        ic, ireert = load_iree()
        vmfb = ic.compile_file(os.path.join(folder, "model.input.mlir"), target_backends=["llvm-cpu"],
                               extra_args=["--iree-llvmcpu-target-cpu=host"])
        config = ireert.Config("local-sync")
        ctx = ireert.SystemContext(config=config)
        ctx.add_vm_module(ireert.VmModule.copy_buffer(ctx.instance, vmfb))
        got = getattr(ctx.modules.module, name)(*inputs)
        got = tuple(np.asarray(g.to_host() if hasattr(g, "to_host") else g)
                    for g in (got if isinstance(got, (list, tuple)) else (got,)))
        out["iree"] = _matches(got, want) or "pass"
    except Exception as e:  # noqa: BLE001 -- IREE's failures are recorded, not raised
        out["iree"] = _first_line(e)
    return out


def _agree(folder, result):
    """True when rt's two devices give the same outcome (and values, where both ran)."""
    a, b = result.get("llvm-cpu"), result.get("vmvx")
    if (a == "pass") != (b == "pass"):
        return False
    paths = [os.path.join(folder, f"rt-{d}.npz") for d in RT_DEVICES]
    if not all(os.path.exists(p) for p in paths):
        return a == b or (a != "pass" and b != "pass")
    import numpy as np
    x, y = ([z[k] for k in sorted(z.files, key=lambda k: int(k.split("_")[1]))] for z in map(np.load, paths))
    return len(x) == len(y) and all(
        np.shape(u) == np.shape(v) and np.allclose(np.asarray(u, np.float64), np.asarray(v, np.float64),
                                                   rtol=RTOL, atol=ATOL, equal_nan=True) for u, v in zip(x, y))


# -- the run (parent process) -----------------------------------------------------------------------
def _cause(text):
    text = re.sub(r"^INTERNAL ", "", text)
    text = re.sub(r"\S+\.mlir:\d+:\d+: (error: )?", "", text)
    text = re.sub(r"%[\w#.]+|@[\w$.]+|\d+", "#", text)
    return text[:160]


def _worker(folder, timeout, deadline):
    if time.time() > deadline:
        return {"name": os.path.basename(folder), "import": "not run (--max-seconds)"}
    cmd = [sys.executable, os.path.abspath(__file__), "--one", folder]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"name": os.path.basename(folder), "import": "ok", "llvm-cpu": "INTERNAL timeout",
                "vmvx": "INTERNAL timeout", "iree": "timeout"}
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return {"name": os.path.basename(folder), "import": "ok", "llvm-cpu": f"INTERNAL crash: {tail}",
                "vmvx": f"INTERNAL crash: {tail}", "iree": "not run"}
    return json.loads(lines[-1])


#: Errors of runs made before generate() converted bf16 and excluded strings: the test's data,
#: not rt, was at fault; such results count as not imported.
_HARNESS_ERRORS = ("x|V", "Object arrays cannot be loaded", "not a valid dtype descriptor",
                   "setting an array element with a sequence")


def report(results, work, markdown):
    for r in results:
        if any(h in str(r.get(d, "")) for d in ("llvm-cpu", "vmvx") for h in _HARNESS_ERRORS):
            r["import"] = "not numeric tensor inputs/outputs (strings, 8-bit floats)"
    accepted = [r for r in results if r.get("import") == "ok"]
    n = len(accepted)
    ran = [r for r in results if not r.get("import", "").startswith("not run")]
    rows = [("tests sampled", len(results), ""), ("tests run (within --max-seconds)", len(ran), ""),
            ("imported by iree-import-onnx + --compile-to=input", n, "")]
    for side in ("iree", "llvm-cpu", "vmvx"):
        passed = sum(r.get(side) == "pass" for r in accepted)
        rows.append((f"{'IREE 3.13' if side == 'iree' else 'rt'} {side if side != 'iree' else 'llvm-cpu'} passes",
                     passed, f"{100 * passed / max(n, 1):.1f}%"))
    agree = sum(_agree(os.path.join(work, r["name"]), r) for r in accepted)
    internal = [r["name"] for r in accepted for d in RT_DEVICES if str(r.get(d, "")).startswith("INTERNAL")]
    rt_not_iree = sum(r.get("iree") == "pass" and r.get(d) != "pass" for r in accepted for d in RT_DEVICES)
    rows += [("rt llvm-cpu and vmvx agree", agree, f"{100 * agree / max(n, 1):.1f}%"),
             ("rt internal errors (test x device)", len(internal), ", ".join(sorted(set(internal)))[:200]),
             ("rt fails where IREE passes (test x device)", rt_not_iree, "")]
    causes = collections.defaultdict(set)
    for r in accepted:
        for d in RT_DEVICES:
            if r.get(d) != "pass":
                causes[_cause(str(r.get(d)))].add(r["name"])
    if markdown:
        print("| | count | |\n|---|---|---|")
        for label, count, note in rows:
            print(f"| {label} | {count} | {note} |")
        print("\n| rt failure cause (either device) | tests | examples |\n|---|---|---|")
        for cause, names in sorted(causes.items(), key=lambda kv: -len(kv[1])):
            print(f"| `{cause.replace('|', '/')}` | {len(names)} | {', '.join(sorted(names)[:3])} |")
        return
    for label, count, note in rows:
        print(f"{label:<48}{count:>6}  {note}")
    print("\nrt failures by cause (tests, either device):")
    for cause, names in sorted(causes.items(), key=lambda kv: -len(kv[1])):
        print(f"{len(names):>5}  {cause}\n       e.g. {', '.join(sorted(names)[:4])}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sample", type=int, default=400, help="tests to sample (0: all)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--filter", default="", help="regex on test names, before sampling")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=int, default=600, help="seconds per test")
    parser.add_argument("--max-seconds", type=float, default=float("inf"),
                        help="start no test after this many seconds (the rest are reported as not run)")
    parser.add_argument("--work", default=None, help="folder for the generated tests (default: a temp dir)")
    parser.add_argument("--json", default=None, help="write every test's result here")
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--verbose", action="store_true", help="print each test's result as it ends")
    parser.add_argument("--report", default=None, help="print the report of a --json file of an earlier run")
    parser.add_argument("--one", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        _onnx_path()
        print(json.dumps(run_one(args.one)), flush=True)
        return
    if args.report:
        with open(args.report) as f:
            report(json.load(f), args.work or "", args.markdown)
        return
    work = args.work or tempfile.mkdtemp(prefix="rt-onnx-node-tests-")
    load_iree()
    start = time.time()
    names = generate(work, args.sample, args.seed, args.filter)
    print(f"# {len(names)} node tests (onnx 1.23.2, seed {args.seed}) in {work}; {machine()}", flush=True)
    random.Random(args.seed).shuffle(names)  # run in random order: a --max-seconds cut stays a sample
    results = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        deadline = time.time() + args.max_seconds
        for result in pool.map(lambda n: _worker(os.path.join(work, n), args.timeout, deadline), names):
            results.append(result)
            if args.verbose:
                print(json.dumps(result), flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    print(f"# {time.time() - start:.0f} s", flush=True)
    report(results, work, args.markdown)
    if args.work is None:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
