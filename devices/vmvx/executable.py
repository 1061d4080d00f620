"""vmvx executables: VM bytecode dispatch functions run once per workgroup by rt's interpreter.

Format ``"vmvx-bytecode"``: the data is a ``.vmfb`` whose exported functions are the
executable's exports, in function-ordinal order. Each has the entry calling convention
``0rriiiiii_v``::

    @export(%constants: buffer,            // push constants, uint32 little-endian
            %bindings: list<buffer>,       // a VMBuffer per binding, in binding order
            %workgroup_id_x, _y, _z: i32,
            %workgroup_count_x, _y, _z: i32)

and reflection entries ``binding_count``, ``constant_count`` (decimal), ``workgroup_size``
(``"x,y,z"``) and optionally ``binding_access`` (``"ro,ro,rw"``: read-only bindings are
rejected as kernel outputs and as targets of ``buffer.store``). Imports must all come from the
``vmvx`` module. Bindings are VM buffers over the HAL's memory, so dispatch bytecode may load
and store their elements directly (``buffer.load.*`` / ``buffer.store.*``, bounds-checked)
as well as hand them to microkernels; they are released when the dispatch returns, so a
buffer kept by the bytecode (in a global) traps instead of touching freed memory.
Compared with IREE's ``0rrriiiiiiiiii_v`` (vmvx_module_loader.c) there is no local memory,
no workgroup size (it is static, in the reflection) and no processor id.

Threading: ``dispatch`` runs every workgroup in order on the calling thread and ignores
``threads``. The interpreter holds the GIL between kernels (kernels only drop it inside large
views), so worker threads would mostly serialise while making runs order-dependent; the
reference device stays deterministic instead. Each calling thread gets its own VM context,
so concurrent dispatches from several threads are safe.
Source: runtime/src/iree/hal/local/loaders/vmvx_module_loader.c.
"""
import array
import sys
import threading
import time

from rt.devices.vmvx.module import VmvxModule
from rt.runtime.errors import DeadlineExceededError, DeviceError, InvalidArgumentError, ModuleFormatError
from rt.runtime.hal._validation import check_library_dispatch
from rt.runtime.hal.executable_library import ExecutableLibrary, ExportInfo
from rt.runtime.vm import Context, Instance, Module, VMBuffer, VMList, interrupt_epoch, thread_deadline

FORMAT = "vmvx-bytecode"
ENTRY_CCONV = "0rriiiiii_v"
_ACCESS = ("ro", "rw")


def _export_info(module, fn):
    """ExportInfo of one entry function from its reflection; ModuleFormatError if malformed."""
    where = f"vmvx executable module {module.name!r}, export @{fn.name}"
    if fn.signature.text != ENTRY_CCONV:
        raise ModuleFormatError(
            f"{where}: calling convention {fn.signature.text!r}; a dispatch function must be "
            f"{ENTRY_CCONV!r} (constants, bindings, workgroup id x/y/z, workgroup count x/y/z)")
    refl = fn.reflection
    try:
        bindings = int(refl["binding_count"])
        constants = int(refl["constant_count"])
        size = tuple(int(v) for v in refl.get("workgroup_size", "1,1,1").split(","))
    except (KeyError, ValueError) as e:
        raise ModuleFormatError(
            f"{where}: reflection {refl!r} needs binding_count and constant_count as decimal "
            f"integers and workgroup_size as 'x,y,z' ({type(e).__name__}: {e})") from None
    if bindings < 0 or constants < 0 or len(size) != 3 or min(size) < 1:
        raise ModuleFormatError(
            f"{where}: binding_count {bindings} and constant_count {constants} must be >= 0 and "
            f"workgroup_size {size} three positive integers")
    access = tuple(refl.get("binding_access", ",".join(["rw"] * bindings)).split(",")) if bindings else ()
    if len(access) != bindings or any(a not in _ACCESS for a in access):
        raise ModuleFormatError(
            f"{where}: binding_access {refl.get('binding_access')!r} must list 'ro' or 'rw' for "
            f"each of the {bindings} bindings")
    return ExportInfo(fn.name, bindings, constants, size), access


