"""JAX models through rt with no IREE: StableHLO from JAX, compiled by rt, checked against JAX.

Usage::

    python benchmarks/jax_models.py [--venv DIR] [--devices=llvm-cpu,vmvx] [--only=mlp,gpt]
        [--iree]   # also time iree-compile (IREE 3.13 installed into the same throwaway venv)
        [--symbolic]   # jax.export with a symbolic batch: one module checked at two sizes

The script makes a throwaway virtual environment (default ``/tmp/rt-jax-venv``) with JAX 0.10.2
(never an rt dependency), runs ``benchmarks/jax_models_export.py`` there to write each model's
StableHLO (``jax.jit(f).lower(*args).as_text()``), inputs and JAX's CPU results, then, in this
process, compiles each model with ``rt.compile`` for every device, runs it and prints the
largest absolute difference from JAX and rt's compile time. With ``--iree`` it also times
``iree-compile --iree-hal-target-backends=llvm-cpu`` on the same StableHLO text (IREE 3.13 in the
throwaway environment) and prints rt / IREE. Exits 1 when a model fails or differs by more
than ``--atol`` (default 1e-4). With ``--symbolic`` the models are exported with
``jax.export`` and a symbolic leading dim (``jax_models_export.SYMBOLIC``), and each compiled
module is checked at two sizes of that dim.
"""
import argparse
import os
import pathlib
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
JAX_PINS = ["jax==0.10.2", "jaxlib==0.10.2"]
IREE_PINS = ["iree-base-compiler==3.13.0"]
DEVICES = {"llvm-cpu": "local-task://llvm-cpu", "vmvx": "local-sync://vmvx"}


def _venv(path, iree):
    python = os.path.join(path, "bin", "python")
    if not os.path.exists(python):
        subprocess.run([sys.executable, "-m", "venv", path], check=True)
    pins = JAX_PINS + (IREE_PINS if iree else [])
    subprocess.run([python, "-m", "pip", "install", "-q", *pins], check=True)
    return python


def _iree_compile_seconds(venv_python, mlir_path):
    tool = os.path.join(os.path.dirname(venv_python), "iree-compile")
    out = tempfile.NamedTemporaryFile(suffix=".vmfb", delete=False).name
    started = time.perf_counter()
    subprocess.run([tool, str(mlir_path), "--iree-hal-target-backends=llvm-cpu",
                    "--iree-llvmcpu-target-cpu=host", "-o", out], check=True, capture_output=True)
    elapsed = time.perf_counter() - started
    os.unlink(out)
    return elapsed


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--venv", default=os.path.join(tempfile.gettempdir(), "rt-jax-venv"))
    ap.add_argument("--devices", default="llvm-cpu,vmvx")
    ap.add_argument("--only", default="")
    ap.add_argument("--atol", type=float, default=1e-4)
    ap.add_argument("--iree", action="store_true", help="also time iree-compile on the same StableHLO")
    ap.add_argument("--symbolic", action="store_true", help="export with a symbolic batch; check two sizes")
    args = ap.parse_args(argv)

    import rt

    python = _venv(args.venv, args.iree)
    out = pathlib.Path(tempfile.mkdtemp(prefix="rt-jax-models-"))
    subprocess.run([python, str(HERE / "jax_models_export.py"), str(out)] + (["--symbolic"] if args.symbolic else []),
                   check=True)
    names = [p.stem for p in sorted(out.glob("*.mlir"))]
    if args.only:
        names = [n for n in names if n in args.only.split(",")]
    failed = False
    for name in names:
        text = (out / f"{name}.mlir").read_text()
        cases = [(np.load(out / f"{name}.inputs{k}.npz"), np.load(out / f"{name}.expected{k}.npz"))
                 for k in ("", "2") if (out / f"{name}.inputs{k}.npz").exists()]
        row = [f"{name:12s}"]
        for device in args.devices.split(","):
            started = time.perf_counter()
            try:
                vmfb = rt.compile(text, devices=[device])
                seconds = time.perf_counter() - started
                module = rt.load(vmfb, devices=[DEVICES[device]])
                err = 0.0
                for inputs, expected in cases:
                    results = module.main(*[inputs[f"arr_{i}"] for i in range(len(inputs.files))])
                    results = results if isinstance(results, (tuple, list)) else (results,)
                    err = max([err] + [float(np.max(np.abs(np.asarray(r) - expected[f"arr_{i}"])))
                                       for i, r in enumerate(results)])
            except rt.RtError as e:
                row.append(f"{device}: FAILED {str(e).splitlines()[0][:160]}")
                failed = True
                continue
            failed |= err > args.atol
            row.append(f"{device}: max |rt - jax| {err:.1e}, compile {seconds:.2f} s")
            if args.iree and device == "llvm-cpu":
                iree = _iree_compile_seconds(python, out / f"{name}.mlir")
                row.append(f"iree-compile {iree:.2f} s (rt/iree {seconds / iree:.2f})")
        print("  ".join(row), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
