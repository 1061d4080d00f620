"""``rt.load``: a ``.vmfb`` (or an ``.mlir`` path, compiled first) onto devices.

It picks the loader: a plain ``LoadedModule`` (rt.loaded_module) on the bound devices, or, for
a simulated topology, determinism, faults, a dry run or SPMD ranks, rt.multi_device (imported
only then, so a plain run does not load the simulator).
"""
import os

from rt.device_binding import bind_devices, compile_targets
from rt.loaded_module import LoadedModule, check_timeout
from rt.parameters import parameters_module
from rt.runtime.errors import InvalidArgumentError
from rt.runtime.trust import policy_for
from rt.runtime.vm import Module


def _load_module(vmfb, devices):
    if isinstance(vmfb, Module):
        return vmfb
    if isinstance(vmfb, (bytes, bytearray, memoryview)):
        return Module.from_bytes(vmfb)
    if isinstance(vmfb, (str, os.PathLike)):
        path = os.fspath(vmfb)
        if path.endswith(".mlir"):
            from rt.compilation import compile

            return Module.from_bytes(compile(path, devices=compile_targets(devices)))
        if not os.path.exists(path) and ("\n" in path or "func" in path):
            raise InvalidArgumentError("rt.load takes a .vmfb path or bytes; compile MLIR text with "
                                       "rt.compile(text) first")
        return Module.load(path)
    raise InvalidArgumentError(f"rt.load takes .vmfb bytes or a path, got {type(vmfb).__name__}")


def check_bind(bind, ranks, simulated):
    """InvalidArgumentError unless ``bind`` is None or "core" with ``ranks`` on real devices."""
    if bind is None:
        return
    if bind != "core":
        raise InvalidArgumentError(f"bind must be None or \"core\", got {bind!r}")
    if ranks is None:
        raise InvalidArgumentError("bind=\"core\" binds SPMD ranks' threads to cores: give "
                                   "ranks=N too")
    if simulated:
        raise InvalidArgumentError("bind=\"core\" binds real ranks' threads; a simulated "
                                   "topology (topology=, deterministic=, faults=, dry_run=) "
                                   "runs its devices on virtual time")


