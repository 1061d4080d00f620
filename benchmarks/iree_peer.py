"""The peer for side-by-side benchmarks: IREE 3.13 (``iree.compiler`` + ``iree.runtime``) in
the same process as rt, plus the interleaved-rounds timing every comparison uses.

IREE is never a dependency of rt. ``load_iree()`` installs the pinned wheels once into a
throwaway directory outside the project's environment (``$RT_IREE_DIR``, default
``~/.cache/rt-iree-3.13.0``; ``pip install --target``, no dependencies but ``ml_dtypes``) and
appends it to ``sys.path`` *after* the current environment, so rt, numpy and everything else
come from the environment the script runs in.

Timing interleaves the sides: each side runs the same inputs; every round
takes the median of N calls of rt, then of IREE (then of any extra peers), and the ratio is taken
per round and its median reported, so machine noise hits both sides alike.

Usage from a benchmark script::

    from iree_peer import load_iree, Side, compare
    ic, ireert = load_iree()
    rows = compare({"rt": rt_fn, "iree": iree_fn}, rounds=5)   # {"rt": s, "iree": s, "rt/iree": x}
"""
import os
import statistics
import subprocess
import sys
import time

IREE_VERSION = "3.13.0"
_WHEELS = [f"iree-base-compiler=={IREE_VERSION}", f"iree-base-runtime=={IREE_VERSION}", "ml_dtypes==0.6.0"]


def iree_dir():
    """The directory holding the IREE wheels (created on first use)."""
    return os.environ.get("RT_IREE_DIR", os.path.expanduser(f"~/.cache/rt-iree-{IREE_VERSION}"))


def load_iree():
    """Import IREE 3.13, installing it into ``iree_dir()`` first if needed.

    Returns ``(iree.compiler, iree.runtime)``. Raises ``RuntimeError`` naming the pip command
    if the wheels cannot be installed (no registry access).
    """
    path = iree_dir()
    if not os.path.isdir(os.path.join(path, "iree", "runtime")):
        cmd = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", path, *_WHEELS]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"installing the IREE peer failed: {' '.join(cmd)}\n{proc.stderr[-2000:]}")
    if path not in sys.path:
        sys.path.append(path)
    import iree.compiler as ic
    import iree.runtime as ireert

    return ic, ireert


def iree_module(ireert, vmfb, driver="local-task"):
    """Load an IREE ``.vmfb`` (bytes) on ``driver``; returns its ``module`` namespace, whose
    functions take and return numpy arrays. Keep the returned object alive while calling."""
    ctx = ireert.SystemContext(config=ireert.Config(driver))
    ctx.add_vm_module(ireert.VmModule.copy_buffer(ctx.instance, vmfb))
    return ctx.modules.module, ctx



def iree_check_module(ireert, vmfb, driver="local-task"):
    """Load an IREE ``.vmfb`` compiled from a ``check`` program, as ``iree-check-module`` runs it.

    The Python wheels do not ship IREE's native ``check`` module, so this registers one with the
    same imports and semantics (``runtime/src/iree/modules/check/module.cc``): ``expect_eq``
    compares element type, shape and bytes; ``expect_almost_eq`` is numpy's ``isclose`` with the
    op's ``atol``/``rtol`` against the right-hand (expected) side, NaN equal to NaN. A failed
    expectation raises from the call. Returns ``(module namespace, context)``.
    """
    import numpy as np

    config = ireert.Config(driver)

    def host(ref):
        return ireert.DeviceArray(config.device, ref.deref(ireert.HalBufferView)).to_host()

    def raw(ref):  # element type, shape and bytes: also for types numpy lacks (i4, f8...)
        bv = ref.deref(ireert.HalBufferView)
        data = bv.map().asarray([bv.byte_length], np.dtype(np.uint8)).tobytes()
        return int(bv.element_type), tuple(bv.shape), data

    class Check:
        def __init__(self, iface):
            pass

        def expect_true(self, value):
            if not value:
                raise AssertionError("check.expect_true failed")

        def expect_false(self, value):
            if value:
                raise AssertionError("check.expect_false failed")

        def expect_all_true(self, device, ref):
            if not np.all(host(ref)):
                raise AssertionError("check.expect_all_true failed")

        def expect_eq(self, device, lhs, rhs):
            a, b = raw(lhs), raw(rhs)
            if a != b:
                raise AssertionError(f"check.expect_eq failed: {a!r} != {b!r}"[:400])

        def expect_almost_eq(self, device, lhs, rhs, atol, rtol):
            a, b = host(lhs), host(rhs)
            if a.shape != b.shape or not np.allclose(a.astype(np.float64), b.astype(np.float64),
                                                     atol=atol, rtol=rtol, equal_nan=True):
                raise AssertionError(f"check.expect_almost_eq failed: {a!r} !~ {b!r}"[:400])

    iface = ireert.PyModuleInterface("check", Check)
    for name, cconv in (("expect_true", "0i_v"), ("expect_false", "0i_v"), ("expect_all_true", "0rr_v"),
                        ("expect_eq", "0rrr_v"), ("expect_almost_eq", "0rrrff_v")):
        iface.export(name, cconv, getattr(Check, name))
    ctx = ireert.SystemContext(config=config)
    ctx.add_vm_module(iface.create())
    ctx.add_vm_module(ireert.VmModule.copy_buffer(ctx.instance, vmfb))
    return ctx.modules.module, ctx


def median_time(fn, n, clock=time.perf_counter):
    """Median time in seconds of ``n`` calls of ``fn`` (after one warm-up call), read on
    ``clock``: wall time by default; ``time.thread_time`` gives the CPU time of the calling
    thread, which on local-sync drivers (everything inline) is the work of the call itself,
    unaffected by other processes competing for the cores."""
    fn()
    ts = []
    for _ in range(n):
        t = clock()
        fn()
        ts.append(clock() - t)
    return statistics.median(ts)


def calls_per_round(fn, budget_s=0.3, lo=5, hi=20000):
    """How many calls of ``fn`` fit in ``budget_s`` seconds, clamped to [lo, hi]."""
    one = median_time(fn, 3)
    return int(min(hi, max(lo, budget_s / max(one, 1e-7))))


def compare(sides, rounds=5, n=None, budget_s=0.3, clock=time.perf_counter):
    """Time several implementations of one case in interleaved rounds.

    ``sides`` maps a name to a zero-argument callable; the first is the subject (rt). Returns
    ``{name: median seconds per call}`` plus ``{"<first>/<other>": median per-round ratio}``
    for every other side. ``clock``: see ``median_time``.
    """
    names = list(sides)
    if n is None:
        n = calls_per_round(sides[names[0]], budget_s)
    per = {k: [] for k in names}
    for _ in range(rounds):
        for k in names:
            per[k].append(median_time(sides[k], n, clock))
    out = {k: statistics.median(v) for k, v in per.items()}
    first = names[0]
    for k in names[1:]:
        out[f"{first}/{k}"] = statistics.median(a / b for a, b in zip(per[first], per[k]))
    return out


def machine():
    """A one-line description of this machine for BENCHMARKS.md rows."""
    model = "unknown cpu"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{os.cpu_count()} cpus, {model}, {time.strftime('%Y-%m-%d')}"
