"""How long queue work takes in virtual time: the roofline model and the stages of an op.

A queue operation becomes a list of *stages* run one after the other on its device's queue:

* ``Compute(name, args, duration, command, first_duration)``: the device is busy ``duration``
  µs; with the ``measured`` time model ``duration`` is None and the simulator takes the time
  the command really took on the device's executor (``command`` indexes the command in its
  buffer). ``first_duration`` (None: no such bound) is the calibrated class's time of a
  profiled dispatch: a profiled dispatch's traced time as its operation's first holds the
  call's start-up (a real traced 32x512x512 matmul on 2 ranks took 210-230 µs first,
  157-164 µs second, at load average 2), which the host's cost of a call, charged before
  the operation, holds too (``host.call_us``: a call of a one-dispatch ``@nop``). As the
  first stage of an SPMD call's first operation it takes ``max(first_duration, duration -
  host.call_us)`` (rt.runtime.sim.simulation): the start-up counted once.
* ``Transfer(name, args, source, target, nbytes, command)``: ``nbytes`` move between two
  simulated devices over the topology's links (the engine's shared-bandwidth model).
* ``CollectiveStage(name, args, record, command)``: the device joins a collective with the
  other ranks of the record's channel (rt.runtime.sim.collective_model).

Roofline (Williams, Waterman, Patterson, "Roofline", CACM 2009): a dispatch that does F
flops and moves B bytes takes ``max(F / peak, B / bandwidth)``; B is the lesser of its
bindings' lengths and the compiler's count (``dispatch_bytes``), F comes from the executable's per-export cost metadata (``Executable.costs``,
emitted by the compiler; 0 when absent, i.e. the memory-bound estimate). Fills and updates
write their bytes, a copy within a device reads and writes them. A device with neither
``peak_gflops`` nor ``memory_gbps`` that must use the roofline (deterministic mode) takes
``DEFAULT_PEAK_GFLOPS`` and ``DEFAULT_MEMORY_GBPS``.

Calibrated classes (a device's ``kernels``, rt.runtime.sim.dispatch_classes, written by
``rt calibrate``) refine the roofline: a dispatch of a calibrated class takes
``overhead + work / throughput`` of its class, a same-device copy or fill that of ``copy`` or
``fill``. A dispatch profile (a device's ``profile``, rt.runtime.sim.profile) overrides both
models, and the measured one, for the dispatches it lists.
"""
from dataclasses import dataclass

from rt.runtime.sim import commands

DEFAULT_PEAK_GFLOPS = 100.0
DEFAULT_MEMORY_GBPS = 50.0


@dataclass
class Compute:
    name: str
    args: dict
    duration: float | None
    command: int | None = None
    first_duration: float | None = None


@dataclass
class Transfer:
    name: str
    args: dict
    source: object
    target: object
    nbytes: int
    command: int | None = None


@dataclass
class CollectiveStage:
    name: str
    args: dict
    record: object
    command: int | None = None


class ComputeModel:
    """The time model of one device: ``roofline`` (peak_gflops, memory_gbps; either may be
    None = that term is ignored; refined by calibrated ``kernels``) or ``measured``, and the
    device's dispatch ``profile`` (or None)."""

    def __init__(self, spec, deterministic=False):
        self.kernels, self.profile = spec.kernels, spec.profile
        self.mode = "roofline" if deterministic or spec.time_model == "roofline" else "measured"
        peak, bandwidth = spec.peak_gflops, spec.memory_gbps
        if self.mode == "roofline" and peak is None and bandwidth is None:
            peak, bandwidth = DEFAULT_PEAK_GFLOPS, DEFAULT_MEMORY_GBPS
        self.peak_gflops, self.memory_gbps = peak, bandwidth

    def roofline_us(self, flops, nbytes):
        """max(flops / peak, nbytes / bandwidth) in µs (1 GFLOP/s = 1e3 flop/µs)."""
        compute = flops / (self.peak_gflops * 1e3) if self.peak_gflops else 0.0
        memory = nbytes / (self.memory_gbps * 1e3) if self.memory_gbps else 0.0
        return max(compute, memory)

    def dispatch_duration(self, name, workgroups, flops, nbytes):
        """``(µs, µs as its operation's first or None)`` of dispatch ``name`` over
        ``workgroups``: the profile's, else the calibrated class's or the roofline's; None
        (take the measured time) for the measured model. The second is the calibrated class's
        time for a profiled dispatch on a device with classes (see ``Compute``), else None."""
        calibrated = self.kernels.dispatch_us(name, flops, nbytes) if self.kernels else None
        if self.profile is not None:
            recorded = self.profile.lookup(name, workgroups)
            if recorded is not None:
                return recorded, calibrated
        if self.mode != "roofline":
            return None, None
        return (self.roofline_us(flops, nbytes) if calibrated is None else calibrated), None

    def write_duration(self, kind, nbytes):
        """µs of a same-device ``copy`` (``nbytes`` read and written: 2 x the bytes moved) or
        ``fill`` (``nbytes`` written); None for the measured model."""
        if self.mode != "roofline":
            return None
        calibrated = self.kernels.write_us(kind, nbytes) if self.kernels else None
        return self.roofline_us(0, nbytes) if calibrated is None else calibrated


