# cython: language_level=3
"""The bytecode interpreter (Cython): register banks, explicit frame stack, import calls.

Registers per frame: an int64 bank (i32 values kept sign-extended), a double bank (f32 values
stored as exact floats) and a ref bank (a Python list; None is null). Frames live on an
explicit stack (no C recursion for bytecode -> bytecode calls) limited to MAX_DEPTH.
The inner loop is generated from isa.yaml (_generated/dispatch.pxi). Runs with the GIL held
(refs are Python objects); the numeric core is plain C.
Source: iree/vm/bytecode/dispatch.c (register banks, call/return protocol, traps).

Errors: VM traps (fail, integer division by zero, out-of-bounds buffer/list access, stores to a
read-only buffer, stack overflow, bad native results) raise VMTrapError with the VM stack,
innermost first (``file:line:col in @function``); exceptions from native functions keep their type and get
the stack as ``exc.vm_stack`` plus a note.
"""
from cpython.buffer cimport (PyBUF_READ, PyBUF_SIMPLE, PyBUF_WRITABLE, PyBUF_WRITE, PyBuffer_Release,
                             PyObject_GetBuffer)
from cpython.memoryview cimport PyMemoryView_FromMemory
from libc.math cimport (INFINITY, NAN, acos, acosf, acosh, acoshf, asin, asinf, asinh, asinhf, atan, atan2,
                        atan2f, atanf, atanh, atanhf, cbrt, cbrtf, ceil, ceilf, copysign, copysignf, cos, cosf,
                        cosh, coshf, erf, erfc, erfcf, erff, exp, exp2, exp2f, expf, expm1, expm1f, fabs, fabsf,
                        floor, floorf, fma, fmaf, fmod, fmodf, frexp, isnan, ldexp, log, log1p, log1pf, log2,
                        log2f, log10, log10f, logf, pow, powf, rint, rintf, round, roundf, signbit, sin, sinf,
                        sinh, sinhf, sqrt, sqrtf, tan, tanf, tanh, tanhf, trunc, truncf)
from libc.stdint cimport (INT64_MAX, INT64_MIN, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t,
                          uint64_t, uintptr_t)
from cpython.exc cimport PyErr_CheckSignals
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memcpy, memset
from posix.time cimport CLOCK_MONOTONIC, clock_gettime, timespec

from cpython.ref cimport PyObject

import threading

import _signal  # signal's C core: signal.py's enum tables cost a run's start ~1 ms

from rt.runtime.errors import DeadlineExceededError, InvalidArgumentError, VMTrapError
from rt.runtime.vm._native cimport ImportCall, NativeFunction

cdef extern from *:
    """
    #include <stdint.h>
    /* math.ctlz / cttz / ctpop: defined for 0 (the bit width). */
    static inline int64_t rt_vm_ctlz32(uint32_t x) { return x ? __builtin_clz(x) : 32; }
    static inline int64_t rt_vm_cttz32(uint32_t x) { return x ? __builtin_ctz(x) : 32; }
    static inline int64_t rt_vm_ctpop32(uint32_t x) { return __builtin_popcount(x); }
    static inline int64_t rt_vm_ctlz64(uint64_t x) { return x ? __builtin_clzll(x) : 64; }
    static inline int64_t rt_vm_cttz64(uint64_t x) { return x ? __builtin_ctzll(x) : 64; }
    static inline int64_t rt_vm_ctpop64(uint64_t x) { return __builtin_popcountll(x); }
    """
    int64_t rt_vm_ctlz32(uint32_t x)
    int64_t rt_vm_cttz32(uint32_t x)
    int64_t rt_vm_ctpop32(uint32_t x)
    int64_t rt_vm_ctlz64(uint64_t x)
    int64_t rt_vm_cttz64(uint64_t x)
    int64_t rt_vm_ctpop64(uint64_t x)


