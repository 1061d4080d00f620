"""iree-hal-translate-executables: parallel code generation, its determinism, the codegen cache."""
import dataclasses
import multiprocessing
import os
import threading

import numpy as np
import pytest

import rt
from rt.compiler.codegen import lowering
from rt.compiler.helpers.hal import serialization_jobs
from rt.compiler.targets import get_backend
from rt.runtime.errors import CompileError, RtError

WIDTHS = [8, 16, 24, 32, 40, 48]


def distinct_layers():
    """Five matmul + tanh layers of different widths: five distinct dispatches, none shared."""
    args = [f"%x: tensor<4x{WIDTHS[0]}xf32>"] + [f"%w{i}: tensor<{WIDTHS[i]}x{WIDTHS[i + 1]}xf32>"
                                                  for i in range(len(WIDTHS) - 1)]
    lines = [f"func.func @f({', '.join(args)}) -> tensor<4x{WIDTHS[-1]}xf32> {{", "  %zero = arith.constant 0.0 : f32"]
    current = "%x"
    for i in range(len(WIDTHS) - 1):
        a, b = WIDTHS[i], WIDTHS[i + 1]
        t = f"tensor<4x{b}xf32>"
        lines += [f"  %e{i} = tensor.empty() : {t}",
                  f"  %z{i} = linalg.fill ins(%zero : f32) outs(%e{i} : {t}) -> {t}",
                  f"  %m{i} = linalg.matmul ins({current}, %w{i} : tensor<4x{a}xf32>, tensor<{a}x{b}xf32>) "
                  f"outs(%z{i} : {t}) -> {t}",
                  f"  %g{i} = math.tanh %m{i} : {t}"]
        current = f"%g{i}"
    return "\n".join(lines + [f"  return {current} : tensor<4x{WIDTHS[-1]}xf32>", "}"]) + "\n"


def _inputs():
    rng = np.random.default_rng(3)
    return [rng.standard_normal((4, WIDTHS[0])).astype(np.float32)] + [
        rng.standard_normal((WIDTHS[i], WIDTHS[i + 1])).astype(np.float32) / 4 for i in range(len(WIDTHS) - 1)]


def _numpy(x, *weights):
    for w in weights:
        x = np.tanh(x @ w)
    return x


@pytest.fixture
def forked(monkeypatch):
    """Workers are forked even if an earlier test left a device thread alive; returns the list
    of worker counts serialize_forked was called with."""
    calls = []
    real = serialization_jobs.serialize_forked

    def recording(jobs, workers):
        calls.append(workers)
        return real(jobs, workers)

    monkeypatch.setattr(serialization_jobs, "fork_is_safe", lambda: True)
    monkeypatch.setattr(serialization_jobs, "serialize_forked", recording)
    return calls


@pytest.mark.parametrize("target,uri", [("llvm-cpu", "local-sync://llvm-cpu"), ("vmvx", "local-sync://vmvx")])
def test_parallel_translation_gives_the_same_module(target, uri, forked):
    serial = rt.compile(distinct_layers(), devices=[target], data_tiling=False, jobs=1)
    assert forked == []
    parallel = rt.compile(distinct_layers(), devices=[target], data_tiling=False, jobs=3)
    assert forked == [3]
    assert parallel == serial
    args = _inputs()
    with rt.load(parallel, devices=[uri]) as module:
        np.testing.assert_allclose(module.f(*args), _numpy(*args), rtol=1e-5, atol=1e-5)


def test_worker_count_policy():
    cores = serialization_jobs.available_cores()
    assert serialization_jobs.worker_count(0, serialization_jobs.MIN_PARALLEL_JOBS - 1) == 1
    assert serialization_jobs.worker_count(0, 64) == min(cores, 64)
    assert serialization_jobs.worker_count(1, 64) == 1
    assert serialization_jobs.worker_count(3, 2) == 2 and serialization_jobs.worker_count(3, 1) == 1


def test_cache_dir_reuses_generated_executables(tmp_path, monkeypatch):
    first = rt.compile(distinct_layers(), devices=["llvm-cpu"], data_tiling=False, jobs=1, cache_dir=tmp_path)
    entries = sorted(p for p in tmp_path.rglob("*.bin"))
    assert len(entries) == len(WIDTHS) - 1  # one entry per executable
    backend = get_backend("llvm-cpu")
    calls = []
    real = type(backend).serialize

    def counting(self, *args):
        calls.append(args[0])
        return real(self, *args)

    monkeypatch.setattr(type(backend), "serialize", counting)
    assert rt.compile(distinct_layers(), devices=["llvm-cpu"], data_tiling=False, jobs=1, cache_dir=tmp_path) == first
    assert calls == []
    entries[0].write_bytes(entries[0].read_bytes()[:-1])  # truncated: a miss, generated again
    assert rt.compile(distinct_layers(), devices=["llvm-cpu"], data_tiling=False, jobs=1, cache_dir=tmp_path) == first
    assert len(calls) == 1


