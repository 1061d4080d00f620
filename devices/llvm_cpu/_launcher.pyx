"""Workgroup launcher: calls an llvm-cpu export once per workgroup with the GIL released.

The C side (worker_pool.h) holds the dispatch ABI structs and a process-wide pthread pool;
this module validates a dispatch's Python arguments into stack arrays and runs it. Modelled
on IREE's local executable dispatch (runtime/src/iree/hal/local/executable_library.h and the
task system's workgroup tiling): workgroups are numbered x-fastest, handed out in chunks by
an atomic counter, and the first failing workgroup stops the rest and is reported as
``DeviceError``. ``threads=1`` (or a single workgroup) runs inline on the calling thread, and
so does a dispatch (or a group of dispatches) whose estimated single-thread time, from the
compiler's cost metadata (``work_ns``), is under ``set_serial_threshold``'s bound: waking and
joining workers costs a few microseconds a dispatch, more than splitting a small one saves
(IREE's task system pays the same per dispatch; its codegen gives small dispatches few
workgroups). An export with no estimate (dynamic sizes) is split as before.

A dispatch stops between workgroups when Ctrl-C arrives (``KeyboardInterrupt`` on the main
thread, a ``DeviceError`` naming the interrupt elsewhere) or the calling thread's deadline
(``f(..., timeout=)``) passes (``DeadlineExceededError``), so one long dispatch cannot keep a
call, or the device queue behind it, from ending (issue 13).
"""

import os

from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t, uintptr_t
from libc.stdlib cimport free, malloc
from cpython.exc cimport PyErr_CheckSignals
from cpython.number cimport PyNumber_Index

from rt.devices.llvm_cpu import abi
from rt.runtime.errors import DeadlineExceededError, DeviceError, InvalidArgumentError
from rt.runtime.hal._library cimport LibraryEntry, library_dispatch_t
from rt.runtime.hal._validation cimport (DISPATCH_OK, dispatch_fault, int64_arg,
                                         raise_dispatch_fault)
from rt.runtime.vm._interp import INTERRUPT_EPOCH_ADDRESS, THREAD_DEADLINE_ADDRESS, hook_interrupts


cdef extern from "Python.h":
    long long PyLong_AsLongLongAndOverflow(object obj, int* overflow) except? -1


cdef extern from "worker_pool.h" nogil:
    enum: RT_MAX_WORKERS
    enum: RT_STATUS_INTERRUPTED
    enum: RT_STATUS_DEADLINE_EXCEEDED
    ctypedef struct rt_dispatch_state_v0_t:
        uint32_t workgroup_count[3]
        uint32_t workgroup_size[3]
        uint32_t constant_count
        uint32_t binding_count
        const uint32_t* constants
        void** binding_ptrs
        const uint64_t* binding_lengths
    ctypedef struct rt_workgroup_state_v0_t:
        uint32_t workgroup_id[3]
        uint32_t worker_id
        uint32_t processor_id
    ctypedef int32_t (*rt_dispatch_fn_t)(const rt_dispatch_state_v0_t*,
                                         const rt_workgroup_state_v0_t*) noexcept nogil
    ctypedef struct rt_pool_t:
        uint32_t worker_count
        uint64_t spin_ns
        uint64_t group_jobs
        uint64_t grouped_dispatches
    rt_pool_t rt_pool
    enum: RT_MAX_GROUP
    int32_t rt_launch(rt_dispatch_fn_t fn, const rt_dispatch_state_v0_t* state,
                      uint32_t threads, uint64_t* failed_index)
    int32_t rt_launch_group(const rt_dispatch_fn_t* fns,
                            const rt_dispatch_state_v0_t* const* states, uint32_t count,
                            uint32_t threads, uint32_t* failed_item, uint64_t* failed_index)
    void rt_pool_set_cpu_ids(const int32_t* ids, uint32_t count)
    int32_t rt_pool_worker_cpus(uint32_t index, int32_t* out, uint32_t cap)
    void rt_cancel_begin(uint64_t deadline_ns)
    int32_t rt_cancel_stopped()
    void rt_set_interrupt_epoch(void* epoch)


