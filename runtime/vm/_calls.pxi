# Calls: Python -> VM invocation (Function, _invoke: the frame stack and run loop), VM -> import
# calls (_call_import), trace and fail. Included by _interp.pyx after the generated dispatch.

cdef object _reg_value(char letter, int32_t w, int64_t* I, double* F, list R):
    if letter == b"i" or letter == b"I":
        return I[w]
    if letter == b"f" or letter == b"F":
        return F[w]
    return R[w]


cdef int _store_result(char letter, object v, int32_t w, int64_t* I, double* F, list R, str what) except -1:
    if letter == b"r":
        R[w] = _from_python(v)
        return 0
    if letter == b"i" or letter == b"I":
        bits = 32 if letter == b"i" else 64
        if type(v) is bool or not isinstance(v, int) or not -(1 << (bits - 1)) <= v < (1 << bits):
            raise _Trap(f"{what}: expected an i{bits} result (an int in [-2^{bits - 1}, 2^{bits})), got {v!r}")
        I[w] = _w32(v & 0xFFFFFFFF) if letter == b"i" else <int64_t><uint64_t>(v & 0xFFFFFFFFFFFFFFFF)
        return 0
    if not isinstance(v, (int, float)):
        raise _Trap(f"{what}: expected an {'f32' if letter == b'f' else 'f64'} result (a float), got {v!r}")
    F[w] = <float>v if letter == b"f" else <double>v
    return 0


cdef Py_ssize_t _call_import(ModuleState st, const int32_t* c, Py_ssize_t pc, int64_t* I, double* F, list R,
                             bint variadic) except -1:
    """Call import c[pc+1] with registers from the instruction's lists; returns the next pc.

    A ``NativeFunction`` target reads and writes the registers itself (no argument list).
    While a native target runs, the thread's call site is this instruction (``current_call_site``)."""
    global rt_vm_site_state, rt_vm_site_code, rt_vm_site_pc
    cdef void* outer_state = rt_vm_site_state
    cdef const int32_t* outer_code = rt_vm_site_code
    cdef Py_ssize_t outer_pc = rt_vm_site_pc
    cdef int32_t ordinal = c[pc + 1]
    cdef Py_ssize_t p = pc + 2, k, j, s, nspans = 0, nargs, nres
    cdef const int32_t* spans = NULL
    cdef ImportCall call
    entry = st.imports[ordinal]
    if entry is None:
        imp = st.module.imports[ordinal]
        raise _Trap(f"call to import {imp.name} ({imp.signature.text}), which is optional and not provided by any module")
    target = (<tuple>entry)[0]
    if variadic:
        nspans = c[p]
        spans = c + p + 1
        p += 1 + nspans
    nargs = c[p]
    cdef const int32_t* a = c + p + 1
    p += 1 + nargs
    if type(target) is NativeFunction:
        call.i, call.f, call.r = I, F, <PyObject*>R
        call.args, call.spans, call.nargs = a, spans, <int32_t>nargs
        call.nresults, call.results = c[p], c + p + 1
        rt_vm_site_state, rt_vm_site_code, rt_vm_site_pc = <void*>st, c, pc
        try:
            (<NativeFunction>target).fn((<NativeFunction>target).state, &call)
        finally:
            rt_vm_site_state, rt_vm_site_code, rt_vm_site_pc = outer_state, outer_code, outer_pc
        return p + 1 + c[p]
    sig = (<tuple>entry)[1]
    imp = st.module.imports[ordinal]
    if not variadic:
        args = [_reg_value(ord(l), a[k], I, F, R) for k, l in enumerate(sig.args)]
    else:
        args, k, s = [], 0, 0
        for item in sig.args:
            if isinstance(item, tuple):
                group = []
                for j in range(spans[s]):
                    vals = tuple(_reg_value(ord(l), a[k + i], I, F, R) for i, l in enumerate(item))
                    group.append(vals if len(item) > 1 else vals[0])
                    k += len(item)
                args.append(group)
                s += 1
            else:
                args.append(_reg_value(ord(item), a[k], I, F, R))
                k += 1
    if type(target) is Function:
        result = _invoke((<Function>target).state, (<Function>target).ordinal, args, False)
    else:
        rt_vm_site_state, rt_vm_site_code, rt_vm_site_pc = <void*>st, c, pc
        held = _suspend_held_wakes()
        try:
            result = target(*args)
        finally:
            rt_vm_site_state, rt_vm_site_code, rt_vm_site_pc = outer_state, outer_code, outer_pc
            _resume_held_wakes(held)
    nres = c[p]
    if nres == 1:
        _store_result(ord(sig.results[0]), result, c[p + 1], I, F, R, f"import {imp.name}")
    elif nres > 1:
        if not isinstance(result, (tuple, list)) or len(result) != nres:
            raise _Trap(f"import {imp.name} ({sig.text}): expected a tuple of {nres} results, got {result!r}")
        for k in range(nres):
            _store_result(ord(sig.results[k]), result[k], c[p + 1 + k], I, F, R, f"import {imp.name} result {k}")
    return p + 1 + nres