def test_code_generator_errors_are_located_at_the_variant(monkeypatch):
    def failing(self, name, kernels, config):
        raise RtError("boom")

    monkeypatch.setattr(type(get_backend("vmvx")), "serialize", failing)
    with pytest.raises(CompileError, match=r"<input>:\d+:\d+: error: serializing @f_dispatch_0 for vmvx: boom"):
        rt.compile(distinct_layers(), devices=["vmvx"], data_tiling=False, jobs=1)


def _read_only_outputs(monkeypatch, dispatch):
    """Make lowering mark every binding of ``dispatch``'s kernel read-only, which the vmvx code
    generator rejects (in whichever process runs it)."""
    real = lowering.lower_dispatch_function

    def lower(func, backend, config):
        kernel = real(func, backend, config)
        if f"_dispatch_{dispatch}_" in kernel.name:
            kernel = dataclasses.replace(kernel, binding_access=("ro",) * kernel.binding_count)
        return kernel

    monkeypatch.setattr(lowering, "lower_dispatch_function", lower)


@pytest.mark.parametrize("jobs", [1, 2])
def test_code_generator_errors_in_workers_come_back_located(monkeypatch, forked, jobs):
    _read_only_outputs(monkeypatch, 2)
    with pytest.raises(CompileError) as info:
        rt.compile(distinct_layers(), devices=["vmvx"], data_tiling=False, jobs=jobs)
    message = str(info.value)
    assert message.startswith("<input>:13:9: error: serializing @f_dispatch_2 for vmvx: vmvx codegen:")
    assert "writes binding 2, which the kernel declares read-only" in message
    assert "%m2 = linalg.matmul" in message  # the source line of the variant's first op
    assert forked == ([2] if jobs == 2 else [])


def test_other_threads_make_translation_run_in_process(monkeypatch):
    serial = rt.compile(distinct_layers(), devices=["llvm-cpu"], data_tiling=False, jobs=1)
    monkeypatch.setattr(serialization_jobs, "serialize_forked", None)  # never reached
    release = threading.Event()
    waiter = threading.Thread(target=release.wait)
    waiter.start()
    try:
        assert rt.compile(distinct_layers(), devices=["llvm-cpu"], data_tiling=False, jobs=2) == serial
    finally:
        release.set()
        waiter.join()


def test_a_dying_worker_is_an_error_not_a_hang(monkeypatch):
    parent = os.getpid()

    real = serialization_jobs.serialize

    def die_in_worker(job):
        if os.getpid() != parent:
            os._exit(9)
        return real(job)

    monkeypatch.setattr(serialization_jobs, "serialize", die_in_worker)
    jobs = [serialization_jobs.Job("vmvx", f"e{i}", (), {}) for i in range(4)]
    with pytest.raises(RtError, match=r"a code generator process died while generating @e\d for vmvx"):
        serialization_jobs.serialize_forked(jobs, 2)


def test_worker_count_on_small_machines(monkeypatch):
    monkeypatch.setattr(serialization_jobs, "available_cores", lambda: 2)
    assert serialization_jobs.worker_count(0, 160) == 2
    monkeypatch.setattr(serialization_jobs, "available_cores", lambda: 1)
    assert serialization_jobs.worker_count(0, 160) == 1


def test_jobs_go_to_the_workers_as_they_are_made():
    """A job is handed to the workers as soon as the caller's generator yields it, so lowering
    the next variant overlaps code generation: the workers exist before the second job does."""
    alive = []

    def jobs():
        for i in range(4):
            if i:
                alive.append(len(multiprocessing.active_children()))
            yield serialization_jobs.Job("vmvx", f"e{i}", (), {})

    forked = serialization_jobs.serialize_forked(jobs(), 2)
    assert alive == [2, 2, 2]
    assert forked == serialization_jobs.serialize_all(list(jobs()), 1)
    assert [f'"name":"e{i}"'.encode() in data for i, (_, data, _) in enumerate(forked)] == [True] * 4


def test_an_error_while_making_jobs_kills_the_workers():
    def jobs():
        yield serialization_jobs.Job("vmvx", "e0", (), {})
        yield serialization_jobs.Job("vmvx", "e1", (), {})
        raise CompileError("lowering failed")

    with pytest.raises(CompileError, match="lowering failed"):
        serialization_jobs.serialize_forked(jobs(), 2)
    assert multiprocessing.active_children() == []


def test_variants_are_lowered_while_the_workers_generate_code(monkeypatch, forked):
    """The pass hands each variant to the workers once it is lowered: they are alive while the
    later variants are lowered, and the module is the one an in-process compile makes."""
    serial = rt.compile(distinct_layers(), devices=["llvm-cpu"], data_tiling=False, jobs=1)
    real = lowering.lower_dispatch_function
    alive = []

    def lower(func, backend, config):
        alive.append(len(multiprocessing.active_children()))
        return real(func, backend, config)

    monkeypatch.setattr(lowering, "lower_dispatch_function", lower)
    assert rt.compile(distinct_layers(), devices=["llvm-cpu"], data_tiling=False, jobs=2) == serial
    assert forked == [2]
    assert alive == [0] + [2] * (len(WIDTHS) - 2)