ctypedef long long (*DeadlineFn)() noexcept nogil
# The calling thread's deadline (ns), read through the C entry point the VM publishes.
cdef DeadlineFn _thread_deadline_ns = <DeadlineFn><uintptr_t>THREAD_DEADLINE_ADDRESS


cdef enum:
    MAX_BINDINGS = 64
    MAX_CONSTANTS = 64

cdef struct export_t:
    rt_dispatch_fn_t fn
    uint64_t work_ns
    uint32_t binding_count
    uint32_t constant_count
    uint32_t workgroup_size[3]


cdef int64_t _as_int(object value, int64_t lo, int64_t hi, str what) except? -1:
    """``value`` as a C integer in [lo, hi], else InvalidArgumentError naming ``what``."""
    cdef int overflow = 0
    cdef long long v
    if type(value) is not int:
        try:
            value = PyNumber_Index(value)
        except TypeError:
            raise InvalidArgumentError(
                f"{what}: expected an integer, got {type(value).__name__} {value!r}") from None
    v = PyLong_AsLongLongAndOverflow(value, &overflow)
    if overflow != 0 or v < lo or v > hi:
        raise InvalidArgumentError(f"{what}: {value} is out of range, expected {lo}..{hi}")
    return v


cdef uint64_t _as_u64(object value, str what) except? 0xFFFFFFFFFFFFFFFF:
    """``value`` as an unsigned 64-bit integer (addresses, byte lengths)."""
    if type(value) is not int:
        try:
            value = PyNumber_Index(value)
        except TypeError:
            raise InvalidArgumentError(
                f"{what}: expected an integer, got {type(value).__name__} {value!r}") from None
    if value < 0 or value > 0xFFFFFFFFFFFFFFFF:
        raise InvalidArgumentError(f"{what}: {value} is out of range, expected 0..2**64-1")
    return <uint64_t>value


def _check_layouts():
    """Fail the import if the C structs drifted from abi.py (the one definition of the ABI)."""
    cdef rt_dispatch_state_v0_t d
    cdef rt_workgroup_state_v0_t w
    cdef size_t base = <size_t>&d
    got = {
        "workgroup_count": <size_t>&d.workgroup_count[0] - base,
        "workgroup_size": <size_t>&d.workgroup_size[0] - base,
        "constant_count": <size_t>&d.constant_count - base,
        "binding_count": <size_t>&d.binding_count - base,
        "constants": <size_t>&d.constants - base,
        "binding_ptrs": <size_t>&d.binding_ptrs - base,
        "binding_lengths": <size_t>&d.binding_lengths - base,
    }
    base = <size_t>&w
    got_wg = {
        "workgroup_id": <size_t>&w.workgroup_id[0] - base,
        "worker_id": <size_t>&w.worker_id - base,
        "processor_id": <size_t>&w.processor_id - base,
    }
    for struct, offsets, size in ((abi.DISPATCH_STATE_V0, got, sizeof(d)),
                                  (abi.WORKGROUP_STATE_V0, got_wg, sizeof(w))):
        want = {f.name: struct.offset(f.name) for f in struct.fields}
        if want != offsets or struct.size != size:
            raise ImportError(f"{struct.name}: worker_pool.h layout {offsets} (size {size}) "
                              f"does not match abi.py {want} (size {struct.size})")
    if (abi.MAX_BINDINGS, abi.MAX_CONSTANTS, abi.MAX_WORKERS, abi.STATUS_INTERRUPTED,
            abi.STATUS_DEADLINE_EXCEEDED) != (MAX_BINDINGS, MAX_CONSTANTS, RT_MAX_WORKERS,
                                              RT_STATUS_INTERRUPTED, RT_STATUS_DEADLINE_EXCEEDED):
        raise ImportError("launcher limits do not match abi.py")