def load(vmfb, devices=None, *, modules=(), tracer=None, trusted=True, allowed_executables=(),
         trusted_keys=(), parameters=None, topology=None, deterministic=False, faults=(),
         ranks=None, group=None, channel=None, trace_tensors=None, timeout=None, fuel=None,
         dry_run=False, bind=None):
    """Load a ``.vmfb`` (bytes or path; an ``.mlir`` path is compiled first) onto devices.

    devices: None (pick per target), or URIs / Devices bound in ``rt.devices`` order, or a
    dict binding them by the names the module declares (``{"gpu0": uri, "gpu1": device}``).
    modules: extra NativeModules registered before the module (after hal and check).
    tracer: an ``rt.trace.Tracer`` (any ``TraceSink``) recording host calls and device queue
    work; it is installed on the devices until ``close()``.
    trusted: True (default) runs the module as its producer built it, native executables
    included (IREE's trust model: a module with llvm-cpu executables is native code). False is
    safe mode for modules from elsewhere: only vmvx executables load, plus native ones whose
    sha256 is in ``allowed_executables`` or, for a module signed with ``python -m rt sign``,
    whose signature one of ``trusted_keys`` (paths, PEM or 32 raw bytes) verifies
    (rt.runtime.trust, docs/SECURITY.md).
    parameters: the files the module's ``#flow.parameter.named`` globals are read from: a path,
    ``"scope=path"``, a list of those or ``{scope: path | [paths] | {key: array}}`` (rt.parameters).
    topology / deterministic / faults / ranks / group: simulated devices and SPMD ranks
    (rt.multi_device, docs/MULTI_DEVICE.md); with ``ranks`` the result is an
    ``rt.multi_device.SpmdModule``.
    dry_run: simulate without computing (implies a simulation, on the module's own devices when
    no topology is given): shapes, allocations, transfers and collectives are simulated and
    timed with the roofline model, kernels are not executed and heaps have no memory, so
    hundreds of devices and ranks fit in one process; allocations past a device's ``memory``
    raise ``ResourceExhaustedError`` naming it, ``report()`` gives each device's peak bytes,
    and tensor results are ``rt.NotComputed`` (shape and dtype, no values). Tensor inputs may
    be numpy arrays or ``rt.NotComputed``. docs/MULTI_DEVICE.md §8.
    channel: where ``hal.channel.create`` gets its communicator: None (this module is the only
    rank), ``"mpi"`` (this process is one rank of ``MPI_COMM_WORLD``; run under ``mpiexec``;
    rt.runtime.hal.drivers.mpi_channel) or a ``rt.runtime.hal.channel.ChannelProvider``; with
    ``ranks=L`` and ``"mpi"`` each process runs L ranks of the L x (MPI size) group
    (rt.runtime.hal.drivers.hierarchical_channel).
    trace_tensors: ``callable(key: str, tensors: list of numpy arrays)`` called for every
    ``flow.tensor.trace`` the module executes (and every traced dispatch of a module compiled
    with ``trace_dispatch_tensors=True``); None prints them to stderr as iree-run-module does.
    bind: None (the default: the OS places the threads), or ``"core"`` with ``ranks`` on real
    local devices: rank r's thread and its devices' queue threads run on CPU ``r mod n`` of the
    n this process may use, as ``mpiexec --bind-to core`` binds ranks that are processes; rank
    0 runs on the caller, whose own affinity is left alone, and llvm-cpu pool workers keep the
    process's CPUs. It suits compute-bound ranks and not tiny calls (2-core development host,
    medians of 9 loads each: the TP MLP on 2 ranks 624 µs bound, 748 unbound; on 4 ranks 1094
    and 1200; a 64 KiB all_reduce on 2 ranks 308 bound, 226 unbound: a rank's thread and its
    queue thread then share one core).
    timeout / fuel: bound the module's initializer (``__init``, run while loading) as a call's
    ``timeout=`` / ``fuel=`` bound a call: seconds (DeadlineExceededError past them) and backward
    branches + calls (VMTrapError); None: unbounded (a looping initializer then stops only at
    Ctrl-C).
    Returns a :class:`rt.loaded_module.LoadedModule`. Raises ModuleFormatError, NotFoundError,
    InvalidArgumentError (devices), PermissionDeniedError (safe mode) or the error ``__init``
    raised.
    """
    module = _load_module(vmfb, devices)
    policy = policy_for(module, trusted, allowed_executables, trusted_keys)
    io_parameters = parameters_module(module, parameters)
    modules = (*modules, io_parameters) if io_parameters is not None else modules
    provider = channel_provider(channel)
    if not isinstance(dry_run, bool):
        raise InvalidArgumentError(f"dry_run must be True or False, got {dry_run!r}")
    if provider is not None and (topology is not None or deterministic or faults or dry_run):
        raise InvalidArgumentError("channel= runs real devices across processes; a simulated "
                                   "topology (topology=, deterministic=, faults=, dry_run=) runs "
                                   "in one")
    check_bind(bind, ranks, topology is not None or deterministic or faults or dry_run)
    check_timeout(timeout)
    if fuel is not None and (type(fuel) is not int or fuel < 0):
        raise InvalidArgumentError(f"fuel must be None or a non-negative int, got {fuel!r}")
    if trace_tensors is not None and not callable(trace_tensors):
        raise InvalidArgumentError(f"trace_tensors must be callable(key, tensors), got {trace_tensors!r}")
    if topology is not None or deterministic or faults or dry_run or ranks is not None or group:
        if trace_tensors is not None:
            raise InvalidArgumentError("trace_tensors= is not supported with simulated topologies or ranks; "
                                       "traced tensors print to stderr there")
        from rt.multi_device import load_multi_device  # the simulator is imported only when used

        return load_multi_device(module, devices, modules=modules, tracer=tracer,
                                 topology=topology, deterministic=deterministic, faults=faults,
                                 ranks=ranks, group=group, trust_policy=policy, channel=provider,
                                 init_timeout=timeout, init_fuel=fuel, dry_run=dry_run,
                                 bind=bind)
    bound, owned = bind_devices(module, devices)
    try:
        return LoadedModule(module, bound, owned, modules, tracer, policy, provider, trace_tensors,
                            init_timeout=timeout, init_fuel=fuel)
    except BaseException:
        for device in owned:
            device.release()
        raise


def channel_provider(channel):
    """The ChannelProvider ``rt.load(channel=...)`` names (None: the default single rank)."""
    from rt.runtime.hal.channel import ChannelProvider

    if channel is None or isinstance(channel, ChannelProvider):
        return channel
    if channel == "mpi":
        from rt.runtime.hal.drivers.mpi_channel import DEFAULT_TIMEOUT, MpiChannelProvider

        timeout = os.environ.get("RT_MPI_TIMEOUT", DEFAULT_TIMEOUT)
        try:
            timeout = float(timeout)
        except ValueError:
            raise InvalidArgumentError(f"RT_MPI_TIMEOUT must be seconds, got {timeout!r}") from None
        return MpiChannelProvider(timeout=timeout)
    raise InvalidArgumentError(f"channel must be None, 'mpi' or a ChannelProvider, got {channel!r}")