cdef extern from *:
    """
    #include <signal.h>
    #include <stdatomic.h>
    /* SIGINTs seen since hook_interrupts (see there): work that started in an older epoch
       (an llvm-cpu or vmvx dispatch) stops. */
    static _Atomic unsigned long long rt_vm_interrupt_epoch = 0;
    static struct sigaction rt_vm_sigint_previous;
    static void rt_vm_sigint_handler(int sig, siginfo_t* info, void* context) {
      if (rt_vm_sigint_previous.sa_flags & SA_SIGINFO) {
        rt_vm_sigint_previous.sa_sigaction(sig, info, context);
      } else if (rt_vm_sigint_previous.sa_handler != SIG_DFL &&
                 rt_vm_sigint_previous.sa_handler != SIG_IGN) {
        rt_vm_sigint_previous.sa_handler(sig);
      }
      /* After the previous handler, so that Python has the signal when work stops. */
      atomic_fetch_add(&rt_vm_interrupt_epoch, 1);
    }
    static int rt_vm_hook_sigint(void) {
      struct sigaction current, ours;
      if (sigaction(SIGINT, NULL, &current) != 0) return 0;
      if ((current.sa_flags & SA_SIGINFO) && current.sa_sigaction == rt_vm_sigint_handler) return 1;
      if (!(current.sa_flags & SA_SIGINFO) &&
          (current.sa_handler == SIG_DFL || current.sa_handler == SIG_IGN)) return 0;
      rt_vm_sigint_previous = current;
      ours = current;
      ours.sa_sigaction = rt_vm_sigint_handler;
      ours.sa_flags |= SA_SIGINFO;
      return sigaction(SIGINT, &ours, NULL) == 0;
    }
    static unsigned long long rt_vm_interrupts(void) { return atomic_load(&rt_vm_interrupt_epoch); }
    /* The calling thread's deadline (CLOCK_MONOTONIC ns, 0 = none), see set_thread_deadline. */
    static __thread long long rt_vm_deadline_ns = 0;
    /* The call.import whose native function runs on this thread (NULL state: none), see
       current_call_site: the caller's ModuleState (borrowed), its function's code, the pc. */
    static __thread void* rt_vm_site_state = 0;
    static __thread const int32_t* rt_vm_site_code = 0;
    static __thread Py_ssize_t rt_vm_site_pc = 0;
    """
    long long rt_vm_deadline_ns
    unsigned long long rt_vm_interrupt_epoch
    int rt_vm_hook_sigint()
    unsigned long long rt_vm_interrupts()
    void* rt_vm_site_state
    const int32_t* rt_vm_site_code
    Py_ssize_t rt_vm_site_pc

#: Maximum number of live bytecode frames per invocation.
MAX_DEPTH = 1024


class _Trap(Exception):
    """Internal: a VM trap raised inside the interpreter, turned into VMTrapError with the stack."""


ctypedef struct FnInfo:
    int32_t offset
    int32_t ni, nf, nr
    int32_t nargs, nres
    const char* args
    const char* res


ctypedef struct Frame:
    int32_t fidx
    Py_ssize_t pc, ibase, fbase


cdef inline int64_t _w32(int64_t x):
    return <int64_t><int32_t><uint32_t>x


cdef inline int64_t _imm64(const int32_t* c, Py_ssize_t p):
    return <int64_t>((<uint64_t><uint32_t>c[p]) | ((<uint64_t><uint32_t>c[p + 1]) << 32))


cdef inline float _bits_to_f32(uint32_t b):
    cdef float f
    memcpy(&f, &b, 4)
    return f


cdef inline uint32_t _f32_to_bits(float f):
    cdef uint32_t b
    memcpy(&b, &f, 4)
    return b


cdef inline double _bits_to_f64(uint64_t b):
    cdef double f
    memcpy(&f, &b, 8)
    return f


cdef inline uint64_t _f64_to_bits(double f):
    cdef uint64_t b
    memcpy(&b, &f, 8)
    return b


cdef inline float _immf32(int32_t w):
    return _bits_to_f32(<uint32_t>w)


cdef inline double _immf64(const int32_t* c, Py_ssize_t p):
    return _bits_to_f64(<uint64_t>_imm64(c, p))


