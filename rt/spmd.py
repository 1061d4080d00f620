"""Running one call on every SPMD rank at once: a thread per rank, first error raised.

Shared by ``rt.multi_device.SpmdModule`` (several ranks) and ``LoadedFunction.spmd`` (one rank).
A failing rank aborts the world (rt.runtime.hal.drivers.local_channel) so the others' collectives
stop waiting; the error of the lowest failing rank is raised, noting the others.
"""
import threading

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


def raise_first(errors):
    failed = [(r, e) for r, e in enumerate(errors) if e is not None]
    if not failed:
        return
    rank, error = failed[0]
    if len(failed) > 1 and isinstance(error, RtError):
        error.add_note(f"(ranks {', '.join(str(r) for r, _ in failed)} failed; this is rank "
                       f"{rank}'s error)")
    raise error


def run_spmd(world, sim, functions, args_per_rank, to_host=True):
    """Call ``functions[r](*args_per_rank[r])`` on a thread per rank (see SpmdFunction)."""
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
            results[r] = f.convert_results(f.invoke(prepared[r]), prepared[r], to_host)
        except BaseException as error:
            errors[r] = error
            world.abort(RtError(f"rank {r} failed: {error}"))
        finally:
            world.finish(r)
            if hosts is not None:
                sim.detach(hosts[r])

    in_threads(rank, count)
    raise_first(errors)
    return results
