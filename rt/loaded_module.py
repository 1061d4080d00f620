"""``LoadedModule``: a ``.vmfb`` bound to devices in a VM context, with numpy-in/numpy-out calls.

``rt.load`` (rt.loading) makes one:

    m = rt.load("model.vmfb")                       # devices picked from the module's targets
    y = m.predict(x)                                # numpy in, numpy out
    d = m.predict(x, to_host=False)                 # rt.DeviceArray, stays on the device
    fut = m.predict.async_(x)                       # concurrent.futures.Future

Loading verifies the module, binds devices in the order of its ``rt.devices`` attribute
(rt.device_binding), and links ``[hal, check, extra modules..., module]`` into a Context,
which runs ``__init``. Calls check arguments against the export's ``rt.abi`` before running
(see rt.abi). Source: IREE's python runtime (iree.runtime.load_vm_flatbuffer,
SystemContext, BoundModule) and docs/compiled_module_abi.md.
"""
import contextlib
import threading
import time
import weakref

import numpy as np

from rt._call import CallPath, located, surfaced
from rt.abi import FunctionABI, dtype_is_float, dtype_name, is_sub_byte_element, numpy_dtype, type_text
from rt.device_array import DeviceArray
from rt.runtime.hal.host_upload import upload
from rt.not_computed import NotComputed
from rt.runtime.errors import CheckError, DeviceError, InvalidArgumentError, ModuleFormatError, NotFoundError
from rt.coarse_fences import complete_arguments, fence_positions
from rt.runtime.hal.module import HalModule
from rt.runtime.hal.packed_layout import view_to_numpy
from rt.runtime.hal import BufferView, dtype_to_element_type
from rt.runtime.hal.drivers.heap_allocator import VirtualHeapAllocator
from rt.runtime.hal.element_type import element_type_to_dtype
from rt.runtime.hal.trace import HOST_LANE, now_ns
from rt.runtime.modules.check import CheckModule
from rt.runtime.vm import Context, Instance, NativeModule, set_thread_deadline, thread_deadline
from rt.spmd import run_spmd



def _numpy_trace(callback):
    """A ``buffer_view.trace`` handler handing ``callback`` the key and the views as numpy arrays."""
    def trace(key, views):
        callback(key, [view_to_numpy(view) for view in views])
    return trace


