"""bf16 and i8 matmuls on llvm-cpu beside f32: rt (dot-product kernels and fallbacks) and IREE 3.13.

Cases, N x N x N (``--size``, default 1024), data tiling on: ``f32`` (f32 x f32 -> f32),
``bf16`` (bf16 x bf16 -> f32: ``linalg.matmul`` with mixed types, as JAX's
``preferred_element_type=f32`` and torch's autocast emit it) and ``i8`` (i8 x i8 -> i32).
Sides, timed in interleaved rounds in one process (``iree_peer.compare``: per round the
median of several calls of each side; the median over rounds, ratios per round):

- ``rt host``: compiled for this host (VDPBF16PS / VPDPBUSD kernels where it has AVX512-BF16
  / AVX512-VNNI, ``compiler/codegen/llvm_cpu/mmt4d_dot.py``);
- ``rt v4``: compiled for x86-64-v4, whose objects choose the dot kernel or the widening
  loops at run time from the host's features (here: what the host has);
- ``rt v4 fb``: the same object loaded with the host's run-time feature bits cleared
  (``loader.host_cpu_data`` patched to 0 for this load): the fallback an AVX-512 host
  without AVX512-BF16 / VNNI runs;
- ``rt v3``: compiled for x86-64-v3 (AVX2 widening kernels);
- ``IREE``: iree-compile 3.13 for the host with ``--iree-opt-data-tiling``.

``--torch PYTHON`` adds ``torch.matmul`` on the same inputs, timed in a subprocess run by that
interpreter (not interleaved; torch is never an rt dependency). Every runtime uses
``--threads`` threads (default 1). Prints one markdown row per case: G(FL)OP/s per side and
rt host / IREE. All results are checked against numpy (exact: the inputs are small integers).

    python benchmarks/reduced_precision.py [--size 1024] [--rounds 5] [--threads 1] [--torch PY]
"""
import argparse
import json
import os
import subprocess
import sys

import ml_dtypes
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import rt  # noqa: E402
from rt.devices.llvm_cpu import loader  # noqa: E402
from iree_peer import compare, iree_module, load_iree, machine  # noqa: E402

CASES = {"f32": ("f32", "f32", "0.0"), "bf16": ("bf16", "f32", "0.0"), "i8": ("i8", "i32", "0")}

TORCH = """
import json, sys, statistics, time, torch
n, threads, reps = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
torch.set_num_threads(threads)
out = {}
for name, dtype in (("f32", torch.float32), ("bf16", torch.bfloat16), ("i8", torch.int8)):
    a = torch.randint(-8, 8, (n, n)).to(dtype)
    b = torch.randint(-8, 8, (n, n)).to(dtype)
    if name == "i8":
        fn = lambda: torch._int_mm(a, b) if hasattr(torch, "_int_mm") else None
    else:
        fn = lambda: torch.matmul(a, b)
    try:
        fn()
    except RuntimeError:
        continue
    ts = []
    for _ in range(reps):
        t = time.perf_counter(); fn(); ts.append(time.perf_counter() - t)
    out[name] = statistics.median(ts)
print(json.dumps(out))
"""


def source(n):
    """One function per case: @<case>(A [n, n], B [n, n]) -> A @ B."""
    funcs = []
    for name, (ety, oty, zero) in CASES.items():
        t_in, t_out = f"tensor<{n}x{n}x{ety}>", f"tensor<{n}x{n}x{oty}>"
        funcs.append(f"""
func.func @{name}(%a: {t_in}, %b: {t_in}) -> {t_out} {{
  %z = arith.constant {zero} : {oty}
  %e = tensor.empty() : {t_out}
  %i = linalg.fill ins(%z : {oty}) outs(%e : {t_out}) -> {t_out}
  %c = linalg.matmul ins(%a, %b : {t_in}, {t_in}) outs(%i : {t_out}) -> {t_out}
  return %c : {t_out}
}}""")
    return "\n".join(funcs)


def inputs(n):
    """{case: (A, B)}: integers in [-8, 8), exact in every type and every accumulation."""
    rng = np.random.default_rng(22)
    a, b = rng.integers(-8, 8, (n, n)), rng.integers(-8, 8, (n, n))
    types = {"f32": np.float32, "bf16": ml_dtypes.bfloat16, "i8": np.int8}
    return {name: (a.astype(types[name]), b.astype(types[name])) for name in CASES}


def torch_times(python, n, threads, reps=10):
    """{case: median seconds} of torch on ``python`` (cases torch cannot run are absent)."""
    proc = subprocess.run([python, "-c", TORCH, str(n), str(threads), str(reps)],
                          capture_output=True, text=True, check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1024)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--torch", default=None, help="a Python interpreter with torch")
    args = parser.parse_args()
    n, text = args.size, source(args.size)
    uri = f"local-task://llvm-cpu?threads={args.threads}"
    v4 = rt.compile(text, devices=["llvm-cpu:x86-64-v4"])
    sides = {"rt host": rt.load(rt.compile(text, devices=["llvm-cpu"]), devices=[uri]),
             "rt v4": rt.load(v4, devices=[uri])}
    real = loader.host_cpu_data
    loader.host_cpu_data = lambda: 0
    try:
        sides["rt v4 fb"] = rt.load(v4, devices=[uri])
        for case, operands in inputs(n).items():  # in case executables load on first use
            getattr(sides["rt v4 fb"], case)(*operands)
    finally:
        loader.host_cpu_data = real
    sides["rt v3"] = rt.load(rt.compile(text, devices=["llvm-cpu:x86-64-v3"]), devices=[uri])
    ic, ireert = load_iree()
    ireert.flags.parse_flags(f"--task_topology_group_count={args.threads}")
    vmfb = ic.compile_str(text, target_backends=["llvm-cpu"],
                          extra_args=["--iree-llvmcpu-target-cpu=host", "--iree-opt-data-tiling"])
    sides["IREE"], _keep = iree_module(ireert, vmfb)
    torch = torch_times(args.torch, n, args.threads) if args.torch else {}
    ops = 2.0 * n ** 3
    print(f"# {machine()}, load average {os.getloadavg()[0]:.1f}, {args.threads} thread(s)")
    names = list(sides) + (["torch"] if torch else [])
    print("| case | " + " | ".join(f"{s} G(FL)OP/s" for s in names) + " | rt host / IREE time |")
    print("|---|" + "---|" * (len(names) + 1))
    for case, (a, b) in inputs(n).items():
        want = a.astype(np.int64) @ b.astype(np.int64)
        fns = {}
        for side, module in sides.items():
            fn = getattr(module, case)
            got = np.asarray(fn(a, b)).astype(np.int64)
            if not np.array_equal(got, want):
                raise SystemExit(f"{side} {case}: result differs from numpy")
            fns[side] = (lambda f: lambda: f(a, b))(fn)
        t = compare(fns, rounds=args.rounds)
        rates = [f"{ops / t[s] / 1e9:.1f}" for s in sides]
        if torch:
            rates.append(f"{ops / torch[case] / 1e9:.1f}" if case in torch else "n/a")
        print(f"| {case} {n}^3 | " + " | ".join(rates) + f" | {t['rt host/IREE']:.2f} |")


if __name__ == "__main__":
    main()