def dispatch_flops(executable, ordinal):
    """Flops of one dispatch from the executable's cost metadata (0 when it has none)."""
    cost = (getattr(executable, "costs", None) or {}).get(ordinal)
    return cost["flops"] if cost else 0


def dispatch_bytes(record):
    """Bytes one dispatch (a ``commands.Dispatch``) moves: the lesser of its bindings' lengths
    and the compiler's count of the bytes its ops read and write (the executable's cost
    metadata ``bytes``, rt.compiler.codegen.cost.kernel_bytes; binding lengths alone without
    it). Both bound the bytes touched from above: a binding into a transient slab that many
    tensors share (as IREE binds a stream resource, the offset a push constant) is as long as
    the slab, and the compiler's count takes an intermediate written and read back twice."""
    bound = sum(record.binding_bytes)
    cost = (getattr(record.executable, "costs", None) or {}).get(record.ordinal)
    counted = cost.get("bytes") if cost else None
    return bound if counted is None else min(bound, counted)


def execute_stages(model, command_buffers, owner_of, binding_table=None):
    """Stages of ``queue_execute(command_buffers, binding_table=...)``; ``owner_of(buffer)`` ->
    simulated device."""
    stages = []
    for cb in command_buffers:
        for record in commands.records(cb, binding_table):
            stages.append(_stage(model, record, owner_of))
    return stages


def _stage(model, record, owner_of):
    if isinstance(record, commands.Dispatch):
        nbytes = dispatch_bytes(record)
        flops = dispatch_flops(record.executable, record.ordinal)
        args = {"command": record.index, "workgroups": list(record.workgroups),
                "bytes": nbytes}
        if flops:
            args["flops"] = flops
        duration, first = model.dispatch_duration(record.name, record.workgroups, flops, nbytes)
        return Compute(record.name, args, duration, record.index, first)
    if isinstance(record, commands.Copy):
        args = {"command": record.index, "bytes": record.nbytes}
        known = record.source is not None and record.target is not None
        source = owner_of(record.source) if known else None
        target = owner_of(record.target) if known else None
        if source is not target:
            args.update(source=source.name, target=target.name)
            return Transfer(f"copy {source.name} -> {target.name}", args, source, target,
                            record.nbytes, record.index)
        return Compute("copy_buffer", args, model.write_duration("copy", 2 * record.nbytes),
                       record.index)
    if isinstance(record, commands.Collective):
        return CollectiveStage(record.op.describe(), {"command": record.index,
                                                      "count": record.element_count},
                               record, record.index)
    name = "fill_buffer" if isinstance(record, commands.Fill) else "update_buffer"
    return Compute(name, {"command": record.index, "bytes": record.nbytes},
                   model.write_duration("fill", record.nbytes), record.index)


def copy_stages(model, source, target, nbytes):
    """Stages of ``queue_copy`` between simulated devices ``source`` and ``target``."""
    args = {"bytes": nbytes}
    if source is not target:
        args.update(source=source.name, target=target.name)
        return [Transfer(f"copy {source.name} -> {target.name}", args, source, target, nbytes)]
    return [Compute("copy", args, model.write_duration("copy", 2 * nbytes))]


def write_stages(model, name, nbytes):
    """Stages of ``queue_fill`` / ``queue_update`` writing ``nbytes``."""
    return [Compute(name, {"bytes": nbytes}, model.write_duration("fill", nbytes))]