class LoadedFunction(CallPath):
    """An export bound to a LoadedModule: call it with numpy arrays and Python numbers.

    ``f(*args, to_host=True, timeout=None, fuel=None)``: returns None, one value, or a tuple;
    tensors as numpy arrays (or DeviceArray when ``to_host=False``), scalars as Python numbers.
    ``timeout`` (seconds) bounds the call: past it the call raises DeadlineExceededError;
    ``fuel`` bounds the backward branches and calls the module's bytecode may take (VMTrapError
    past it; the budget is the module's, so calls running at the same time on other threads
    draw from it too). Ctrl-C ends a call with KeyboardInterrupt carrying the VM stack
    (``vm_stack``). Threads may call one module concurrently (no lock is held around a call).
    A function of IREE's coarse-fences ABI (``f$async``) takes its inputs and, optionally, its
    wait and signal fences (rt.coarse_fences).
    ``f.async_(*args, to_host=True)``: the same call on the module's worker thread; returns a
    ``concurrent.futures.Future`` (arrays passed in may be used without a copy: do not modify
    them until the future is done). ``f.abi`` describes the arguments; ``f.declaration``.
    The per-call work is C (:mod:`rt._call`); this class holds the checked Python path every
    argument the C path does not take goes through.
    """

    def __init__(self, loaded, name):
        self._loaded = loaded
        self.name = name
        fdef = loaded.module.lookup_function(name)
        self.abi = FunctionABI.from_function(fdef)
        self._function = loaded.context.lookup_function(f"{loaded.module.name}.{name}")
        refs = loaded.context.module_state(loaded.module.name).ref_globals()
        complete = None
        if fence_positions(self.abi):
            def complete(args):
                return complete_arguments(self.abi, args, loaded.devices[0])[0]
        self._plan(self._function, refs, loaded.tracer is not None, self.abi, loaded.devices,
                   loaded.channel_provider.abort, complete)

    @property
    def declaration(self):
        return self.abi.declaration

    def _prepare_one(self, index, value):
        """The VM value for argument ``index`` (checked; the path of everything C does not take)."""
        arg = self.abi.args[index]
        if arg.kind == "scalar":
            return self.abi.check_scalar(index, value)
        if arg.kind == "fence":
            return value
        if arg.kind == "ref" and not isinstance(value, (np.ndarray, DeviceArray, list, tuple)):
            return value
        return self._tensor(index, arg, value)

    def _tensor(self, index, arg, value):
        devices = self._loaded.devices
        if arg.device >= len(devices):
            raise ModuleFormatError(f"input {index} of @{self.name} lives on device {arg.device} but the "
                                    f"module has {len(devices)} device(s)")
        device = devices[arg.device]
        if isinstance(value, DeviceArray):
            value = value.buffer_view
        if isinstance(value, NotComputed):
            return self._placeholder(index, arg, value, device)
        if isinstance(value, BufferView):
            self.abi.check_view(index, value.shape, value.element_type)
            return value if value.buffer.device is device else _transfer(value, device)
        if arg.encoding is not None:
            raise InvalidArgumentError(f"input {index} of @{self.name} expects an encoded {arg.type}; "
                                       "pass a DeviceArray produced by this module")
        array = value if isinstance(value, np.ndarray) and not _needs_cast(arg, value) else \
            _host_array(self.abi, index, arg, value)
        self.abi.check_tensor(index, array.shape, array.dtype)
        element_type = arg.element_type if arg.element is not None else dtype_to_element_type(array.dtype)
        return upload(device, array, element_type)

    def _placeholder(self, index, arg, value, device):
        """A dry run's ``NotComputed`` input: a buffer view without memory of its shape."""
        if not isinstance(device.allocator, VirtualHeapAllocator):
            raise InvalidArgumentError(f"input {index} of @{self.name} is {value!r}, which has no "
                                       "values; pass a numpy array, or load with dry_run=True")
        self.abi.check_tensor(index, value.shape, value.dtype)
        element_type = arg.element_type if arg.element is not None else dtype_to_element_type(value.dtype)
        return BufferView(device.allocator.import_virtual(value.nbytes), value.shape, element_type)

    def invoke(self, prepared, timeout=None, fuel=None):
        """Run the export on prepared VM values; returns the raw VM results (views, numbers).

        timeout: seconds (None: unbounded); fuel: backward branches + calls (None: unbounded).
        """
        try:
            check_timeout(timeout)
        except InvalidArgumentError as e:
            self._loaded.channel_provider.abort(e)
            raise
        lock = self._loaded.lock if fuel is not None else contextlib.nullcontext()
        with lock, _call_limits(self._loaded.context, timeout, fuel):
            tracer = self._loaded.tracer
            try:
                if tracer is None:
                    return self._function(*prepared)
                tracer.zone_begin(HOST_LANE, f"EXEC @{self.name}", now_ns())
                try:
                    return self._function(*prepared)
                finally:
                    tracer.zone_end(HOST_LANE, now_ns())
            except BaseException as e:
                self._loaded.channel_provider.abort(e)
                if isinstance(e, CheckError):
                    raise located(e) from None
                if isinstance(e, DeviceError):
                    raise surfaced(e) from e.__cause__
                raise

    def spmd(self, args_per_rank, to_host=True):
        """SPMD form of a call on a module loaded without ranks (one rank): ``[f(*args)]``."""
        return run_spmd(self._loaded.world, self._loaded.simulation, [self], args_per_rank,
                        to_host)

    def async_(self, *args, to_host=True, timeout=None, fuel=None):
        """Run the call on the module's worker thread; returns a concurrent.futures.Future."""
        return self._loaded.executor().submit(self.__call__, *args, to_host=to_host,
                                              timeout=timeout, fuel=fuel)

    def __repr__(self):
        return f"<rt.LoadedFunction {self.declaration}>"


class DryRunFunction(LoadedFunction):
    """A LoadedFunction of a dry run (``rt.load(..., dry_run=True)``): the call runs the module
    (the VM, the queue operations in virtual time) but no kernel, so tensor results are
    ``rt.NotComputed`` placeholders of their shape and dtype (``DeviceArray``s without memory
    with ``to_host=False``); scalar results are the VM's, as in a real call."""

    def __call__(self, *args, to_host=True, timeout=None, fuel=None):
        prepared = self.prepare(*args)
        return self.convert_results(self.invoke(prepared, timeout, fuel), prepared, to_host)

    def convert_results(self, values, prepared, to_host=True):
        results = super().convert_results(values, prepared, to_host=False)
        if not to_host:
            return results
        if isinstance(results, tuple):
            return tuple(_not_computed(r) for r in results)
        return _not_computed(results)