cdef inline double _f16_bits_to_f64(uint16_t h):
    """IEEE binary16 bits -> the exact double value."""
    cdef int e = (h >> 10) & 0x1F
    cdef int m = h & 0x3FF
    cdef double v
    if e == 0:
        v = ldexp(<double>m, -24)
    elif e == 31:
        v = NAN if m else INFINITY
    else:
        v = ldexp(<double>(m + 1024), e - 25)
    return -v if h & 0x8000 else v


cdef inline uint16_t _f64_to_f16_bits(double x):
    """A double rounded to the nearest binary16 (ties to even; overflow to inf; NaN kept quiet)."""
    cdef uint16_t sign = 0x8000 if signbit(x) else 0
    cdef double a = fabs(x), m
    cdef int e
    if isnan(x):
        return sign | 0x7E00
    if a >= 65520.0:
        return sign | 0x7C00
    if a < 6.103515625e-05:
        return sign | <uint16_t>rint(a * 16777216.0)
    frexp(a, &e)
    m = rint(ldexp(a, 11 - e))
    e -= 1
    if m == 2048.0:
        m = 1024.0
        e += 1
    if e > 15:
        return sign | 0x7C00
    return sign | <uint16_t>((e + 15) << 10) | <uint16_t>(<int>m - 1024)


cdef int _div_trap(int64_t a, int64_t b, str name) except -1:
    if b == 0:
        raise _Trap(f"{name}: integer division by zero ({a} / 0)")
    raise _Trap(f"{name}: integer overflow ({a} / {b} is not representable)")


cdef inline int _check_sdiv(int64_t a, int64_t b, int64_t mn, str name) except -1:
    if b == 0 or (b == -1 and a == mn):
        return _div_trap(a, b, name)
    return 0


cdef inline int _check_udiv(uint64_t b, str name) except -1:
    if b == 0:
        return _div_trap(0, 0, name)
    return 0


cdef inline int64_t _ceildiv_s(int64_t a, int64_t b):
    cdef int64_t q = a / b
    cdef int64_t r = a % b
    if r != 0 and ((r > 0) == (b > 0)):
        q += 1
    return q


cdef inline double _fminimum(double a, double b):
    if isnan(a) or isnan(b):
        return a + b
    if a == b:
        return a if signbit(a) else b
    return a if a < b else b


cdef inline double _fmaximum(double a, double b):
    if isnan(a) or isnan(b):
        return a + b
    if a == b:
        return b if signbit(a) else a
    return a if a > b else b


cdef inline int64_t _f_to_si32(double x):
    if isnan(x):
        return 0
    if x >= 2147483647.0:
        return 2147483647
    if x <= -2147483648.0:
        return -2147483648
    return <int32_t>x


cdef inline int64_t _f_to_ui32(double x):
    if isnan(x) or x <= 0.0:
        return 0
    if x >= 4294967295.0:
        return -1
    return _w32(<uint32_t>x)


cdef inline int64_t _f_to_si64(double x):
    if isnan(x):
        return 0
    if x >= 9223372036854775807.0:
        return INT64_MAX
    if x <= -9223372036854775808.0:
        return INT64_MIN
    return <int64_t>x


cdef inline int64_t _f_to_ui64(double x):
    if isnan(x) or x <= 0.0:
        return 0
    if x >= 18446744073709551615.0:
        return -1
    return <int64_t><uint64_t>x


cdef inline Py_ssize_t _switch_target(const int32_t* c, Py_ssize_t pc, int64_t index):
    cdef int32_t n = c[pc + 3]
    if 0 <= index < n:
        return c[pc + 4 + index]
    return c[pc + 2]


#: Backward branches and calls between two checks for pending signals and the deadline.
POLL_INTERVAL = 1024
cdef int32_t _POLL_INTERVAL = POLL_INTERVAL


cdef inline long long _now_ns() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec * 1000000000LL + ts.tv_nsec


