"""Run the code generators of a module's executables, in parallel processes when it pays.

``serialize_all(jobs, workers)`` takes one :class:`Job` per executable variant (backend name,
executable name, Kernel IR list, target config) and returns their ``(format, data, metadata)``
in job order, so the module that comes out is byte-identical whatever the worker count.
``jobs`` may be a generator: with workers, each job is handed to them as soon as it is made,
so the caller's work on the next job (lowering it to Kernel IR) overlaps their code
generation instead of leaving a core idle until every job exists.

Why processes: llvmlite serializes every LLVM call behind one lock and builds LLVM IR in Python,
so threads do not overlap (measured: 48 executables, 2 threads no faster than 1); forked
workers do. A pool is used when there are at least ``MIN_PARALLEL_JOBS`` jobs (fewer with an
explicit worker count), more than one worker, and the process has no other Python thread:
workers are forked (copy-on-write: nothing to import or pickle but the Kernel IR, a few KB per
executable). With other threads alive the jobs run in-process instead, since forking a process
whose other threads may hold locks is unsafe, and the spawn/forkserver start methods re-run the
caller's ``__main__`` module in every worker (a script without a ``__main__`` guard would
compile again, recursively). Each worker returns plain values; a code generator's CompileError
or RtError comes back as a :class:`JobError` for the caller to raise at the variant; a worker
that dies (killed, out of memory) is an RtError naming the executable it was generating.

Workers never outlive the compiling process: each asks Linux for SIGKILL when its parent dies
(``prctl(PR_SET_PDEATHSIG)``, which covers a SIGKILL of the parent too) and ignores SIGINT
(the parent handles Ctrl-C); while the pool runs, the parent's SIGTERM and SIGHUP handlers
kill the workers and then let the signal take its previous course, and any exception
(KeyboardInterrupt included) kills them before it propagates, so a caller reading the compile's
stderr to EOF never waits on an orphan.
"""
import ctypes
import ctypes.util
import dataclasses
import multiprocessing
import os
import signal
import threading
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

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
    """``(format, data, metadata)`` or a JobError for each of ``jobs`` (an iterable), in order.

    Raises RtError when a worker process dies (killed, out of memory) instead of hanging; an
    exception raised while iterating ``jobs`` propagates after the workers are killed.
    """
    if workers > 1 and fork_is_safe():
        return serialize_forked(jobs, workers)
    jobs = list(jobs)
    results = []
    for done, job in enumerate(jobs, start=1):
        results.append(_serialize_job(job))
        instrumentation.progress(done, len(jobs))
    return results


def fork_is_safe():
    """True when this process may fork workers: the platform has fork and no other Python
    thread is alive (a device queue thread of a loaded module, a caller's thread pool)."""
    return threading.active_count() == 1 and "fork" in multiprocessing.get_all_start_methods()


#: prctl option: the signal this process gets when the thread that forked it exits (linux/prctl.h)
PR_SET_PDEATHSIG = 1
#: signals whose arrival at the compiling process kills the workers first
_PARENT_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


def _worker_init(parent):
    """In each forked worker: die with the parent (PR_SET_PDEATHSIG, SIGKILL), leave Ctrl-C to
    it, and drop the signal handlers the fork copied from it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for number in _PARENT_SIGNALS:
        signal.signal(number, signal.SIG_DFL)
    libc_name = ctypes.util.find_library("c")
    if libc_name and hasattr(signal, "SIGKILL"):
        libc = ctypes.CDLL(libc_name, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(1)


def _kill(pool):
    """Kill every worker of ``pool`` and reap it."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    for process in processes:
        if process.is_alive():
            process.kill()
    for process in processes:
        process.join(5)


class _KillWorkersOnSignal:
    """While active, SIGTERM / SIGHUP kill the pool's workers, then take their previous course
    (re-raised on this process with the previous handler restored)."""

    def __init__(self, pool):
        self.pool, self.previous = pool, {}

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            for number in _PARENT_SIGNALS:
                self.previous[number] = signal.signal(number, self._handle)
        return self

    def _handle(self, number, frame):
        _kill(self.pool)
        self.__exit__()
        os.kill(os.getpid(), number)

    def __exit__(self, *exc):
        for number, handler in self.previous.items():
            signal.signal(number, handler if handler is not None else signal.SIG_DFL)
        self.previous = {}


def serialize_forked(jobs, workers):
    """serialize_all(jobs) in ``workers`` forked processes; only when fork_is_safe().

    Each job is submitted as soon as ``jobs`` yields it (the first submit forks the workers),
    so making the next job overlaps the workers' code generation.
    """
    submitted, futures, results = [], [], []
    context = multiprocessing.get_context("fork")
    pool = ProcessPoolExecutor(workers, mp_context=context, initializer=_worker_init, initargs=(os.getpid(),))
    try:
        with _KillWorkersOnSignal(pool):
            for job in jobs:
                submitted.append(job)
                futures.append(pool.submit(_serialize_job, job))
            for done, future in enumerate(futures, start=1):
                results.append(future.result())
                instrumentation.progress(done, len(futures))
    except BrokenProcessPool:
        pool.shutdown(wait=True)
        job = submitted[len(results)]
        raise RtError(f"a code generator process died while generating @{job.name} for {job.backend} "
                      "(killed or out of memory?); compile with --jobs=1 to generate in-process") from None
    except BaseException:
        _kill(pool)  # the pool then fails the pending futures itself (none is cancelled under it)
        pool.shutdown(wait=True)
        raise
    pool.shutdown(wait=True)
    return results
