# cython: language_level=3
"""Replay of resolved command buffer commands, and the raw memory ops behind transfers.

The local command buffer resolves its commands once per set of buffer addresses into tuples
of plain ints (addresses, lengths) and bound ``dispatch`` methods; ``replay`` then runs them
with one C loop: fills and copies run in C with the GIL released, dispatches call the
executable library directly. Modelled on IREE's inline command buffer
(runtime/src/iree/hal/local/inline_command_buffer.c).

Resolved command tuples (opcodes shared with rt.runtime.hal.command_buffer):
  (0, target_address, length, pattern, pattern_length)        fill
  (1, source_address, target_address, length)                 copy
  (2, data: bytes, target_address, length)                    update
  (3, dispatch, ordinal, workgroup_count, constants, addresses, lengths)   dispatch
  (4,)                                                        execution barrier

Tracing: given a sink, ``replay`` reports a zone per command and per debug group on ``lane``,
timed with CLOCK_MONOTONIC (the clock behind ``time.perf_counter_ns`` on Linux); without one
it reads no clock at all.
"""
from libc.stdint cimport int64_t, uint8_t, uint16_t, uint32_t, uintptr_t
from libc.string cimport memcpy, memmove
from posix.time cimport CLOCK_MONOTONIC, clock_gettime, timespec

from rt.runtime.errors import InvalidArgumentError


class CommandFailure(Exception):
    """Raised by ``replay`` when command ``index`` failed; ``__cause__`` is the error."""

    def __init__(self, index):
        super().__init__(index)
        self.index = index


cdef void _fill(uint8_t* dst, size_t length, uint32_t pattern, size_t pattern_length) noexcept nogil:
    cdef uint8_t head[4]
    cdef size_t done, chunk
    if length == 0:
        return
    if pattern_length == 1:
        head[0] = <uint8_t>pattern
        for done in range(length):
            dst[done] = head[0]
        return
    if pattern_length == 2:
        (<uint16_t*>head)[0] = <uint16_t>pattern
    else:
        (<uint32_t*>head)[0] = pattern
    memcpy(dst, head, pattern_length)
    done = pattern_length
    while done < length:
        chunk = done if done < length - done else length - done
        memcpy(dst + done, dst, chunk)
        done += chunk


def fill(uintptr_t address, size_t length, uint32_t pattern, size_t pattern_length):
    """Fill ``length`` bytes at ``address`` with the little-endian ``pattern`` (1/2/4 bytes)."""
    with nogil:
        _fill(<uint8_t*>address, length, pattern, pattern_length)


def copy(uintptr_t source, uintptr_t target, size_t length):
    """memmove ``length`` bytes from ``source`` to ``target`` (addresses)."""
    with nogil:
        memmove(<void*>target, <const void*>source, length)


def update(bytes data, uintptr_t target):
    """Copy all of ``data`` to ``target`` (an address with room for len(data) bytes)."""
    cdef const char* src = data
    cdef size_t length = len(data)
    with nogil:
        memcpy(<void*>target, src, length)


cdef inline int64_t _now_ns() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return <int64_t>ts.tv_sec * 1000000000 + ts.tv_nsec


def now_ns():
    """The replay loop's clock in ns (equal to ``time.perf_counter_ns()`` on Linux)."""
    return _now_ns()


cdef int _run(tuple cmd, Py_ssize_t threads) except -1:
    cdef long kind = cmd[0]
    cdef uintptr_t a, b
    cdef size_t length, plen
    cdef uint32_t pattern
    cdef const uint8_t* src
    if kind == 3:
        counts = <tuple>cmd[3]
        if counts[0] and counts[1] and counts[2]:
            cmd[1](cmd[2], counts, cmd[4], cmd[5], cmd[6], threads)
    elif kind == 0:
        a = cmd[1]
        length = cmd[2]
        pattern = cmd[3]
        plen = cmd[4]
        with nogil:
            _fill(<uint8_t*>a, length, pattern, plen)
    elif kind == 1:
        a = cmd[1]
        b = cmd[2]
        length = cmd[3]
        with nogil:
            memmove(<void*>b, <const void*>a, length)
    elif kind == 2:
        data = <bytes>cmd[1]
        src = <const uint8_t*>(<char*>data)
        b = cmd[2]
        length = cmd[3]
        memcpy(<void*>b, src, length)
    return 0


cdef Py_ssize_t _markers(tuple markers, object sink, object lane, Py_ssize_t depth) except -1:
    for label in markers:
        if label is None:
            sink.zone_end(lane, _now_ns())
            depth -= 1
        else:
            sink.zone_begin(lane, label, _now_ns(), None)
            depth += 1
    return depth


def replay(list commands, Py_ssize_t threads, sink=None, lane=None, list zones=None):
    """Run resolved ``commands`` in order; raise ``CommandFailure(index)`` from the cause.

    sink / lane / zones: a TraceSink, its Lane and the command buffer's ``trace_zones()``
    (one ``(markers, name, args)`` per command plus the trailing markers); given a sink,
    each command and debug group is reported as a zone.
    """
    cdef Py_ssize_t i = 0, n = len(commands), depth = 0
    cdef tuple zone
    if sink is None:
        try:
            while i < n:
                _run(<tuple>commands[i], threads)
                i += 1
        except Exception as error:
            raise CommandFailure(i) from error
        return
    if zones is None or len(zones) != n + 1:
        raise InvalidArgumentError(f"replay: {n} commands need {n + 1} trace zones, got "
                                   f"{None if zones is None else len(zones)}")
    try:
        while i < n:
            zone = <tuple>zones[i]
            depth = _markers(<tuple>zone[0], sink, lane, depth)
            sink.zone_begin(lane, zone[1], _now_ns(), zone[2])
            try:
                _run(<tuple>commands[i], threads)
            except Exception as error:
                sink.zone_end(lane, _now_ns(), {"error": str(error)})
                raise
            sink.zone_end(lane, _now_ns())
            i += 1
        _markers(<tuple>(<tuple>zones[n])[0], sink, lane, depth)
    except Exception as error:
        while depth > 0:
            sink.zone_end(lane, _now_ns())
            depth -= 1
        raise CommandFailure(i) from error