_check_layouts()


rt_set_interrupt_epoch(<void*><uintptr_t>INTERRUPT_EPOCH_ADDRESS)
hook_interrupts()


def set_spin_wait(uint64_t nanoseconds):
    """Set how long an idle worker (or a waiting caller) spins before sleeping on a futex.

    nanoseconds: 0 sleeps at once; the default is 50000 (50 us). Longer spins lower the
    latency of back-to-back dispatches but burn a core that other thread pools may want.
    """
    rt_pool.spin_ns = nanoseconds


def pin_workers(cpu_ids):
    """Pin the pool's workers to ``cpu_ids`` (IREE's ``--task_topology_cpu_ids``): worker k
    (k = 1, 2, ...) to ``cpu_ids[k % len(cpu_ids)]``; the dispatching thread, worker 0, is
    never pinned. Empty: the workers get back the CPUs the process had. The pool is
    process-wide: the last call wins. Waits for a running dispatch to end.

    Raises InvalidArgumentError for an id that is not one of this process's CPUs
    (``os.sched_getaffinity(0)``)."""
    cdef int32_t ids[RT_MAX_WORKERS + 1]
    cdef Py_ssize_t i
    allowed = os.sched_getaffinity(0)
    cpu_ids = list(cpu_ids)
    if len(cpu_ids) > RT_MAX_WORKERS + 1:
        raise InvalidArgumentError(f"pin_workers: {len(cpu_ids)} CPU ids, at most "
                                   f"{RT_MAX_WORKERS + 1}")
    for i in range(len(cpu_ids)):
        if type(cpu_ids[i]) is not int or cpu_ids[i] not in allowed:
            raise InvalidArgumentError(f"pin_workers: CPU id {cpu_ids[i]!r} is not one this "
                                       f"process may use; expected one of {sorted(allowed)}")
        ids[i] = cpu_ids[i]
    rt_pool_set_cpu_ids(ids, <uint32_t>len(cpu_ids))


def worker_cpus():
    """The CPUs each started pool worker may run on (sets of CPU numbers), worker 1 first."""
    cdef int32_t cpus[1024]
    cdef int32_t n
    cdef uint32_t i = 0
    found = []
    while True:
        n = rt_pool_worker_cpus(i, cpus, 1024)
        if n < 0:
            return found
        found.append({cpus[j] for j in range(n)})
        i += 1


def worker_count():
    """Number of pool threads started so far (the dispatching thread is not counted)."""
    return rt_pool.worker_count


cdef bint _group_dispatches = True
#: Dispatches estimated to take less than this on one thread run on the calling thread alone.
DEFAULT_SERIAL_THRESHOLD_NS = 40000
cdef uint64_t _serial_threshold_ns = DEFAULT_SERIAL_THRESHOLD_NS


def set_serial_threshold(uint64_t nanoseconds):
    """Run a dispatch (or a group of independent dispatches) whose estimated single-thread
    time is below ``nanoseconds`` on the calling thread only (0: split every dispatch over the
    device's threads, what rt did before; for A/B measurements). Returns the previous bound."""
    global _serial_threshold_ns
    previous = _serial_threshold_ns
    _serial_threshold_ns = nanoseconds
    return previous


cdef inline uint32_t _threads_for(uint64_t work_ns, uint32_t threads) noexcept nogil:
    """``threads`` capped to the pool's size, or 1 when the estimated work is known and small."""
    if threads > RT_MAX_WORKERS + 1:
        threads = RT_MAX_WORKERS + 1
    if threads == 0 or (work_ns != 0 and work_ns < _serial_threshold_ns):
        return 1
    return threads


def set_concurrent_dispatches(bint enabled):
    """Run a command buffer's dispatches between two barriers side by side as one pool job
    (True, the default) or one at a time (False: what rt did before; for A/B measurements)."""
    global _group_dispatches
    _group_dispatches = enabled