cdef int _slow_tick(ModuleState st) except -1:
    """Every ``st.chunk`` backward branches and calls: charge them to the fuel budget (trap
    when it runs out), let other threads take the GIL, run pending signal handlers (Ctrl-C
    raises KeyboardInterrupt here, on the main thread) and raise DeadlineExceededError past
    the thread's deadline. One counter serves all of them, so a bytecode loop stays
    interruptible for the price of a decrement.
    Source: the interrupt checks of CPython's eval loop (``_Py_HandlePending``)."""
    if st.fuel_left >= 0:
        st.fuel_left -= st.chunk
        if st.fuel_left < 0:
            st.fuel_left = 0
            st.rearm()
            raise _Trap("execution budget exhausted (Context.fuel: backward branches and calls)")
    st.rearm()
    with nogil:
        pass  # let threads waiting for the GIL run (timers, async calls, queue threads)
    if PyErr_CheckSignals() < 0:
        return -1
    if rt_vm_deadline_ns and _now_ns() >= rt_vm_deadline_ns:
        raise DeadlineExceededError("the call's deadline passed while running bytecode "
                                    "(timeout= of the call)")
    return 0


cdef inline int _tick(ModuleState st) except -1:
    """Count one backward branch or call (see _slow_tick)."""
    st.countdown -= 1
    if st.countdown == 0:
        return _slow_tick(st)
    return 0


cdef inline Py_ssize_t _jump(ModuleState st, Py_ssize_t pc, Py_ssize_t target) except -1:
    if target <= pc:
        _tick(st)
    return target


def set_thread_deadline(deadline):
    """Set the calling thread's deadline for bytecode: ``time.monotonic()`` seconds, or None.

    Interpreters running on this thread (host functions and vmvx dispatches run inline) raise
    ``DeadlineExceededError`` at their next poll past it. Returns the previous deadline, so a
    caller can restore it.
    """
    global rt_vm_deadline_ns
    previous = thread_deadline()
    rt_vm_deadline_ns = 0 if deadline is None else max(1, <long long>(deadline * 1e9))
    return previous


def thread_deadline():
    """The calling thread's deadline (``time.monotonic()`` seconds), or None."""
    return None if rt_vm_deadline_ns == 0 else rt_vm_deadline_ns / 1e9


# -- queue wake-ups a thread holds back ----------------------------------------------------------
# A thread making a synchronous call (an SPMD rank's, rt._call ``invoke_untimed``) holds back
# the wake-up of a local-task queue thread it submits to (rt.runtime.hal.drivers._local_queue
# ``ThreadQueue``): the call waits for that work, and waiting, the thread runs it itself
# (``donate``), so the queue thread never wakes. It wakes the queues it held before it
# blocks in a HAL wait (rt.runtime.hal._semaphore ``Waiter.block``), when the call ends, and
# before a Python import runs (which may wait by other means); Python imports hold nothing.
_holding = threading.local()


def held_wakes():
    """The list of queues whose wake-up the calling thread holds back, or None."""
    return getattr(_holding, "queues", None)


def hold_wakes():
    """Start holding back the calling thread's queue wake-ups; returns the state before, for
    ``end_held_wakes``."""
    before = getattr(_holding, "queues", None)
    _holding.queues = []
    return before


def release_held_wakes():
    """Wake every queue the calling thread holds back (``queue.wake_held()``), holding on."""
    queues = getattr(_holding, "queues", None)
    if queues:
        woken = list(queues)
        queues.clear()
        for queue in woken:
            queue.wake_held()


def end_held_wakes(before):
    """Wake the queues held since ``hold_wakes()`` and restore the state before it."""
    try:
        release_held_wakes()
    finally:
        _holding.queues = before


cdef object _suspend_held_wakes():
    """Around a Python import: wake what is held, hold nothing; returns what to restore."""
    queues = getattr(_holding, "queues", None)
    if queues is not None:
        release_held_wakes()
        _holding.queues = None
    return queues


cdef inline void _resume_held_wakes(object queues):
    """After a Python import: hold again what ``_suspend_held_wakes`` returned."""
    if queues is not None:
        _holding.queues = queues


cdef long long _thread_deadline_ns() noexcept nogil:
    """C entry point for other extensions (the llvm-cpu launcher): the calling thread's
    deadline in CLOCK_MONOTONIC nanoseconds, 0 for none. Shared as the integer address
    THREAD_DEADLINE_ADDRESS (extensions cannot cimport each other here)."""
    return rt_vm_deadline_ns


