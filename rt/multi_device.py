"""``rt.load`` on a topology and/or over SPMD ranks.

    m = rt.load(vmfb, topology="topo.yaml", deterministic=True, faults=["link=a-b,slow=4"])
    y = m.main(x)                     # devices bound to the module's device globals by name
    m.report()                        # {"makespan_us": ..., "devices": {...}, "links": {...}}

    m = rt.load(vmfb, topology="topo.yaml", ranks=4)          # one rank per device of a group
    ys = m.main.spmd([[x0], [x1], [x2], [x3]])                # per-rank results

A module with collectives runs once per rank (SPMD): each rank has its own context, its own
device(s) and its own inputs; its ``hal.channel``s come from a ``LocalWorld`` of ``ranks``
threads (rt.runtime.hal.drivers.local_channel). Without a topology the ranks run on real
local devices; with one (or ``deterministic=True`` / ``dry_run=True``, which imply the module's
own devices linked to the host when no topology is given) everything runs in a ``Simulation``;
``dry_run=True`` simulates without computing (docs/MULTI_DEVICE.md §8).
"""
import os

from rt.loaded_module import ExportsByName, LoadedModule
from rt.runtime.errors import InvalidArgumentError
from rt.runtime.hal import Device
from rt.runtime.hal.drivers.local_channel import LocalWorld
from rt.runtime.sim.simulation import Simulation
from rt.runtime.sim.topology import HOST, Topology
from rt.runtime.sim.virtual_trace import HostSink
from rt.spmd import RankThreads, raise_first, run_spmd

#: The host links of the topology implied by ``deterministic=True`` without a topology.
IMPLICIT_LINK = {"bandwidth_gbps": 25.0, "latency_us": 1.0}


def as_topology(value):
    """A ``Topology`` from a path, YAML text, a dict or a Topology."""
    if isinstance(value, Topology):
        return value.validate()
    if isinstance(value, dict):
        return Topology.from_dict(value)
    if isinstance(value, (str, os.PathLike)):
        text = os.fspath(value)
        if "\n" in text and not os.path.exists(text):
            return Topology.from_yaml(text)
        return Topology.load(text)
    raise InvalidArgumentError(f"topology must be a path, YAML text, a dict or an rt.Topology, "
                               f"got {type(value).__name__}")


def implicit_topology(module, per_rank):
    """The module's devices (``per_rank`` copies), each linked to the host by IMPLICIT_LINK."""
    from rt.device_binding import _default_uri, device_specs

    specs = device_specs(module) or [{"name": "device", "targets": [{"backend": "llvm-cpu"}]}]
    devices, links = [], []
    for rank in range(per_rank):
        for i, spec in enumerate(specs):
            name = spec["name"] if per_rank == 1 else f"{spec['name']}{rank}"
            devices.append({"name": name, "uri": _default_uri(module, i, spec)})
            links.append({"between": [name, HOST], **IMPLICIT_LINK})
    return Topology.from_dict({"name": "implicit", "devices": devices, "links": links},
                              "<implicit topology>")


def _bind(module, sim, names, ranks):
    """Per rank, the simulated devices bound to the module's device globals."""
    from rt.device_binding import device_specs

    specs = device_specs(module) or [{"name": names[0]}]
    wanted = [s["name"] for s in specs]
    if ranks == 1 and all(n in names for n in wanted):
        return [[sim.device(n) for n in wanted]]
    needed = len(wanted) * ranks
    if needed > len(names):
        raise InvalidArgumentError(
            f"module {module.name} needs {len(wanted)} device(s) per rank x {ranks} rank(s) = "
            f"{needed}, but topology {sim.topology.name!r} offers {len(names)} "
            f"({', '.join(names)}); add devices or a larger group")
    return [[sim.device(names[r * len(wanted) + k]) for k in range(len(wanted))]
            for r in range(ranks)]


