"""What copying ``.irpa`` files at load costs (issue 25, item 1).

rt reads a parameter archive into private memory when it is indexed
(``rt.runtime.io.file_snapshot.read_snapshot``) instead of mapping it, so the file can change
or vanish under a loaded module. This measures, for one archive of ``--mb`` MiB (one f32
parameter, the file in the page cache as right after it was written):

* ``read_irpa``: rt's reader (copy + validation), median of ``--repeats`` runs in ms;
* ``mmap only``: what the mapped reader cost before (map the file, no page touched);
* ``mmap + touch``: mapping plus reading every page once, the work a mapped module did later,
  on its first calls, instead;
* ``rt.load``: loading a module whose constant global is that parameter (llvm-cpu), and its
  first call (an elementwise add that reads every byte of the parameter).

    python benchmarks/parameter_load.py [--mb 100] [--repeats 5] [--json out.json]
"""
import argparse
import json
import mmap
import os
import platform
import statistics
import tempfile
import time

import numpy as np

import rt
from rt.runtime.io.irpa import read_irpa, write_irpa


def _median_ms(fn, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def _map_only(path):
    with open(path, "rb") as f:
        mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_COPY)
    mapped.close()


def _map_and_touch(path):
    with open(path, "rb") as f:
        mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_COPY)
    int(np.frombuffer(mapped, np.uint8)[::mmap.PAGESIZE].sum())
    mapped.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json")
    args = parser.parse_args()
    count = args.mb * 2**20 // 4
    weights = np.arange(count, dtype=np.float32)
    source = (f'util.global private @w = #flow.parameter.named<"model"::"w"> : tensor<{count}xf32>\n'
              f"func.func @add(%x: tensor<{count}xf32>) -> tensor<{count}xf32> {{\n"
              f"  %w = util.global.load @w : tensor<{count}xf32>\n"
              f"  %r = arith.addf %x, %w : tensor<{count}xf32>\n"
              f"  return %r : tensor<{count}xf32>\n}}\n")
    vmfb = rt.compile(source, devices=["llvm-cpu"])
    x = np.zeros(count, np.float32)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "w.irpa")
        size = write_irpa(path, {"w": weights})
        figures = {"file_mb": size / 2**20,
                   "read_irpa_ms": _median_ms(lambda: read_irpa(path), args.repeats),
                   "mmap_only_ms": _median_ms(lambda: _map_only(path), args.repeats),
                   "mmap_touch_ms": _median_ms(lambda: _map_and_touch(path), args.repeats)}
        loads, calls = [], []
        for _ in range(args.repeats):
            start = time.perf_counter()
            module = rt.load(vmfb, devices=["local-task://llvm-cpu"], parameters={"model": path})
            loads.append((time.perf_counter() - start) * 1e3)
            start = time.perf_counter()
            result = module.add(x)
            calls.append((time.perf_counter() - start) * 1e3)
            assert result[-1] == weights[-1]
            module.close()
        figures.update(rt_load_ms=statistics.median(loads), first_call_ms=statistics.median(calls))
    figures["machine"] = f"{platform.node()} {os.cpu_count()} cpus"
    for key, value in figures.items():
        print(f"{key:>16}: {value:.1f}" if isinstance(value, float) else f"{key:>16}: {value}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=1)


if __name__ == "__main__":
    main()