THREAD_DEADLINE_ADDRESS = <uintptr_t>&_thread_deadline_ns


def hook_interrupts():
    """Count SIGINTs so that running dispatches can stop (``interrupt_epoch``): chain a C
    handler in front of Python's while Python's is ``signal.default_int_handler`` (Ctrl-C
    raises KeyboardInterrupt). A later ``signal.signal(SIGINT, ...)`` replaces both, so a
    program handling SIGINT itself keeps its work running. Returns whether the hook is in
    place; the VM calls it when it loads, the device libraries when they load."""
    if _signal.getsignal(_signal.SIGINT) is not _signal.default_int_handler:
        return False
    return rt_vm_hook_sigint() == 1


def interrupt_epoch():
    """How many SIGINTs the hook has seen (work that began at another count was interrupted)."""
    return rt_vm_interrupts()


#: Address of the SIGINT count (a C11 ``_Atomic unsigned long long``) for other extensions.
INTERRUPT_EPOCH_ADDRESS = <uintptr_t>&rt_vm_interrupt_epoch
hook_interrupts()


include "_values.pxi"
include "_small_float.pxi"


cdef class ModuleState:
    """Per-context state of one bytecode module: globals, rodata refs, resolved imports, code."""
    cdef readonly object module
    cdef public object trace_sink
    cdef int64_t fuel_left
    cdef int32_t countdown, chunk
    cdef int64_t* gi
    cdef double* gf
    cdef int32_t n_gi32, n_gf32
    cdef list grefs
    cdef list rodata
    cdef list imports
    cdef list strings
    cdef int32_t* code
    cdef FnInfo* fns
    cdef int32_t nfns
    cdef list _keep

    def __cinit__(self, module):
        self.module = module
        self.fuel_left = -1
        self.rearm()
        g = module.globals
        self.n_gi32, self.n_gf32 = len(g["i32"]), len(g["f32"])
        self.gi = <int64_t*>calloc(len(g["i32"]) + len(g["i64"]) + 1, sizeof(int64_t))
        self.gf = <double*>calloc(len(g["f32"]) + len(g["f64"]) + 1, sizeof(double))
        nfn = len(module.functions)
        self.fns = <FnInfo*>calloc(nfn + 1, sizeof(FnInfo))
        total = sum(len(f.code) for f in module.functions) // 4
        self.code = <int32_t*>malloc((total + 1) * sizeof(int32_t))
        if self.gi == NULL or self.gf == NULL or self.fns == NULL or self.code == NULL:
            raise MemoryError()
        for k, (_, v) in enumerate(g["i32"] + g["i64"]):
            self.gi[k] = _w32(v & 0xFFFFFFFF) if k < self.n_gi32 else <int64_t><uint64_t>(v & 0xFFFFFFFFFFFFFFFF)
        for k, (_, v) in enumerate(g["f32"] + g["f64"]):
            self.gf[k] = <float>v if k < self.n_gf32 else v
        self.grefs = [None] * len(g["ref"])
        self.rodata = [VMBuffer(r.data, r.name) for r in module.rodata]
        for e in module.executables:
            (<VMBuffer>self.rodata[e.rodata]).metadata = e.metadata
        self.strings = list(module.strings)
        self.imports = [None] * len(module.imports)
        self._keep = []
        cdef Py_ssize_t off = 0
        cdef bytes code
        self.nfns = nfn
        for k, f in enumerate(module.functions):
            code = bytes(f.code)
            memcpy(self.code + off, <const char*>code, len(code))
            args = "".join(f.signature.args).encode()
            res = "".join(f.signature.results).encode()
            self._keep += [args, res]
            self.fns[k].offset = off
            self.fns[k].ni, self.fns[k].nf, self.fns[k].nr = f.registers
            self.fns[k].nargs, self.fns[k].nres = len(args), len(res)
            self.fns[k].args, self.fns[k].res = <const char*>args, <const char*>res
            off += len(code) // 4

    def __dealloc__(self):
        free(self.gi)
        free(self.gf)
        free(self.fns)
        free(self.code)

    cdef void rearm(self) noexcept:
        """Next slow tick after POLL_INTERVAL events, or right after the last unit of fuel."""
        self.chunk = _POLL_INTERVAL
        if 0 <= self.fuel_left < _POLL_INTERVAL:
            self.chunk = <int32_t>self.fuel_left + 1
        self.countdown = self.chunk

    @property
    def fuel(self):
        """Backward branches and calls left before a trap, or -1 for unlimited."""
        if self.fuel_left < 0:
            return -1
        return max(self.fuel_left - (self.chunk - self.countdown), 0)

    @fuel.setter
    def fuel(self, int64_t budget):
        self.fuel_left = -1 if budget < 0 else budget
        self.rearm()

    def bind_import(self, int ordinal, target, signature):
        """Resolve import ``ordinal`` to a Function, a bound native method or a
        ``NativeFunction`` (C, rt.runtime.vm._native); None: absent."""
        if not 0 <= ordinal < len(self.imports):
            raise InvalidArgumentError(f"import ordinal {ordinal} out of range")
        self.imports[ordinal] = None if target is None else (target, signature)

    def ref_globals(self):
        """The live list of this module's ref globals (by ordinal; stores replace items, the
        list itself stays): the Python call path reads it to keep results from aliasing them."""
        return self.grefs

    def global_value(self, str bank, int ordinal):
        """Current value of a global of ``bank`` (i32 i64 f32 f64 ref) by ordinal."""
        if not 0 <= ordinal < len(self.module.globals.get(bank, ())):
            raise InvalidArgumentError(f"no {bank} global with ordinal {ordinal} in module {self.module.name}")
        if bank == "i32":
            return self.gi[ordinal]
        if bank == "i64":
            return self.gi[self.n_gi32 + ordinal]
        if bank == "f32":
            return self.gf[ordinal]
        if bank == "f64":
            return self.gf[self.n_gf32 + ordinal]
        return self.grefs[ordinal]