def load_multi_device(module, devices=None, *, modules=(), tracer=None, topology=None,
                      deterministic=False, faults=(), ranks=None, group=None, trust_policy=None,
                      channel=None, init_timeout=None, init_fuel=None, dry_run=False, bind=None):
    """What ``rt.load`` does when a topology, determinism, faults, a dry run or ranks are asked for
    (``trust_policy``: rt.load's, applied to every rank; ``channel``: an MPI channel provider
    the ranks nest in, rt.runtime.hal.drivers.hierarchical_channel; ``bind``: rt.load's)."""
    from rt.device_binding import bind_devices

    count = 1 if ranks is None else ranks
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise InvalidArgumentError(f"ranks must be a positive integer, got {ranks!r}")
    if channel is None:
        world = LocalWorld(count)
    else:
        from rt.runtime.hal.drivers.hierarchical_channel import HierarchicalWorld

        world = HierarchicalWorld(count, channel)
    sim = None
    if topology is not None or deterministic or faults or dry_run:
        if devices:
            raise InvalidArgumentError("give either devices or a topology: on a topology the "
                                       "module's devices are the topology's")
        topo = as_topology(topology) if topology is not None else implicit_topology(module, count)
        sim = Simulation(topo, deterministic=deterministic, faults=faults, dry_run=dry_run)
        host_sink = None
        if tracer is not None:
            tracer.use_virtual_clock()
            sim.trace.sink = tracer
            host_sink = HostSink(sim)
        names = list(topo.group(group)) if (ranks is not None or group) else [d.name for d in topo.devices]
        per_rank = _bind(module, sim, names, count)
    elif any(isinstance(d, Device) for d in ([devices] if isinstance(devices, Device)
                                              else devices or ())) and count > 1:
        raise InvalidArgumentError("with ranks, give devices as URIs (each rank gets its own)")
    loaded, errors = [None] * count, [None] * count

    def make(rank):
        try:
            if sim is not None:
                bound, owned = bind_devices(module, per_rank[rank])
                sink = host_sink
            else:
                bound, owned = bind_devices(module, devices)
                sink = tracer
            loaded[rank] = LoadedModule(module, bound, owned, modules, sink, trust_policy,
                                        channel_provider=world.provider(rank),
                                        init_timeout=init_timeout, init_fuel=init_fuel,
                                        dry_run=dry_run)
        except BaseException as error:
            errors[rank] = error
            world.abort(error)

    threads = RankThreads(count, sorted(os.sched_getaffinity(0)) if bind else None)
    try:
        threads.run(make)
        raise_first(errors)
        if bind:
            bind_queue_threads(loaded, threads)
    except BaseException:
        for m in loaded:
            if m is not None:
                m.close()
        if sim is not None:
            sim.release()
        threads.close()
        raise
    if ranks is None:
        loaded[0].simulation = sim
        return loaded[0]
    return SpmdModule(loaded, world, sim, threads)


def bind_queue_threads(loaded, threads):
    """Bind each rank's devices' queue threads to the rank's CPU (``threads.cpu_of``)."""
    for rank, module in enumerate(loaded):
        for device in module.devices:
            for thread in getattr(device, "queue_threads", ()):
                os.sched_setaffinity(thread.native_id, {threads.cpu_of(rank)})


class SpmdModule(ExportsByName):
    """A module loaded once per rank. ``m.f.spmd([args_rank0, ...])`` runs ``f`` on every
    rank at once; ``ranks`` are the per-rank ``LoadedModule``s; ``report()`` is the
    simulation's (None without one). The ranks run on ``threads`` (rt.spmd.RankThreads), the
    threads they were loaded on, until ``close()``."""

    def __init__(self, ranks, world, simulation, threads):
        self.ranks, self.world, self.simulation = tuple(ranks), world, simulation
        self.threads = threads
        self._functions = {}

    @property
    def functions(self):
        return self.ranks[0].functions

    @property
    def name(self):
        return self.ranks[0].name

    def lookup(self, name):
        function = self._functions.get(name)
        if function is None:
            functions = [m.lookup(name) for m in self.ranks]
            function = self._functions[name] = SpmdFunction(self, name, functions)
        return function


    def report(self):
        return None if self.simulation is None else self.simulation.report()

    def close(self):
        for m in self.ranks:
            m.close()
        if self.simulation is not None:
            self.simulation.close()
        self.threads.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return f"<rt.SpmdModule {self.name} x{len(self.ranks)} ranks>"


class SpmdFunction:
    """One export on every rank."""

    def __init__(self, module, name, functions):
        self._module, self.name, self.functions = module, name, functions
        self.abi = functions[0].abi

    def __call__(self, *args, **kwargs):
        if len(self.functions) == 1:
            return self.functions[0](*args, **kwargs)
        raise InvalidArgumentError(f"@{self.name} runs on {len(self.functions)} ranks: call "
                                   f"{self.name}.spmd([args_rank0, args_rank1, ...])")

    def spmd(self, args_per_rank, to_host=True):
        """Run on every rank at once, rank r with ``args_per_rank[r]`` (a list of arguments);
        returns the list of per-rank results. A rank's error aborts the others' collectives;
        the first failing rank's error is raised."""
        return run_spmd(self._module.world, self._module.simulation, self.functions,
                        args_per_rank, to_host, self._module.threads)
