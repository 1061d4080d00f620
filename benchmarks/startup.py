"""Start time of ``rt run`` beside a bare ``python -c "import numpy"``, and object load time.

Usage: python benchmarks/startup.py [--repeats 15] [--json out.json]

Rows:
- start: wall time of a whole process (min of ``repeats``, the commands interleaved so machine
  load hits them alike) for ``python -c "import numpy"`` and ``python -m rt run`` of a
  4-element f32 add compiled for llvm-cpu and for vmvx, and each run's ratio to the numpy
  import (issue 24 item 6 asks for <= 1.6). ``PYTHONDONTWRITEBYTECODE`` is removed from the
  children's environment and one warm-up run of each comes first, so imports read cached
  bytecode as an installed rt does. A ``python -c "import numpy, llvmlite.binding"`` row shows
  what importing LLVM (which ``rt run`` of an llvm-cpu module did before rt mapped objects
  itself) adds to a start. Where IREE 3.13's wheels are installed (``iree_peer.iree_dir()``),
  an ``iree-run-module`` row runs the same add compiled by ``iree-compile`` (a C program: the
  floor a Python runtime is measured against).
- imports: for each ``rt run``, the sum of ``-X importtime`` self times (min per module over
  ``repeats`` runs) of the modules it imports beyond those of ``python -c "import numpy"``, and
  the part of it in rt's own modules (``rt.*``): less noisy than whole-process times on a shared
  machine, though ``-X importtime`` itself inflates each import.
- load: milliseconds to map every llvm-cpu executable of examples/mlp.mlir (min of
  ``repeats``), with rt's loader (``image.Image``, what ``LOADER.load`` runs after its checks)
  and with llvmlite's MCJIT (``add_object_file`` + ``finalize_object``, the loader rt used
  before), both after the same validation.
- install (``--install``): wall seconds of the README's ``pip install -e ".[test]"`` in a fresh
  clone and a fresh virtual environment (wheels come from the package index or pip's cache; the
  Cython extensions are built in parallel), the way CI installs rt.
"""
import argparse
import json
import os
import pathlib
import platform
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
from iree_peer import iree_dir, load_iree  # noqa: E402
ADD = """func.func @add(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""


def _compile(src, out, device):
    subprocess.run([sys.executable, "-m", "rt", "compile", str(src), "-o", str(out),
                    f"--device={device}"], check=True)


def _wall(cmd, env):
    t0 = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


def measure_start(repeats, tmp):
    """{name: min seconds} for the numpy import and rt run on llvm-cpu and vmvx."""
    src = tmp / "add.mlir"
    src.write_text(ADD)
    commands = {"python -c 'import numpy'": [sys.executable, "-c", "import numpy"],
                "... 'import numpy, llvmlite.binding'": [sys.executable, "-c",
                                                         "import numpy, llvmlite.binding"]}
    for device in ("llvm-cpu", "vmvx"):
        vmfb = tmp / f"add_{device}.vmfb"
        _compile(src, vmfb, device)
        commands[f"rt run ({device})"] = [sys.executable, "-m", "rt", "run", str(vmfb),
                                          "--function=add", "--input=4xf32=1,2,3,4",
                                          "--input=4xf32=1,1,1,1"]
    commands.update(_iree_command(src, tmp))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    best = {name: float("inf") for name in commands}
    for warm in (True,) + (False,) * repeats:
        for name, cmd in commands.items():
            seconds = _wall(cmd, env)
            if not warm:
                best[name] = min(best[name], seconds)
    return best, commands


def _import_self_us(cmd, env, repeats):
    """{module: min self microseconds} from ``python -X importtime`` runs of ``cmd``."""
    best = {}
    for _ in range(repeats):
        err = subprocess.run([cmd[0], "-X", "importtime", *cmd[1:]], env=env, check=True,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True).stderr
        for line in err.splitlines():
            fields = line.partition(":")[2].split("|")
            if line.startswith("import time:") and len(fields) == 3 and fields[0].strip().isdigit():
                name = fields[2].strip()
                best[name] = min(best.get(name, 1 << 62), int(fields[0]))
    return best


def measure_imports(commands, repeats):
    """{rt run name: (ms of imports beyond numpy's, ms of them in rt.* modules)}."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    numpy = _import_self_us(commands["python -c 'import numpy'"], env, repeats)
    sums = {}
    for name, cmd in commands.items():
        if name.startswith("rt run"):
            extra = {m: us for m, us in _import_self_us(cmd, env, repeats).items() if m not in numpy}
            sums[name] = (sum(extra.values()) / 1e3,
                          sum(us for m, us in extra.items() if m == "rt" or m.startswith("rt.")) / 1e3)
    return sums


def _iree_command(src, tmp):
    """{"iree-run-module": argv} for the add compiled by iree-compile 3.13, or {} if absent."""
    tool = pathlib.Path(iree_dir()) / "iree" / "_runtime_libs" / "iree-run-module"
    if not tool.exists():
        return {}
    vmfb = tmp / "add_iree.vmfb"
    compiler, _ = load_iree()
    compiler.compile_file(str(src), output_file=str(vmfb), target_backends=["llvm-cpu"],
                          extra_args=["--iree-llvmcpu-target-cpu=host"])
    return {"iree-run-module (llvm-cpu)": [str(tool), f"--module={vmfb}",
                                           "--device=local-task", "--function=add",
                                           "--input=4xf32=1,2,3,4", "--input=4xf32=1,1,1,1"]}


def measure_install(tmp):
    """Wall seconds of ``pip install -e ".[test]"`` in a fresh clone and virtual environment."""
    clone, venv = tmp / "clone", tmp / "venv"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    t0 = time.perf_counter()
    subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "-e", ".[test]"], cwd=clone,
                   check=True)
    seconds = time.perf_counter() - t0
    shutil.rmtree(clone)
    return seconds