cdef Py_ssize_t _trace(ModuleState st, const int32_t* c, Py_ssize_t pc, int64_t* I, double* F, list R) except -1:
    cdef int32_t n = c[pc + 2], k, tag, idx
    if st.trace_sink is not None:
        values = []
        for k in range(n):
            tag, idx = c[pc + 3 + k] >> 24, c[pc + 3 + k] & 0xFFFFFF
            values.append(I[idx] if tag <= 1 else F[idx] if tag <= 3 else R[idx])
        st.trace_sink(st.strings[c[pc + 1]], tuple(values))
    return pc + 3 + n


cdef int _fail(ModuleState st, int64_t status, int32_t message) except -1:
    raise _Trap(f"vm.fail (status {status}): {st.strings[message]}")


cdef int _copy_args(const char* letters, Py_ssize_t n, const int32_t* src, int64_t* I, double* F, list R,
                    int64_t* CI, double* CF, list CR) except -1:
    """Copy call arguments from the caller's registers into the callee's first registers per bank."""
    cdef Py_ssize_t k, ii = 0, fi_ = 0, ri = 0
    cdef char l
    for k in range(n):
        l = letters[k]
        if l == b"i" or l == b"I":
            CI[ii] = I[src[k]]
            ii += 1
        elif l == b"f" or l == b"F":
            CF[fi_] = F[src[k]]
            fi_ += 1
        else:
            CR[ri] = R[src[k]]
            ri += 1
    return 0


cdef int _copy_results(const char* letters, Py_ssize_t n, const int32_t* src, int64_t* I, double* F, list R,
                       const int32_t* dst, int64_t* CI, double* CF, list CR) except -1:
    """Copy returned registers of the callee into the caller's result registers."""
    cdef Py_ssize_t k
    cdef char l
    for k in range(n):
        l = letters[k]
        if l == b"i" or l == b"I":
            CI[dst[k]] = I[src[k]]
        elif l == b"f" or l == b"F":
            CF[dst[k]] = F[src[k]]
        else:
            CR[dst[k]] = R[src[k]]
    return 0