def concurrency_stats():
    """``(jobs, dispatches)``: how many pool jobs ran two or more dispatches side by side
    (a command buffer's dispatches between two barriers), and how many dispatches they held,
    since the process started."""
    return rt_pool.group_jobs, rt_pool.grouped_dispatches


cdef int32_t _dispatch_entry(void* state, uint32_t ordinal, const uint32_t* workgroup_count,
                             const uint32_t* constants, void** binding_ptrs,
                             const uint64_t* binding_lengths, uint32_t threads,
                             uint64_t* failed_workgroup) noexcept nogil:
    """The HAL's C entry (rt.runtime.hal._library): ``state`` is the launcher's export table;
    the arguments were validated when the dispatch was recorded."""
    cdef export_t* e = &(<export_t*>state)[ordinal]
    cdef rt_dispatch_state_v0_t d
    _fill_state(&d, e, workgroup_count, constants, binding_ptrs, binding_lengths)
    rt_cancel_begin(<uint64_t>_thread_deadline_ns())
    return rt_launch(e.fn, &d, _threads_for(e.work_ns, threads), failed_workgroup)


cdef inline void _fill_state(rt_dispatch_state_v0_t* d, const export_t* e,
                             const uint32_t* workgroup_count, const uint32_t* constants,
                             void** binding_ptrs, const uint64_t* binding_lengths) noexcept nogil:
    cdef int i
    for i in range(3):
        d.workgroup_count[i] = workgroup_count[i]
        d.workgroup_size[i] = e.workgroup_size[i]
    d.constant_count = e.constant_count
    d.binding_count = e.binding_count
    d.constants = constants
    d.binding_ptrs = binding_ptrs
    d.binding_lengths = binding_lengths


cdef int32_t _group_entry(const library_dispatch_t* dispatches, uint32_t count, uint32_t threads,
                          uint32_t* failed_dispatch, uint64_t* failed_workgroup) noexcept nogil:
    """The HAL's C group entry: ``count`` independent dispatches of llvm-cpu libraries run as
    jobs of up to RT_MAX_GROUP dispatches on the one pool."""
    cdef rt_dispatch_state_v0_t states[RT_MAX_GROUP]
    cdef const rt_dispatch_state_v0_t* state_ptrs[RT_MAX_GROUP]
    cdef rt_dispatch_fn_t fns[RT_MAX_GROUP]
    cdef uint32_t base = 0, k, n, failed = 0
    cdef int32_t status
    cdef const export_t* e
    cdef uint64_t work
    cdef bint known
    rt_cancel_begin(<uint64_t>_thread_deadline_ns())
    while base < count:
        n = count - base if count - base < RT_MAX_GROUP else RT_MAX_GROUP
        if not _group_dispatches:
            n = 1
        work, known = 0, True
        for k in range(n):
            e = &(<export_t*>dispatches[base + k].state)[dispatches[base + k].ordinal]
            work += e.work_ns
            known = known and e.work_ns != 0
            _fill_state(&states[k], e, dispatches[base + k].workgroup_count,
                        dispatches[base + k].constants, dispatches[base + k].binding_ptrs,
                        dispatches[base + k].binding_lengths)
            state_ptrs[k] = &states[k]
            fns[k] = e.fn
        status = rt_launch_group(fns, state_ptrs, n, _threads_for(work if known else 0, threads), &failed,
                                 failed_workgroup)
        if status != 0:
            failed_dispatch[0] = base + failed
            return status
        base += n
    return 0


