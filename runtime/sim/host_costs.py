"""The host's own time per call, which no device queue, link or collective accounts for.

A topology may give it (``rt calibrate`` writes it)::

    host: {call_us: 140, cores: 2, dispatch_us: 4, wake_us: 25}
    # per SPMD call; shared cores; per dispatch; per wake of a queue by another's signal

``call_us`` is what one call of an SPMD program costs the host besides its queue work: rt.spmd
hands the call to a thread per rank, each rank enters the VM, imports its arguments and
submits (on local-task devices it then runs its queue's work itself, rt.runtime.vm._interp
``hold_wakes``; elsewhere an executor thread wakes up); at the end the fences signal, the
ranks' hosts wake up and the threads are joined (on ``mpiexec`` processes: one VM call per
process). The simulator charges it at the start of every SPMD call
(``Simulation.host_group``): each rank's host clock starts ``call_us`` after the caller's, so
its first submission, and all that waits on it, starts that much later. A profiled first
dispatch of that submission holds the same start-up in its traced time: it runs for no less
than its calibrated class's time and no more than its profiled time less ``call_us``
(rt.runtime.sim.costs ``Compute``). Without ``host`` the term is 0 (a hand-written topology
models devices only).

How it is measured: ``rt calibrate`` times ``@nop`` (one 4-element dispatch: the host's work
and one queue round trip, no real work) on the topology's N ranks, the median of calls that
take turns with the link measurements (rt.runtime.sim.calibration); with ``--links=mpi`` the
same call on two ``mpiexec`` processes, each after a barrier (rt.runtime.sim.mpi_loopback). A
plain call on one host costs a few µs (no threads to hand over to) and is not charged.

``dispatch_us`` (optional, default 0) is the executor's time between two dispatches of one
queue operation beyond the dispatches' own traced durations, which no dispatch's traced
duration (nor a profile, nor a calibrated class fitted to durations) contains. The simulator
adds it before every dispatch of an operation but its first stage (the first's start is in
``call_us``). ``rt calibrate`` measures it untraced: a call of ``@chain`` (a chain of 16 small
dependent dispatches in one queue operation, rt.runtime.sim.calibration_programs) less a call
of ``@nop`` taken moments apart, per dispatch but one, less a dispatch's traced duration
(rt.runtime.sim.calibration ``dispatch_gap_us``). Since the replay loop runs a command
buffer's C-only commands back to back without the GIL it is about 0 µs on the 2-vCPU
development host; the gaps a traced run shows (9.5-12.4 µs) are the tracer's own, and when
they were the measure a transformer layer's call (15-19 dispatches per rank) was predicted
150 µs long.

``wake_us`` (optional, default 0) is what a dependency between two devices' queues costs:
an operation waiting on a fence that another device's queue signals after the operation was
submitted starts ``wake_us`` after that signal, not at it (rt.runtime.sim.simulation
``_ready_time``). The waiting queue's thread sleeps until the signal's callback wakes it (and
it takes the GIL); a queue's own earlier work, a fence reached before the submission and a
host's signal cost nothing more. ``rt calibrate`` measures it with tiny fills on 2 devices: a
chain A -> B -> A (each waiting on the one before, the host waiting on the last) less a chain
A -> A -> A taken moments apart, over its 2 hops (rt.runtime.sim.calibration
``measure_wake``); the host's own wake-up at the end, which the A -> A -> A chain does not
have (the waiting host runs it itself, IREE's donate-caller), is in it, as a pipeline's host
waits on its last stage. 25 µs on the 2-vCPU development host: a 2-stage pipeline (2 such
hops) measured 73 µs beyond its prediction without the term, a 4-stage one (4 hops) 85 µs.

``cores`` (optional) is how many cores the topology's devices share: with more devices than
cores, kernels running at once stretch by the oversubscription (rt.runtime.sim.cores). ``rt
calibrate`` writes the cores this process may run on (``os.sched_getaffinity``).
"""
from dataclasses import dataclass

_FIELDS = ("call_us", "cores", "dispatch_us", "wake_us")


@dataclass(frozen=True)
class HostCosts:
    """``call_us``: µs of host time charged at the start of each SPMD call (>= 0); ``cores``:
    the host cores the devices share (a whole number >= 1), or None (each device has its own);
    ``dispatch_us``: µs between two dispatches of one queue operation (>= 0); ``wake_us``:
    µs from another device's queue's signal to the start of an operation waiting on it (>= 0)."""

    call_us: float = 0.0
    cores: int | None = None
    dispatch_us: float = 0.0
    wake_us: float = 0.0

    def to_dict(self):
        return {"call_us": self.call_us, **({"cores": self.cores} if self.cores else {}),
                **({"dispatch_us": self.dispatch_us} if self.dispatch_us else {}),
                **({"wake_us": self.wake_us} if self.wake_us else {})}


def parse(reader, value, path=("host",)):
    """``HostCosts`` from a topology's ``host`` mapping; ``reader`` is the topology reader (its
    ``mapping``/``number`` cite the file, line and field on bad input; ``cores`` must be a
    whole number >= 1)."""
    reader.mapping(value, path, _FIELDS, required=("call_us",))
    cores = None
    if "cores" in value:
        cores = value["cores"]
        if isinstance(cores, bool) or not isinstance(cores, int) or cores < 1:
            reader.fail(tuple(path) + ("cores",), f"expected a whole number of cores >= 1, got {cores!r:.40}")
    optional = {name: (reader.number(value[name], tuple(path) + (name,), strict=False, unit=" (µs)")
                       if name in value else 0.0) for name in ("dispatch_us", "wake_us")}
    return HostCosts(reader.number(value["call_us"], tuple(path) + ("call_us",), strict=False,
                                   unit=" (µs)"), cores, **optional)
