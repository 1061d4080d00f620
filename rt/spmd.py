"""Running one call on every SPMD rank at once: a thread per rank, first error raised.

Shared by ``rt.multi_device.SpmdModule`` (several ranks) and ``LoadedFunction.spmd`` (one rank).
A failing rank aborts the world (rt.runtime.hal.drivers.local_channel) so the others' collectives
stop waiting; the error of the lowest failing rank is raised, noting the others.

A module's ranks keep their threads (``RankThreads``) from load to ``close()``: starting and
joining a thread per rank per call cost ~85 µs a rank on the 2-core development host, more than
a small call's own work, and its scatter was the noisiest part of a call's time.
"""
import os
import threading
import weakref

from rt.runtime.errors import InvalidArgumentError, RtError


def in_threads(fn, count):
    if count == 1:
        fn(0)
        return
    threads = [threading.Thread(target=fn, args=(r,), name=f"rt rank {r}") for r in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


class RankThreads:
    """The threads of ``count`` ranks, kept between calls: ``run(fn)`` calls ``fn(0)`` on the
    calling thread and ``fn(r)`` for r >= 1 on persistent thread ``rt rank r``, and returns
    when every rank has (what ``in_threads`` does with fresh threads, without starting any).
    A call made while another is running (from another thread, or from inside a rank) gets
    fresh threads instead of waiting. With ``cpus`` (a list of CPU numbers), thread r runs
    on ``cpu_of(r)`` (the caller, rank 0, is left alone). The threads end at ``close()`` or
    when the object is collected; they are daemons, so an unclosed module does not hold the interpreter at exit.
    An exception ``fn`` lets out is raised by ``run`` after every rank has finished (the
    lowest rank's)."""

    def __init__(self, count, cpus=None):
        self.count, self.cpus = count, cpus
        self._busy = threading.Lock()
        self._slots = None

    def cpu_of(self, rank):
        """The CPU rank ``rank``'s threads are bound to (``cpus``: rank r on
        ``cpus[r % len(cpus)]``), or None when the ranks are not bound."""
        return None if not self.cpus else self.cpus[rank % len(self.cpus)]

    def run(self, fn):
        if self.count == 1:
            fn(0)
            return
        if not self._busy.acquire(blocking=False):
            in_threads(fn, self.count)
            return
        slots = self._slots
        if slots is None:
            slots = self._slots = _Slots(self.count, [self.cpu_of(r) for r in range(self.count)])
            weakref.finalize(self, slots.stop)
        slots.fn = fn
        for go in slots.go[1:]:
            go.release()
        try:
            try:
                fn(0)
            except BaseException as error:
                slots.errors[0] = error
            for done in slots.done[1:]:
                done.acquire()
        except BaseException:
            # Interrupted while the ranks run: they finish on their own; the pool is busy
            # (later calls get fresh threads) until they have.
            threading.Thread(target=slots.wait_then_release, args=(self._busy,), daemon=True,
                             name="rt ranks finishing").start()
            raise
        errors = slots.reset()
        self._busy.release()
        for error in errors:
            if error is not None:
                raise error

    def close(self):
        """End the threads (waits for a running call's ranks)."""
        if self._slots is not None:
            with self._busy:
                self._slots.stop()
                self._slots = None


class _Slots:
    """What a RankThreads' threads share: per rank a go and a done lock (plain locks, handed
    between threads), the function of the current call and each rank's escaped exception."""

    def __init__(self, count, cpus):
        self.fn, self.errors, self.cpus = None, [None] * count, cpus
        self.go = [threading.Lock() for _ in range(count)]
        self.done = [threading.Lock() for _ in range(count)]
        for lock in self.go + self.done:
            lock.acquire()
        self.threads = [threading.Thread(target=self.serve, args=(r,), name=f"rt rank {r}",
                                         daemon=True) for r in range(1, count)]
        for thread in self.threads:
            thread.start()

    def serve(self, rank):
        if self.cpus[rank] is not None:
            os.sched_setaffinity(0, {self.cpus[rank]})
        while True:
            self.go[rank].acquire()
            fn = self.fn
            if fn is None:
                return
            try:
                fn(rank)
            except BaseException as error:
                self.errors[rank] = error
            finally:
                self.done[rank].release()

    def wait_then_release(self, busy):
        for done in self.done[1:]:
            done.acquire()
        self.reset()
        busy.release()

    def reset(self):
        """The call is over: its escaped exceptions (per rank, None where none), forgotten."""
        errors, self.errors = self.errors, [None] * len(self.errors)
        self.fn = None
        return errors

    def stop(self):
        self.fn = None
        for go in self.go[1:]:
            try:
                go.release()
            except RuntimeError:  # an interrupted call's rank not started yet: it ends now
                pass
        for thread in self.threads:
            if thread is not threading.current_thread():
                thread.join()


def raise_first(errors):
    failed = [(r, e) for r, e in enumerate(errors) if e is not None]
    if not failed:
        return
    rank, error = failed[0]
    if len(failed) > 1 and isinstance(error, RtError):
        error.add_note(f"(ranks {', '.join(str(r) for r, _ in failed)} failed; this is rank "
                       f"{rank}'s error)")
    raise error


def run_spmd(world, sim, functions, args_per_rank, to_host=True, threads=None):
    """Call ``functions[r](*args_per_rank[r])`` on a thread per rank (see SpmdFunction):
    ``threads``' (a RankThreads of the module), else fresh ones."""
    count = len(functions)
    args_per_rank = list(args_per_rank)
    if len(args_per_rank) != count:
        raise InvalidArgumentError(f"@{functions[0].name} runs on {count} rank(s) but "
                                   f"{len(args_per_rank)} argument lists were given")
    prepared = [f.prepare(*args) for f, args in zip(functions, args_per_rank)]
    world.new_epoch()
    hosts = None
    if sim is not None:
        sim.rendezvous.new_epoch()
        hosts = sim.host_group(count)
    results, errors = [None] * count, [None] * count

    def rank(r):
        if hosts is not None:
            sim.attach(hosts[r])
        try:
            f = functions[r]
            results[r] = f.convert_results(f.invoke_untimed(prepared[r], hosts is None), prepared[r],
                                           to_host)
        except BaseException as error:
            errors[r] = error
            world.abort(RtError(f"rank {r} failed: {error}"))
        finally:
            world.finish(r)
            if hosts is not None:
                sim.detach(hosts[r])

    if threads is not None:
        threads.run(rank)
    else:
        in_threads(rank, count)
    raise_first(errors)
    return results