cdef int _marshal_args(FnInfo* fi, object args, str fname, int64_t* I, double* F, list R) except -1:
    cdef Py_ssize_t k, ii = 0, fi_ = 0, ri = 0
    cdef char l
    if len(args) != fi.nargs:
        raise InvalidArgumentError(
            f"@{fname} takes {fi.nargs} argument{'s' if fi.nargs != 1 else ''} "
            f"(cconv 0{fi.args[:fi.nargs].decode() or 'v'}_...), got {len(args)}"
        )
    for k in range(fi.nargs):
        l, x = fi.args[k], args[k]
        if l == b"r":
            R[ri] = _from_python(x)
            ri += 1
        elif l == b"i" or l == b"I":
            bits = 32 if l == b"i" else 64
            if type(x) is not int:
                if isinstance(x, (bool, float, str, bytes)) or not hasattr(x, "__index__"):
                    raise InvalidArgumentError(f"argument {k} of @{fname}: expected i{bits} (an int), got {x!r}")
                x = x.__index__()
            if not -(1 << (bits - 1)) <= x < (1 << bits):
                raise InvalidArgumentError(
                    f"argument {k} of @{fname}: {x} does not fit i{bits}; expected [-2^{bits - 1}, 2^{bits})")
            I[ii] = _w32(x & 0xFFFFFFFF) if l == b"i" else <int64_t><uint64_t>(x & 0xFFFFFFFFFFFFFFFF)
            ii += 1
        else:
            if type(x) is not float:
                if isinstance(x, (str, bytes)) or not (isinstance(x, (int, float)) or hasattr(x, "__float__")):
                    raise InvalidArgumentError(
                        f"argument {k} of @{fname}: expected {'f32' if l == b'f' else 'f64'} (a float), got {x!r}")
                x = float(x)
            F[fi_] = <float>x if l == b"f" else <double>x
            fi_ += 1
    return 0


cdef list _stack_frames(ModuleState st, Frame* frames, Py_ssize_t depth, Py_ssize_t pc):
    out = []
    m = st.module
    for d in range(depth - 1, -1, -1):
        p = pc if d == depth - 1 else frames[d].pc
        name = m.functions[frames[d].fidx].name
        loc = m.location(frames[d].fidx, p)
        out.append(f"{loc} in @{name}" if loc is not None else f"{m.name} pc {p} in @{name}")
    return out


cdef object _annotate(object exc, list stack):
    """Attach the VM stack to an exception leaving the interpreter; returns what to raise."""
    if isinstance(exc, _Trap):
        return VMTrapError(str(exc), stack)
    if isinstance(exc, VMTrapError):
        return VMTrapError(exc.message, tuple(exc.vm_stack) + tuple(stack))
    try:
        exc.vm_stack = tuple(getattr(exc, "vm_stack", ())) + tuple(stack)
        exc.add_note("VM stack (innermost first):\n" + "\n".join("  " + f for f in stack))
    except (AttributeError, TypeError):
        pass
    return exc


