"""Run the code generators of a module's executables, in parallel processes when it pays.

``serialize_all(jobs, workers)`` takes one :class:`Job` per executable variant (backend name,
executable name, Kernel IR list, target config) and returns their ``(format, data, metadata)``
in job order, so the module that comes out is byte-identical whatever the worker count.

Why processes: llvmlite serializes every LLVM call behind one lock and builds LLVM IR in Python,
so threads do not overlap (measured: 48 executables, 2 threads no faster than 1); forked
workers do. A pool is used when there are at least ``MIN_PARALLEL_JOBS`` jobs (fewer with an
explicit worker count) and more than one worker: workers are forked from a single-threaded
process (copy-on-write: nothing to import or pickle but the Kernel IR, a few KB per
executable) and come from a fork server otherwise (forking a process whose other threads may
hold locks is unsafe). Each worker returns plain values; a code generator's CompileError or
RtError comes back as a :class:`JobError` for the caller to raise at the variant.
"""
import dataclasses
import multiprocessing
import os
import threading

from rt.compiler.passes import instrumentation
from rt.runtime.errors import CompileError, RtError

#: with an automatic worker count, fewer jobs than this are serialized in-process (a pool
#: costs tens of milliseconds, about one small executable)
MIN_PARALLEL_JOBS = 4


@dataclasses.dataclass(frozen=True)
class Job:
    """One executable variant to serialize: ``kernels`` (kernel_ir.Kernel list, export order)."""

    backend: str
    name: str
    kernels: tuple
    config: dict


@dataclasses.dataclass(frozen=True)
class JobError:
    """A code generator's error, as plain values: ``kind`` "compile" (a CompileError, with
    ``where`` = (file, line, col, source line)) or "rt" (another RtError)."""

    kind: str
    message: str
    where: tuple = ()


def available_cores():
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def worker_count(jobs_option, count):
    """How many processes serialize ``count`` jobs: ``jobs_option`` 0 = one per available core
    (in-process below MIN_PARALLEL_JOBS jobs), 1 = in-process, N = at most N."""
    if count < 2 or jobs_option == 1:
        return 1
    if jobs_option == 0:
        return min(available_cores(), count) if count >= MIN_PARALLEL_JOBS else 1
    return min(jobs_option, count)


def serialize(job):
    """Run ``job``'s code generator in this process: ``(format, data, metadata)``."""
    from rt.compiler.targets import get_backend

    return get_backend(job.backend).serialize(job.name, list(job.kernels), job.config)


def _serialize_job(job):
    """serialize(job), with a code generator's CompileError/RtError returned as a JobError."""
    try:
        return serialize(job)
    except CompileError as exc:
        return JobError("compile", exc.message, (exc.file, exc.line, exc.col, exc.source_line))
    except RtError as exc:
        return JobError("rt", str(exc))


def serialize_all(jobs, workers):
    """``(format, data, metadata)`` or a JobError for each of ``jobs``, in order."""
    results = []
    if workers <= 1:
        for done, job in enumerate(jobs, start=1):
            results.append(_serialize_job(job))
            instrumentation.progress(done, len(jobs))
        return results
    method = "fork" if threading.active_count() == 1 else "forkserver"
    context = multiprocessing.get_context(method)
    if method == "forkserver":
        context.set_forkserver_preload([__name__])
    with context.Pool(workers) as pool:
        for done, result in enumerate(pool.imap(_serialize_job, jobs, chunksize=1), start=1):
            results.append(result)
            instrumentation.progress(done, len(jobs))
    return results