cdef class Launcher:
    """Dispatches the exports of one loaded library by ordinal.

    owner: the object that keeps the code mapped (the loader's ``CodeMapping``); held for the
    launcher's lifetime. names: export names. fn_addresses: their function addresses.
    binding_counts / constant_counts: per export. workgroup_sizes: per export (x, y, z).
    assertions: the messages of the library's ``cf.assert``s (abi.STATUS_ASSERTION_BASE).
    work_ns: per export, its estimated time on one thread in ns (0 or absent: unknown).
    """

    cdef export_t* _exports
    cdef uint32_t _count
    cdef tuple _names
    cdef tuple _assertions
    cdef object _owner

    def __cinit__(self, owner, names, fn_addresses, binding_counts, constant_counts,
                  workgroup_sizes, assertions=(), work_ns=None):
        cdef Py_ssize_t i, n = len(names)
        if not (len(fn_addresses) == len(binding_counts) == len(constant_counts)
                == len(workgroup_sizes) == n) or (work_ns is not None and len(work_ns) != n):
            raise InvalidArgumentError("Launcher: per-export sequences differ in length")
        hook_interrupts()
        self._owner = owner
        self._names = tuple(names)
        self._assertions = tuple(str(a) for a in assertions)
        self._count = <uint32_t>n
        self._exports = <export_t*>malloc(max(n, 1) * sizeof(export_t))
        if self._exports == NULL:
            raise MemoryError("Launcher: out of memory for the export table")
        for i in range(n):
            if fn_addresses[i] == 0:
                raise InvalidArgumentError(f"export '{names[i]}': null function address")
            self._exports[i].fn = <rt_dispatch_fn_t><size_t>_as_u64(fn_addresses[i], "address")
            self._exports[i].work_ns = 0 if work_ns is None else _as_u64(
                work_ns[i], f"export '{names[i]}' work estimate")
            self._exports[i].binding_count = <uint32_t>_as_int(
                binding_counts[i], 0, MAX_BINDINGS, f"export '{names[i]}' binding count")
            self._exports[i].constant_count = <uint32_t>_as_int(
                constant_counts[i], 0, MAX_CONSTANTS, f"export '{names[i]}' constant count")
            for d in range(3):
                self._exports[i].workgroup_size[d] = <uint32_t>_as_int(
                    workgroup_sizes[i][d], 1, 0xFFFFFFFF, f"export '{names[i]}' workgroup size")

    def __dealloc__(self):
        free(self._exports)

    @property
    def c_dispatch(self):
        """The HAL's C dispatch entry (``LibraryEntry``) for this launcher's exports."""
        cdef LibraryEntry entry = LibraryEntry.__new__(LibraryEntry)
        entry.fn, entry.state, entry.owner = _dispatch_entry, <void*>self._exports, self
        entry.group_fn = _group_entry
        return entry

    def dispatch_error(self, ordinal, workgroup_count, status, failed):
        """The ``DeviceError`` of a dispatch whose workgroup number ``failed`` (x fastest)
        returned ``status``; ``DeadlineExceededError`` if the call's deadline stopped it. A
        dispatch stopped by Ctrl-C raises ``KeyboardInterrupt`` on the main thread (Python's
        handler runs here) and is a ``DeviceError`` naming the interrupt elsewhere."""
        cx, cy = workgroup_count[0], workgroup_count[1]
        wid = (failed % cx, failed // cx % cy, failed // cx // cy)
        where = (f"llvm-cpu dispatch of export '{self._names[ordinal]}' (ordinal {ordinal}) "
                 f"stopped before workgroup {wid} of {tuple(workgroup_count)}")
        cdef int32_t stopped = rt_cancel_stopped()  # same thread as the dispatch, just after it
        if stopped == RT_STATUS_DEADLINE_EXCEEDED:
            return DeadlineExceededError(f"{where}: the call's deadline passed")
        if stopped == RT_STATUS_INTERRUPTED:
            PyErr_CheckSignals()
            return DeviceError(f"{where}: interrupted by Ctrl-C (SIGINT); its results are undefined")
        return DeviceError(
            f"llvm-cpu dispatch of export '{self._names[ordinal]}' (ordinal {ordinal}) failed: "
            f"workgroup {wid} of {tuple(workgroup_count)} returned {status} "
            f"({abi.status_message(status, self._assertions)})")

    def dispatch(self, ordinal, workgroup_count, constants, binding_ptrs, binding_lengths,
                 threads=1):
        """Run export ``ordinal`` over ``workgroup_count`` (x, y, z) workgroups; see
        ``ExecutableLibrary.dispatch``. constants: ints in [-2**31, 2**32) (negative values are
        stored as two's complement uint32). binding_ptrs: host addresses; binding_lengths: bytes.

        Raises InvalidArgumentError for a bad ordinal, count, constant, binding or thread count;
        DeviceError naming the export and workgroup when a workgroup returns non-zero.
        """
        cdef rt_dispatch_state_v0_t state
        cdef uint32_t consts[MAX_CONSTANTS]
        cdef int64_t values[MAX_CONSTANTS]
        cdef int64_t xyz[3]
        cdef Py_ssize_t nc
        cdef int fault
        cdef void* ptrs[MAX_BINDINGS]
        cdef uint64_t lengths[MAX_BINDINGS]
        cdef uint64_t failed = 0
        cdef int32_t status
        cdef Py_ssize_t i
        cdef uint32_t nthreads
        cdef uint32_t o
        cdef export_t* e
        if self._count == 0:
            raise InvalidArgumentError("dispatch: this library has no exports")
        o = <uint32_t>_as_int(ordinal, 0, <int64_t>self._count - 1, "dispatch ordinal")
        e = &self._exports[o]
        where = f"llvm-cpu dispatch of export '{self._names[o]}'"
        counts = tuple(workgroup_count)
        if len(counts) != 3:
            raise InvalidArgumentError(f"{where}: workgroup_count must be (x, y, z), got {counts}")
        for i in range(3):
            xyz[i] = int64_arg(where, counts[i], "workgroup count")
        nc = len(constants)
        if nc == e.constant_count:
            for i in range(nc):
                values[i] = int64_arg(where, constants[i], f"push constant {i}")
        if len(binding_lengths) != len(binding_ptrs):
            raise InvalidArgumentError(f"{where}: {len(binding_ptrs)} binding pointers but "
                                       f"{len(binding_lengths)} lengths")
        fault = dispatch_fault(xyz[0], xyz[1], xyz[2], values, nc, e.constant_count,
                               len(binding_ptrs), e.binding_count)
        if fault != DISPATCH_OK:
            raise_dispatch_fault(fault, where, xyz[0], xyz[1], xyz[2], values, nc,
                                 e.constant_count, len(binding_ptrs), e.binding_count)
        for i in range(3):
            state.workgroup_count[i] = <uint32_t>xyz[i]
            state.workgroup_size[i] = e.workgroup_size[i]
        for i in range(nc):
            consts[i] = <uint32_t>(values[i] & 0xFFFFFFFF)
        for i in range(e.binding_count):
            ptrs[i] = <void*><size_t>_as_u64(binding_ptrs[i], "binding pointer")
            lengths[i] = _as_u64(binding_lengths[i], "binding length")
            if ptrs[i] == NULL and lengths[i] != 0:
                raise InvalidArgumentError(
                    f"export '{self._names[o]}' binding {i}: null pointer with length "
                    f"{lengths[i]}")
        nthreads = <uint32_t>_as_int(threads, 1, RT_MAX_WORKERS + 1, "threads")
        state.constant_count = e.constant_count
        state.binding_count = e.binding_count
        state.constants = consts
        state.binding_ptrs = ptrs
        state.binding_lengths = lengths
        rt_cancel_begin(<uint64_t>_thread_deadline_ns())
        with nogil:
            status = rt_launch(e.fn, &state, _threads_for(e.work_ns, nthreads), &failed)
        if status != 0:
            raise self.dispatch_error(o, tuple(workgroup_count), status, failed)