def _not_computed(value):
    """``value``, or a NotComputed of its shape and dtype for a DeviceArray."""
    if not isinstance(value, DeviceArray):
        return value
    view = value.buffer_view
    return NotComputed(view.shape, element_type_to_dtype(view.element_type))


def check_timeout(timeout):
    if timeout is not None and not (isinstance(timeout, (int, float)) and timeout >= 0):
        raise InvalidArgumentError(f"timeout must be None or seconds >= 0, got {timeout!r}")


@contextlib.contextmanager
def _deadline(timeout):
    """Bound this thread's waits and bytecode by ``timeout`` seconds from now (None: as before)."""
    if timeout is None:
        yield
        return
    previous = thread_deadline()
    deadline = time.monotonic() + timeout
    set_thread_deadline(deadline if previous is None else min(previous, deadline))
    try:
        yield
    finally:
        set_thread_deadline(previous)


@contextlib.contextmanager
def _call_limits(context, timeout, fuel):
    """Install a call's deadline on this thread and its fuel on the context, then restore."""
    if fuel is not None:
        context.fuel = fuel
    try:
        with _deadline(timeout):
            yield
    finally:
        if fuel is not None:
            context.fuel = None


def _transfer(view, device):
    """Copy ``view`` into a new buffer of ``device`` (queue copy on the target device)."""
    length = view.buffer.byte_length
    target = device.allocator.allocate_buffer(length)
    device.queue_copy(view.buffer, 0, target, 0, length).wait()
    return BufferView(target, view.shape, view.element_type, view.encoding_type)


def _needs_cast(arg, array):
    """True for a plain numpy integer array given for a sub-byte tensor (range-checked cast)."""
    return arg.element is not None and is_sub_byte_element(arg.element) and array.dtype.kind in "iu"


def _host_array(abi, index, arg, value):
    """A numpy array for a non-array Python value (nested lists, numbers) given to a tensor."""
    try:
        array = np.asarray(value)
    except (ValueError, TypeError):
        array = None
    if array is None or array.dtype.kind not in "biuf":
        raise abi.mismatch(index, f"{type(value).__name__} {value!r:.40}")
    if arg.element is None:
        return array
    target = numpy_dtype(arg.element)
    floating = dtype_is_float(target)
    if dtype_is_float(array.dtype) and not floating:
        raise abi.mismatch(index, type_text(array.shape, dtype_name(array.dtype)))
    cast = array.astype(target)
    if not floating and not np.array_equal(cast, array):
        import ml_dtypes  # an error path: iinfo that also knows int4 / int2

        info = ml_dtypes.iinfo(target) if target.kind in "iuV" else None
        limits = f" ({info.min}..{info.max})" if info is not None else ""
        raise abi.mismatch(index, f"values out of range of {arg.element}{limits}")
    return cast


class _Resources:
    """What a LoadedModule owns outside the VM: the devices rt created and the async worker.
    Kept apart from the module so that a weakref finalizer can release them."""

    def __init__(self, owned):
        self.owned, self.executor = owned, None

    def release(self, wait):
        """Stop the worker (waiting for its calls if ``wait``) and release the owned devices."""
        if self.executor is not None:
            self.executor.shutdown(wait=wait)
            self.executor = None
        for device in self.owned:
            device.release()
        self.owned = []


class ExportsByName:
    """``m["f"]`` and ``m.f`` for a module's ``lookup(name)`` (LoadedModule, SpmdModule)."""

    def __getitem__(self, name):
        return self.lookup(name)

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self.lookup(name)
        except NotFoundError as e:
            raise AttributeError(str(e)) from None