def _mcjit_map(data):
    import llvmlite.binding as llvm
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    machine = llvm.Target.from_default_triple().create_target_machine(reloc="pic",
                                                                      codemodel="small")
    module = llvm.parse_assembly("")
    module.triple = llvm.get_process_triple()
    engine = llvm.create_mcjit_compiler(module, machine)
    engine.add_object_file(llvm.ObjectFileRef.from_data(data))
    engine.finalize_object()
    return engine


def measure_load(repeats, tmp):
    """(executable count, {loader: min ms to map them all}) for examples/mlp.mlir."""
    from rt.devices.llvm_cpu.elf import read_elf_object
    from rt.devices.llvm_cpu.image import Image
    from rt.devices.llvm_cpu.loader import _resolve_imports
    from rt.runtime.vm.module import Module

    vmfb = tmp / "mlp.vmfb"
    _compile(ROOT / "examples" / "mlp.mlir", vmfb, "llvm-cpu")
    objects = [bytes(e.data) for e in Module.from_bytes(vmfb.read_bytes()).executables
               if e.format.startswith("llvm-cpu-object")]
    elves = [read_elf_object(d) for d in objects]
    imports = [_resolve_imports(e.undefined_symbols) for e in elves]
    mappers = {"rt (image.Image)": lambda i: Image(elves[i], objects[i], imports[i]),
               "llvmlite MCJIT": lambda i: _mcjit_map(objects[i])}
    best = {}
    for name, mapper in mappers.items():
        mapper(0)
        times = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            kept = [mapper(i) for i in range(len(objects))]
            times.append(time.perf_counter() - t0)
            del kept
        best[name] = 1e3 * min(times)
    return len(objects), best


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--json")
    parser.add_argument("--install", action="store_true",
                        help="also time the README's install in a fresh clone and venv")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        start, commands = measure_start(args.repeats, tmp)
        imports = measure_imports(commands, args.repeats)
        count, load = measure_load(args.repeats, tmp)
        install = measure_install(tmp) if args.install else None
    base = start["python -c 'import numpy'"]
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"python {platform.python_version()}")
    print(f"start time, min of {args.repeats} interleaved runs:")
    for name, seconds in start.items():
        print(f"  {name:36s} {1e3 * seconds:7.1f} ms  {seconds / base:5.2f}x numpy import")
    print(f"imports beyond numpy's (-X importtime self times, min of {args.repeats}):")
    for name, (total, own) in imports.items():
        print(f"  {name:36s} {total:7.1f} ms, of which rt.* {own:5.1f} ms")
    print(f"mapping the {count} llvm-cpu executables of examples/mlp.mlir, min of {args.repeats}:")
    for name, ms in load.items():
        print(f"  {name:36s} {ms:7.2f} ms")
    if install is not None:
        print(f"install (pip install -e \".[test]\", fresh clone and venv): {install:.1f} s")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"start_s": start, "imports_ms": imports, "executables": count, "load_ms": load,
                       "install_s": install}, f, indent=1)


if __name__ == "__main__":
    main()
