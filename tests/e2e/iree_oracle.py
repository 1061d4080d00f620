"""Validate the e2e programs with IREE itself (an oracle, never a dependency of rt).

Run it with a Python that has IREE installed in a throwaway venv::

    python -m venv /tmp/ireevenv
    /tmp/ireevenv/bin/pip install iree-base-compiler==3.13.0 iree-base-runtime==3.13.0 numpy
    /tmp/ireevenv/bin/python tests/e2e/iree_oracle.py                  # programs/: all must pass
    /tmp/ireevenv/bin/python tests/e2e/iree_oracle.py --backends=llvm-cpu,vmvx

It compiles each program with ``iree-compile --iree-hal-target-backends=<backend>`` and calls
every public no-argument function, like ``iree-check-module`` (which the pip packages do not
ship). The ``check`` module is provided here in Python through ``iree.runtime.PyModuleInterface``
with IREE's import names and calling conventions (``check.expect_true`` ``0i_v``,
``expect_eq`` ``0rrr_v``, ``expect_almost_eq`` ``0rrrff_v``, ...), following IREE's
``runtime/src/iree/modules/check/module.cc``: byte equality for ``expect_eq``,
``|lhs - rhs| <= atol + rtol * |rhs|`` for ``expect_almost_eq``. ``failing/`` must fail every
function; ``negative/`` must fail to compile (the first ``file:line:col: error`` is printed).
Exit status 0 when everything behaved as required.
"""
import argparse
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

import iree.runtime as ireert
import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
PUBLIC_NO_ARG = re.compile(r"^func\.func\s+@([\w$.]+)\(\s*\)", re.M)
ERROR_LINE = re.compile(r"^(\S+?:\d+:\d+): error: (.*)$", re.M)


class CheckFailure(Exception):
    """A check op of the program failed."""


def _element_dtypes():
    table = {}
    for name, dtype in [("FLOAT_16", np.float16), ("FLOAT_32", np.float32), ("FLOAT_64", np.float64),
                        ("BOOL_8", np.uint8), ("INT_8", np.int8), ("SINT_8", np.int8), ("UINT_8", np.uint8),
                        ("INT_16", np.int16), ("SINT_16", np.int16), ("INT_32", np.int32),
                        ("SINT_32", np.int32), ("UINT_32", np.uint32), ("INT_64", np.int64),
                        ("SINT_64", np.int64), ("UINT_64", np.uint64)]:
        if hasattr(ireert.HalElementType, name):
            table[int(getattr(ireert.HalElementType, name))] = np.dtype(dtype)
    return table


DTYPES = _element_dtypes()


def _array(ref):
    view = ref.deref(ireert.HalBufferView)
    return np.array(view.map().asarray(view.shape, DTYPES[int(view.element_type)]))


class Check:
    """IREE's ``check`` module in Python."""

    def __init__(self, iface):
        self.iface = iface

    def expect_true(self, value):
        if value == 0:
            raise CheckFailure("expect_true: got 0")

    def expect_false(self, value):
        if value != 0:
            raise CheckFailure(f"expect_false: got {value}")

    def expect_all_true(self, device, view):
        a = _array(view)
        if not np.all(a != 0):
            raise CheckFailure(f"expect_all_true: got {a}")

    def expect_eq(self, device, lhs, rhs):
        a, b = _array(lhs), _array(rhs)
        if a.shape != b.shape or a.dtype != b.dtype or a.tobytes() != b.tobytes():
            raise CheckFailure(f"expect_eq:\n  got  {a}\n  want {b}")

    def expect_almost_eq(self, device, lhs, rhs, atol, rtol):
        a, b = _array(lhs), _array(rhs)
        af, bf = a.astype(np.float64), b.astype(np.float64)
        if a.shape != b.shape or not np.all(np.abs(af - bf) <= atol + rtol * np.abs(bf)):
            raise CheckFailure(f"expect_almost_eq (atol {atol:g}, rtol {rtol:g}):\n  got  {a}\n  want {b}")


