"""Side by side: ``python -m rt run|benchmark`` against iree-run-module / iree-benchmark-module
3.13 on the flag cases of issue 24, compared byte for byte.

The same MLIR (an elementwise add of two ``4xf32``) is compiled by each side for vmvx; every
case runs on both, and the row says ``same`` when stdout and every output file are identical
(benchmark cases: when the table has the same layout, rows, names and iteration counts, the
times being the machine's). IREE comes from benchmarks/iree_peer.py (installed once into a
throwaway folder, never a dependency of rt). Exit status 1 when any case differs.
Usage: ``python benchmarks/iree_cli_parity.py [--json OUT]``.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
from iree_peer import iree_dir, load_iree

ADD = """func.func @add(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""
COMMON = ["--device=local-task", "--function=add"]
#: (name, flags, output files to compare)
RUN_CASES = [
    ("print", ["--input=4xf32=1,2,3,4", "--input=4xf32=0.5"], []),
    ("@a.npy twice", ["--input=@a.npy", "--input=@a.npy"], []),
    ("@a.npy then +a.npy", ["--input=@a.npy", "--input=+a.npy"], []),
    ("raw @x.bin then +x.bin", ["--input=4xf32=@x.bin", "--input=4xf32=+x.bin"], []),
    ("--output=@y.bin", ["--input=@a.npy", "--input=+a.npy", "--output=@y.bin"], ["y.bin"]),
    ("--output=@y.txt", ["--input=@a.npy", "--input=+a.npy", "--output=@y.txt"], ["y.txt"]),
    ("--output=@y.npy", ["--input=@a.npy", "--input=+a.npy", "--output=@y.npy"], ["y.npy"]),
    ("--output= (drop)", ["--input=@a.npy", "--input=+a.npy", "--output="], []),
    ("--output_max_element_count=2", ["--input=@a.npy", "--input=@a.npy", "--output_max_element_count=2"], []),
]
BENCH_CASES = [
    ("repetitions 3, min_time 5x", ["--input=@a.npy", "--input=@a.npy", "--benchmark_repetitions=3",
                                    "--benchmark_min_time=5x"]),
    ("csv", ["--input=@a.npy", "--input=@a.npy", "--benchmark_repetitions=2", "--benchmark_min_time=2x",
             "--benchmark_format=csv"]),
    ("json", ["--input=@a.npy", "--input=@a.npy", "--benchmark_min_time=2x", "--benchmark_format=json"]),
]


def _shape_of_report(text, fmt):
    """A benchmark report without its measured numbers (names, layout, iteration counts)."""
    if fmt == "json":
        report = json.loads(text)
        return [(b["name"], b["run_type"], b["iterations"], b.get("aggregate_name"), b["time_unit"],
                 sorted(b)) for b in report["benchmarks"]]
    if fmt == "csv":
        return [(r.split(",")[0], r.split(",")[1], r.split(",")[4]) for r in text.splitlines()]
    return [re.sub(r" *[\d.]+(?= (ms|%))", " T", re.sub(r"=[\d.]+[kMG]?(/s|%)", r"=N\1", line))
            for line in text.splitlines()]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", default=None, help="also write the rows as JSON")
    args = parser.parse_args()
    ic, _ = load_iree()
    tools = os.path.join(iree_dir(), "iree", "_runtime_libs")
    rows = []
    with tempfile.TemporaryDirectory() as work:
        with open(os.path.join(work, "add.mlir"), "w") as f:
            f.write(ADD)
        with open(os.path.join(work, "add_iree.vmfb"), "wb") as f:
            f.write(ic.compile_str(ADD, target_backends=["vmvx"]))
        subprocess.run([sys.executable, "-m", "rt", "compile", "add.mlir", "--device=vmvx", "-o", "add_rt.vmfb"],
                       cwd=work, check=True)
        with open(os.path.join(work, "a.npy"), "wb") as f:
            np.save(f, np.float32([1, 2, 3, 4]))
            np.save(f, np.float32([10, 20, 30, 40]))
        np.arange(1, 9, dtype=np.float32).tofile(os.path.join(work, "x.bin"))

        def side(command, module, flags, files):
            out = subprocess.run(command + [f"--module={module}"] + COMMON + flags, cwd=work, capture_output=True,
                                 text=True, timeout=300)
            data = [open(os.path.join(work, name), "rb").read() for name in files]
            for name in files:
                os.unlink(os.path.join(work, name))
            return out.returncode, out.stdout, data

        for name, flags, files in RUN_CASES:
            iree = side([os.path.join(tools, "iree-run-module")], "add_iree.vmfb", flags, files)
            rt = side([sys.executable, "-m", "rt", "run"], "add_rt.vmfb", flags, files)
            rows.append({"case": f"run {name}", "result": "same" if iree == rt else "differs",
                         "iree": repr(iree)[:200], "rt": repr(rt)[:200]})
        for name, flags in BENCH_CASES:
            fmt = next((f.split("=")[1] for f in flags if f.startswith("--benchmark_format=")), "console")
            iree = side([os.path.join(tools, "iree-benchmark-module")], "add_iree.vmfb", flags, [])
            rt = side([sys.executable, "-m", "rt", "benchmark"], "add_rt.vmfb", flags, [])
            same = iree[0] == rt[0] and _shape_of_report(iree[1], fmt) == _shape_of_report(rt[1], fmt)
            rows.append({"case": f"benchmark {name}", "result": "same layout" if same else "differs",
                         "iree": iree[1][:400], "rt": rt[1][:400]})
    width = max(len(r["case"]) for r in rows)
    for r in rows:
        print(f"{r['case']:<{width}}  {r['result']}")
        if r["result"] == "differs":
            print(f"    iree: {r['iree']}\n    rt:   {r['rt']}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=2)
    return 1 if any(r["result"] == "differs" for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
