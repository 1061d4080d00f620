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
"""
from libc.stdint cimport uint8_t, uint16_t, uint32_t, uintptr_t
from libc.string cimport memcpy, memmove


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


def replay(list commands, Py_ssize_t threads):
    """Run resolved ``commands`` in order; raise ``CommandFailure(index)`` from the cause."""
    cdef Py_ssize_t i = 0, n = len(commands)
    cdef tuple cmd
    cdef long kind
    cdef uintptr_t a, b
    cdef size_t length, plen
    cdef uint32_t pattern
    cdef const uint8_t* src
    try:
        while i < n:
            cmd = <tuple>commands[i]
            kind = cmd[0]
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
            i += 1
    except Exception as error:
        raise CommandFailure(i) from error