cdef class CallSite:
    """Where bytecode called a native function (``current_call_site``): ``str()`` gives
    ``file:line:col in @function`` (``module pc N in @function`` without locations)."""
    cdef ModuleState state
    cdef Py_ssize_t offset, pc

    cdef Py_ssize_t _function(self):
        for k in range(self.state.nfns):
            if self.state.fns[k].offset == self.offset:
                return k
        return -1

    def __str__(self):
        m = self.state.module
        k = self._function()
        if k < 0:
            return f"{m.name} pc {self.pc}"
        name, loc = m.functions[k].name, m.location(k, self.pc)
        return f"{loc} in @{name}" if loc is not None else f"{m.name} pc {self.pc} in @{name}"

    def replayed_by(self, CallSite caller):
        """This site as seen from ``caller``, the call that submitted a command buffer recorded
        here (IREE's memoized command buffers are recorded in an initializer and replayed by the
        function the user called): ``file:line:col in @caller_fn`` — the op's own location and
        the caller's function; ``module pc N in @initializer (replayed by @caller_fn)`` when
        there are no locations. Same as ``str(self)`` when both are in one function."""
        k, j = self._function(), caller._function()
        if k < 0 or j < 0 or caller.state is not self.state or k == j:
            return str(self)
        m = self.state.module
        name, loc = m.functions[j].name, m.location(k, self.pc)
        if loc is not None:
            return f"{loc} in @{name}"
        return f"{m.name} pc {self.pc} in @{m.functions[k].name} (replayed by @{name})"

    def __repr__(self):
        return f"<CallSite {self}>"


def current_call_site():
    """The ``CallSite`` of the ``call.import`` whose native function runs on this thread, or
    None outside one. The HAL records it with each dispatch, so that a failed dispatch names
    the op that dispatched it (``file:line:col in @fn``)."""
    if rt_vm_site_state == NULL:
        return None
    cdef CallSite site = CallSite.__new__(CallSite)
    site.state = <ModuleState>rt_vm_site_state
    site.offset, site.pc = rt_vm_site_code - site.state.code, rt_vm_site_pc
    return site


include "_generated/dispatch.pxi"
include "_calls.pxi"