class LoadedModule(ExportsByName):
    """A module linked into its own Context with its devices.

    module: the vm Module; context: the vm Context; devices: tuple of HAL devices (in
    ``rt.devices`` order); functions: exported function names (without ``__init``);
    ``m.name`` / ``m["name"]``: a :class:`LoadedFunction`. ``close()`` (or ``with``) releases
    the devices rt created; a module dropped without ``close()`` releases them when it is
    garbage-collected (a weakref finalizer), so their queue threads do not outlive it.
    """

    def __init__(self, module, devices, owned=(), modules=(), tracer=None, trust_policy=None,
                 channel_provider=None, trace_tensors=None, init_timeout=None, init_fuel=None,
                 dry_run=False):
        from rt.runtime.hal.drivers.local_channel import LocalWorld

        self.module, self.devices, self.tracer = module, tuple(devices), tracer
        if channel_provider is None:
            self.world = LocalWorld(1)
            channel_provider = self.world.provider(0)
        else:
            self.world = getattr(channel_provider, "world", None)
        self.channel_provider = channel_provider
        self.simulation = None
        self._function_class = DryRunFunction if dry_run else LoadedFunction
        self._resources = _Resources(list(owned))
        self._dropped = weakref.finalize(self, self._resources.release, False)
        self.lock = threading.RLock()
        self._functions = {}
        for extra in modules:
            if not isinstance(extra, NativeModule):
                raise InvalidArgumentError(f"modules must be NativeModule instances, got {extra!r}")
        trace = None if trace_tensors is None else _numpy_trace(trace_tensors)
        hal = HalModule(self.devices, trace=trace, trace_sink=tracer, trust_policy=trust_policy,
                        channel_provider=channel_provider)
        natives = [hal, CheckModule(), *modules]
        needed = {imp.module_name for imp in module.imports}
        natives = [n for n in natives if n.name in needed or n in modules]
        self._sinks = [d.set_trace_sink(tracer) for d in self.devices] if tracer is not None else []
        try:
            with _deadline(init_timeout):
                self.context = Context(Instance(), [*natives, module], init_fuel=init_fuel)
        except BaseException:
            self._restore_sinks()
            raise

    @property
    def name(self):
        return self.module.name

    @property
    def functions(self):
        """Names of the callable exports (``__init`` and other ``__`` functions hidden)."""
        return sorted(n for n in self.module.exports if not n.startswith("__"))

    def lookup(self, name):
        """The LoadedFunction ``name``; NotFoundError listing the exports otherwise."""
        function = self._functions.get(name)
        if function is None:
            if name not in self.module.exports or name.startswith("__"):
                raise NotFoundError(f"module '{self.module.name}' has no exported function {name!r}; "
                                    f"exports: {', '.join(self.functions) or '(none)'}")
            function = self._functions[name] = self._function_class(self, name)
        return function


    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self.functions))

    def to_device(self, array, device=0):
        """Upload numpy ``array`` to device ``device`` (ordinal or Device); a DeviceArray."""
        target = self.devices[device] if isinstance(device, int) else device
        array = np.asarray(array)
        return DeviceArray(upload(target, array, dtype_to_element_type(array.dtype)), target)

    def executor(self):
        """The single worker thread behind ``async_`` calls (created on first use)."""
        import concurrent.futures  # only async calls need it (and the logging it imports)

        with self.lock:
            if self._resources.executor is None:
                self._resources.executor = concurrent.futures.ThreadPoolExecutor(
                    1, f"rt {self.module.name}")
            return self._resources.executor

    def report(self):
        """The simulation report (rt.runtime.sim.report) of a module loaded on a topology."""
        if self.simulation is None:
            raise InvalidArgumentError(f"module {self.name} was not loaded on a topology; "
                                       "rt.load(..., topology=... or deterministic=True)")
        return self.simulation.report()

    def close(self):
        """Finish async calls, uninstall the tracer and release the devices rt created."""
        self._dropped.detach()
        if self._resources.executor is not None:
            self._resources.executor.shutdown(wait=True)
            self._resources.executor = None
        self._restore_sinks()
        self._resources.release(True)
        if self.simulation is not None:
            self.simulation.close()

    def _restore_sinks(self):
        """Give the devices back the trace sinks they had before this module (in reverse
        order: a device bound twice saw the tracer installed over its own first sink)."""
        for device, previous in reversed(list(zip(self.devices, self._sinks))):
            device.set_trace_sink(previous)
        self._sinks = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        devices = ", ".join(d.label for d in self.devices) or "no devices"
        return f"<rt.LoadedModule {self.module.name}: {', '.join(self.functions)} on {devices}>"