def _check_module():
    iface = ireert.PyModuleInterface("check", Check)
    for name, cconv in [("expect_true", "0i_v"), ("expect_false", "0i_v"), ("expect_all_true", "0rr_v"),
                        ("expect_eq", "0rrr_v"), ("expect_almost_eq", "0rrrff_v")]:
        iface.export(name, cconv, getattr(Check, name))
    return iface.create()


def compile_program(compiler, path, backend, out):
    """Run iree-compile; returns (ok, stderr)."""
    cmd = [compiler, f"--iree-hal-target-backends={backend}", str(path), "-o", out]
    if backend == "llvm-cpu":
        cmd.insert(1, "--iree-llvmcpu-target-cpu=host")
    proc = subprocess.run(cmd, capture_output=True, text=True)
    return proc.returncode == 0, proc.stderr


def run_functions(vmfb_path, names):
    """Call each function; returns {name: None on success or the failure text}."""
    instance = ireert.VmInstance()
    hal = ireert.create_hal_module(instance, ireert.get_device("local-task"))
    user = ireert.VmModule.copy_buffer(instance, pathlib.Path(vmfb_path).read_bytes())
    context = ireert.VmContext(instance, modules=[hal, _check_module(), user])
    outcome = {}
    for name in names:
        try:
            context.invoke(user.lookup_function(name), ireert.VmVariantList(0), ireert.VmVariantList(0))
            outcome[name] = None
        except Exception as exc:  # an IREE status wrapping our CheckFailure, or a runtime error
            outcome[name] = str(exc)
    return outcome


def validate(compiler, paths, backends, expect_failure, workdir):
    bad = 0
    for path in paths:
        names = PUBLIC_NO_ARG.findall(path.read_text())
        for backend in backends:
            out = os.path.join(workdir, f"{path.stem}.{backend}.vmfb")
            ok, stderr = compile_program(compiler, path, backend, out)
            if not ok:
                first = ERROR_LINE.search(stderr)
                print(f"COMPILE-FAIL {path.name} [{backend}]: {first.group(0) if first else stderr[-400:]}")
                bad += 1
                continue
            outcome = run_functions(out, names)
            for name, failure in outcome.items():
                failed_check = failure is not None and "CheckFailure" in failure
                if expect_failure != failed_check:
                    bad += 1
                    print(f"UNEXPECTED {path.name} @{name} [{backend}]: {failure or 'passed'}")
            print(f"{'FAIL-AS-REQUIRED' if expect_failure else 'PASS'} {path.name} [{backend}] {len(names)} functions")
    return bad


def validate_negative(compiler, paths, workdir):
    bad = 0
    for path in paths:
        ok, stderr = compile_program(compiler, path, "llvm-cpu", os.path.join(workdir, "negative.vmfb"))
        first = ERROR_LINE.search(stderr)
        if ok or first is None:
            bad += 1
            print(f"UNEXPECTED {path.name}: compiled without a located error")
        else:
            print(f"REJECTED {os.path.basename(first.group(1))}: {first.group(2)[:160]}")
    return bad


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backends", default="llvm-cpu,vmvx")
    parser.add_argument("--iree-compile", default=shutil.which("iree-compile")
                        or os.path.join(os.path.dirname(sys.executable), "iree-compile"))
    parser.add_argument("programs", nargs="*", type=pathlib.Path)
    args = parser.parse_args(argv)
    backends = args.backends.split(",")
    with tempfile.TemporaryDirectory() as workdir:
        if args.programs:
            return 1 if validate(args.iree_compile, args.programs, backends, False, workdir) else 0
        bad = validate(args.iree_compile, sorted((HERE / "programs").glob("*.mlir")), backends, False, workdir)
        bad += validate(args.iree_compile, [HERE / "failing" / "check_failures.mlir"], backends, True, workdir)
        bad += validate_negative(args.iree_compile, sorted((HERE / "negative").glob("*.mlir")), workdir)
    print(f"{bad} unexpected outcome(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
