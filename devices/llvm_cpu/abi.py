"""The llvm-cpu executable ABI: the one definition shared by the kernel emitters and the launcher.

Modelled on IREE's runtime/src/iree/hal/local/executable_library.h. Every export of an
llvm-cpu object is a workgroup function::

    int32_t fn(const rt_dispatch_state_v0_t* dispatch_state,
               const rt_workgroup_state_v0_t* workgroup_state);

called once per workgroup; a non-zero return is a failure whose code is reported (see
``STATUS_NAMES``). Each object also defines the library query::

    const rt_library_v0_t* rt_library_query(uint32_t max_version);

returning a pointer to a constant descriptor (or NULL when it cannot offer a version
<= ``max_version``). The descriptor lists the ABI version, the CPU features the code needs
(``"+avx512f,+fma"``), and per export its name, function pointer, binding and push-constant
counts and static workgroup size. It is the object's (internal) data symbol
``rt_library_v0``: rt's loader decodes it from the object's bytes and never calls the query,
so loading runs no code from the module (see ``descriptor.py``).

Layouts are given as ``Struct`` values (x86-64 SysV: natural alignment, pointers 8 bytes).
``compiler/codegen/llvm_cpu`` turns them into LLVM struct types; ``_launcher.pyx`` declares
matching C structs and checks them against ``Struct.offset`` at import time.
"""
from rt.runtime.record import Record

#: Executable format string of a relocatable x86-64 ELF object (mapped by ``image.Image``).
FORMAT = "llvm-cpu-object-x86_64"
#: The one ABI version this runtime speaks.
ABI_VERSION = 0
#: Name of the library query function every object defines.
LIBRARY_QUERY_SYMBOL = "rt_library_query"
#: Name of the constant descriptor the query returns (a local symbol of the object).
LIBRARY_DESCRIPTOR_SYMBOL = "rt_library_v0"
#: Optional writable 8-byte global of an object: the loader writes the host's
#: ``RUNTIME_FEATURES`` bits there before any export runs (IREE passes the same word to its
#: kernels as ``iree_hal_executable_environment_v0_t.processor.data[0]``), so one object can
#: carry a kernel for a feature the host may lack and pick it at run time.
HOST_CPU_DATA_SYMBOL = "rt_host_cpu_data"
#: Features an object may test at run time instead of requiring them: bit i of the
#: ``HOST_CPU_DATA_SYMBOL`` word is set when the host has ``RUNTIME_FEATURES[i]`` (the
#: dot-product mmt4d kernels, compiler/codegen/llvm_cpu/mmt4d_dot.py). Append only.
RUNTIME_FEATURES = ("avx512bf16", "avx512vnni")

#: Limits checked by the loader and the launcher (IREE uses 64 for both as well).
MAX_BINDINGS = 64
MAX_CONSTANTS = 64
MAX_EXPORTS = 4096
MAX_WORKERS = 255

#: Workgroup return codes with a defined meaning; any other non-zero code is kernel-defined.
STATUS_OK = 0
STATUS_OUT_OF_RANGE = 1
STATUS_INVALID_ARGUMENT = 2
STATUS_DIVISION_BY_ZERO = 4
#: ``STATUS_ASSERTION_BASE + k``: the library's ``cf.assert`` number k failed (its message is
#: entry k of the object metadata's ``assertions``).
STATUS_ASSERTION_BASE = 0x1000
#: Launcher statuses: the dispatch stopped between workgroups (the launcher records that it
#: stopped it, so a kernel returning the same code is still reported as the kernel's).
STATUS_INTERRUPTED = -2
STATUS_DEADLINE_EXCEEDED = -3
STATUS_NAMES = {
    STATUS_OUT_OF_RANGE: "a binding is too small for the shape given by the push constants",
    STATUS_INVALID_ARGUMENT: "a push constant is out of the range the kernel accepts",
    STATUS_DIVISION_BY_ZERO: "integer division by zero",
}

_KIND_SIZE = {"u32": 4, "u64": 8, "ptr": 8}


class Field(Record):
    """One struct member: ``kind`` is ``"u32"``, ``"u64"`` or ``"ptr"``; ``count`` > 1 is an array."""

    __slots__ = ("name", "kind", "count")
    _defaults = {"count": 1}


class Struct:
    """A C struct laid out with natural alignment, as the x86-64 SysV ABI does.

    ``fields`` in declaration order; ``offset(name)`` in bytes; ``size`` includes tail padding.
    """

    def __init__(self, name, fields):
        self.name = name
        self.fields = tuple(fields)
        offsets, pos, align = {}, 0, 1
        for f in self.fields:
            size = _KIND_SIZE[f.kind]
            pos = (pos + size - 1) // size * size
            offsets[f.name] = pos
            pos += size * f.count
            align = max(align, size)
        self._offsets = offsets
        self.align = align
        self.size = (pos + align - 1) // align * align

    def offset(self, name):
        """Byte offset of field ``name``; raises KeyError for an unknown field."""
        return self._offsets[name]

    def index(self, name):
        """Position of field ``name`` in ``fields`` (the LLVM struct element index)."""
        return [f.name for f in self.fields].index(name)


#: Per-dispatch state, shared read-only by every workgroup of one dispatch.
DISPATCH_STATE_V0 = Struct(
    "rt_dispatch_state_v0_t",
    [
        Field("workgroup_count", "u32", 3),
        Field("workgroup_size", "u32", 3),
        Field("constant_count", "u32"),
        Field("binding_count", "u32"),
        Field("constants", "ptr"),        # const uint32_t*
        Field("binding_ptrs", "ptr"),     # void* const*
        Field("binding_lengths", "ptr"),  # const uint64_t* (bytes)
    ],
)

#: Per-workgroup state: which workgroup this call computes and on which worker.
WORKGROUP_STATE_V0 = Struct(
    "rt_workgroup_state_v0_t",
    [
        Field("workgroup_id", "u32", 3),
        Field("worker_id", "u32"),      # 0 = the dispatching thread, 1.. = pool workers
        Field("processor_id", "u32"),   # logical CPU the worker ran on when it took the job
    ],
)

#: Static attributes of one export (an array of these, indexed by ordinal).
EXPORT_ATTRS_V0 = Struct(
    "rt_export_attrs_v0_t",
    [
        Field("binding_count", "u32"),
        Field("constant_count", "u32"),
        Field("workgroup_size", "u32", 3),
    ],
)

#: The descriptor returned by ``rt_library_query``.
LIBRARY_V0 = Struct(
    "rt_library_v0_t",
    [
        Field("abi_version", "u32"),
        Field("export_count", "u32"),
        Field("name", "ptr"),          # const char*
        Field("cpu_features", "ptr"),  # const char*, comma-separated "+feature" list
        Field("export_names", "ptr"),  # const char* const*
        Field("export_fns", "ptr"),    # int32_t (*const*)(const dispatch*, const workgroup*)
        Field("export_attrs", "ptr"),  # const rt_export_attrs_v0_t*
    ],
)


def status_message(code, assertions=()):
    """Human-readable meaning of a workgroup return code ``code`` (a non-zero int32);
    ``assertions``: the library's assert messages (``STATUS_ASSERTION_BASE + k``)."""
    if 0 <= code - STATUS_ASSERTION_BASE < len(assertions):
        return assertions[code - STATUS_ASSERTION_BASE]
    return STATUS_NAMES.get(code, "kernel-defined failure code")