class VmvxExecutable(ExecutableLibrary):
    """A loaded vmvx executable; see the module docstring for the data format and ABI.

    data: ``.vmfb`` bytes (copied). Raises ``ModuleFormatError`` for malformed bytecode, an
    export with the wrong cconv or reflection, or an import the ``vmvx`` module lacks.
    """

    format = FORMAT

    def __init__(self, data, metadata=None):
        self.metadata = dict(metadata or {})
        self._module = Module.from_bytes(bytes(memoryview(data).cast("B")))
        module = self._module
        for imp in module.imports:
            entry = VmvxModule.exports.get(imp.function_name) if imp.module_name == "vmvx" else None
            if entry is None or entry[1] != imp.signature:
                want = f"cconv {entry[1].text!r}" if entry else "a function of the vmvx module"
                raise ModuleFormatError(
                    f"vmvx executable module {module.name!r}: import {imp.name!r} "
                    f"({imp.signature.text}) does not resolve; expected {want}")
        entries = sorted((ordinal, name) for name, ordinal in module.exports.items())
        infos = [_export_info(module, module.functions[ordinal]) for ordinal, _ in entries]
        self.exports = tuple(info for info, _ in infos)
        self._access = tuple(access for _, access in infos)
        self._names = tuple(f"{module.name}.{name}" for _, name in entries)
        self._local = threading.local()
        self._functions()  # link once now so that a bad module fails at load, not at dispatch

    def _functions(self):
        fns = getattr(self._local, "functions", None)
        if fns is None:
            context = Context(Instance(), [VmvxModule(), self._module])
            fns = self._local.functions = tuple(context.lookup_function(n) for n in self._names)
        return fns

    def dispatch(self, ordinal, workgroup_count, constants, binding_ptrs, binding_lengths, threads=1):
        """Run export ``ordinal`` once per workgroup, x fastest, on the calling thread.

        See ``ExecutableLibrary.dispatch``. Raises ``InvalidArgumentError`` for a bad ordinal,
        workgroup count, constant count or binding count, and ``DeviceError`` naming the
        export, the workgroup and the cause when a workgroup fails (remaining ones are skipped),
        and ``DeadlineExceededError`` once the calling thread's deadline (``f(..., timeout=)``)
        has passed, checked every 256 workgroups. Ctrl-C interrupts between workgroups: on the
        main thread as ``KeyboardInterrupt`` (the interpreter's signal polls), on another
        thread (a local-task queue) as ``DeviceError`` naming the interrupt, so the queue
        stops working on a call its caller has abandoned.
        """
        if type(ordinal) is not int or not 0 <= ordinal < len(self.exports):
            raise InvalidArgumentError(
                f"vmvx dispatch: export ordinal {ordinal!r} is not in [0, {len(self.exports)})")
        info = self.exports[ordinal]
        counts, constants = check_library_dispatch(
            f"vmvx dispatch {info.name}", info, workgroup_count, constants, len(binding_ptrs))
        if len(binding_lengths) != len(binding_ptrs):
            raise InvalidArgumentError(
                f"vmvx dispatch {info.name}: {len(binding_ptrs)} binding pointers but "
                f"{len(binding_lengths)} lengths")
        packed = array.array("I", constants)
        if sys.byteorder != "little":
            packed.byteswap()
        constants_buffer = VMBuffer(packed.tobytes(), "constants")
        access = self._access[ordinal]
        buffers = [VMBuffer.from_address(p, n, access[i] == "rw", f"binding {i}")
                   for i, (p, n) in enumerate(zip(binding_ptrs, binding_lengths))]
        bindings = VMList(buffers, element_type="ref")
        fn = self._functions()[ordinal]
        cx, cy, cz = counts
        deadline = thread_deadline()
        epoch = None if threading.current_thread() is threading.main_thread() else interrupt_epoch()
        try:
            for z in range(cz):
                for y in range(cy):
                    for x in range(cx):
                        if deadline is not None and x & 255 == 0 and time.monotonic() >= deadline:
                            raise DeadlineExceededError(
                                f"vmvx dispatch {info.name}: the call's deadline passed at "
                                f"workgroup ({x}, {y}, {z}) of ({cx}, {cy}, {cz})")
                        if epoch is not None and interrupt_epoch() != epoch:
                            raise DeviceError(
                                f"vmvx dispatch {info.name}: interrupted by Ctrl-C (SIGINT) before "
                                f"workgroup ({x}, {y}, {z}) of ({cx}, {cy}, {cz}); its results "
                                f"are undefined")
                        try:
                            fn(constants_buffer, bindings, x, y, z, cx, cy, cz)
                        except Exception as e:  # noqa: BLE001 - every failure becomes a DeviceError
                            raise DeviceError(
                                f"vmvx dispatch {info.name}: workgroup ({x}, {y}, {z}) of "
                                f"({cx}, {cy}, {cz}) failed: {e}") from e
        finally:
            for buffer in buffers:
                buffer.release()

    def __repr__(self):
        names = ", ".join(e.name for e in self.exports)
        return f"<VmvxExecutable {self._module.name} [{names}]>"