cdef object _invoke(ModuleState st, int32_t fidx, object args, bint to_python):
    """Run function ``fidx`` of ``st`` with Python ``args``; returns None, a value or a tuple."""
    cdef FnInfo* fi = &st.fns[fidx]
    cdef FnInfo* cf
    cdef Py_ssize_t icap = fi.ni + 64, fcap = fi.nf + 64, fdcap = 8, depth = 0, pc = 0, k, n, base_i, base_f
    cdef int64_t* istk = <int64_t*>calloc(icap, sizeof(int64_t))
    cdef double* fstk = <double*>calloc(fcap, sizeof(double))
    cdef Frame* frames = <Frame*>malloc(fdcap * sizeof(Frame))
    cdef int64_t* I
    cdef double* F
    cdef const int32_t* c
    cdef const int32_t* cc
    cdef int op
    cdef list R, CR
    cdef list rframes
    cdef void* tmp
    if istk == NULL or fstk == NULL or frames == NULL:
        free(istk); free(fstk); free(frames)
        raise MemoryError()
    frames[0].fidx, frames[0].pc, frames[0].ibase, frames[0].fbase = fidx, 0, 0, 0
    try:
        R = [None] * fi.nr
        _marshal_args(fi, args, st.module.functions[fidx].name, istk, fstk, R)
        depth = 1
        rframes = [R]
        c, I, F = st.code + fi.offset, istk, fstk
        while True:
            op = _dispatch(st, c, I, F, R, &pc)
            if op == OP_CALL:
                cf = &st.fns[c[pc + 1]]
                _tick(st)
                if depth >= MAX_DEPTH:
                    raise _Trap(f"stack overflow in @{st.module.functions[c[pc + 1]].name}: "
                                f"call depth would exceed {MAX_DEPTH} frames (unbounded recursion?)")
                frames[depth - 1].pc = pc
                base_i, base_f = frames[depth - 1].ibase + fi.ni, frames[depth - 1].fbase + fi.nf
                if base_i + cf.ni > icap:
                    icap = 2 * (base_i + cf.ni)
                    tmp = realloc(istk, icap * sizeof(int64_t))
                    if tmp == NULL:
                        raise MemoryError()
                    istk = <int64_t*>tmp
                if base_f + cf.nf > fcap:
                    fcap = 2 * (base_f + cf.nf)
                    tmp = realloc(fstk, fcap * sizeof(double))
                    if tmp == NULL:
                        raise MemoryError()
                    fstk = <double*>tmp
                if depth >= fdcap:
                    fdcap *= 2
                    tmp = realloc(frames, fdcap * sizeof(Frame))
                    if tmp == NULL:
                        raise MemoryError()
                    frames = <Frame*>tmp
                I, F = istk + frames[depth - 1].ibase, fstk + frames[depth - 1].fbase
                memset(istk + base_i, 0, cf.ni * sizeof(int64_t))
                memset(fstk + base_f, 0, cf.nf * sizeof(double))
                CR = [None] * cf.nr
                n = c[pc + 2]
                _copy_args(cf.args, n, c + pc + 3, I, F, R, istk + base_i, fstk + base_f, CR)
                frames[depth].fidx, frames[depth].pc = c[pc + 1], 0
                frames[depth].ibase, frames[depth].fbase = base_i, base_f
                depth += 1
                rframes.append(CR)
                fi, R, I, F = cf, CR, istk + base_i, fstk + base_f
                c, pc = st.code + cf.offset, 0
            else:
                n = c[pc + 1]
                if depth == 1:
                    if n == 0:
                        return None
                    if n == 1:
                        v = _reg_value(fi.res[0], c[pc + 2], I, F, R)
                        return _to_python(v) if to_python else v
                    return tuple([_to_python(_reg_value(fi.res[k], c[pc + 2 + k], I, F, R)) if to_python
                                  else _reg_value(fi.res[k], c[pc + 2 + k], I, F, R) for k in range(n)])
                depth -= 1
                rframes.pop()
                CR = rframes[depth - 1]
                cf = &st.fns[frames[depth - 1].fidx]
                cc = st.code + cf.offset
                k = frames[depth - 1].pc
                k = k + 3 + cc[k + 2]
                _copy_results(fi.res, n, c + pc + 2, I, F, R, cc + k + 1,
                              istk + frames[depth - 1].ibase, fstk + frames[depth - 1].fbase, CR)
                fi, R, c, pc = cf, CR, cc, k + 1 + n
                I, F = istk + frames[depth - 1].ibase, fstk + frames[depth - 1].fbase
    except BaseException as e:
        if depth == 0:
            raise
        err = _annotate(e, _stack_frames(st, frames, depth, pc))
        if err is e:
            raise
        raise err from None
    finally:
        free(istk)
        free(fstk)
        free(frames)


cdef class Function:
    """An exported function bound to a Context: ``f(*args)`` runs it.

    Arguments are checked against the cconv (InvalidArgumentError naming the argument and the
    expected type); Python lists become VMLists. Returns None, a value, or a tuple; VMList
    results come back as Python lists.
    """
    cdef readonly ModuleState state
    cdef readonly int32_t ordinal
    cdef readonly str name
    cdef readonly object signature
    cdef readonly dict reflection

    def __init__(self, ModuleState state, int ordinal):
        if not 0 <= ordinal < state.nfns:
            raise InvalidArgumentError(f"function ordinal {ordinal} out of range")
        fn = state.module.functions[ordinal]
        self.state, self.ordinal = state, ordinal
        self.name = f"{state.module.name}.{fn.name}"
        self.signature, self.reflection = fn.signature, dict(fn.reflection)

    def __call__(self, *args):
        return _invoke(self.state, self.ordinal, args, True)

    def __repr__(self):
        return f"<Function {self.name} {self.signature.text}>"
