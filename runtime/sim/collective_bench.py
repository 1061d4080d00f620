"""One collective on a simulated topology, alone: what ``rt benchmark-collectives`` measures.

``simulate(sim, devices, kind, count, size, algorithm)`` runs the steps a collective of the
``devices`` (``SimDevice``s of ``sim``, rank r on ``devices[r]``) would run in a program
(rt.runtime.sim.collective_plan, rt.runtime.sim.collective_rendezvous.launch_step) on the
simulation's links, from the current virtual time until the last transfer ends, and returns
``(algorithm that ran, µs)``. No module, executor or host is involved: the ranks are taken to
arrive together, as nccl-tests' timed loop does after its warm-up. The simulation must have no
other work in flight.

Bus bandwidth follows nccl-tests (doc/PERFORMANCE.md): algbw = S / t with S the bytes of one
rank's buffer as nccl-tests counts it (all_reduce, broadcast, reduce: the buffer; all_gather
and reduce_scatter: the gathered / scattered whole, n blocks; all_to_all: the send buffer), and
busbw = algbw x ``BUS_FACTOR[kind](n)``.
"""
from rt.runtime.errors import DeviceError
from rt.runtime.sim import collective_plan
from rt.runtime.sim.collective_rendezvous import launch_step

BUS_FACTOR = {
    "all_reduce": lambda n: 2 * (n - 1) / n,
    "all_gather": lambda n: (n - 1) / n,
    "reduce_scatter": lambda n: (n - 1) / n,
    "all_to_all": lambda n: (n - 1) / n,
    "broadcast": lambda n: 1.0,
    "reduce": lambda n: 1.0,
}
KINDS = tuple(BUS_FACTOR)


def simulate(sim, devices, kind, count, size, algorithm=None):
    """``(algorithm, µs)`` of collective ``kind`` of ``count`` elements of ``size`` bytes
    (counted as ``iree_hal_command_buffer_collective`` counts them) over ``devices``;
    ``algorithm`` overrides the topology's. A failed link raises its ``DeviceError``."""
    name, steps = collective_plan.plan(sim.topology, [d.index for d in devices], kind, count,
                                       size, algorithm=algorithm)
    start = sim.engine.now
    failures = []

    def run(index):
        while index < len(steps):
            transfers = [t for t in steps[index] if t[2] > 0]
            if transfers:
                break
            index += 1
        else:
            return
        left = [len(transfers)]

        def done(failure, ended=1):
            if failure is not None:
                failures.append(failure)
            left[0] -= ended
            if left[0] == 0 and not failures:
                run(index + 1)

        launch_step(sim, devices, transfers, f"{kind} step {index + 1}", done)

    run(0)
    sim.engine.run()
    if failures:
        error = DeviceError(f"{kind} on {len(devices)} ranks failed: {failures[0]}")
        error.__cause__ = failures[0]
        raise error
    return name, sim.engine.now - start


def message_bytes(kind, n, count, size):
    """S of nccl-tests: the bytes algbw divides by (see the module docstring)."""
    if kind in ("all_gather", "reduce_scatter"):
        return n * count * size
    return count * size
