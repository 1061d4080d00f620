"""IREE status codes as the ``hal`` VM module passes them, and their mapping to rt errors.

The codes are ``iree_status_code_t`` (runtime/src/iree/base/status.h). They cross the VM
boundary as i32: ``fence.query`` and ``fence.await`` return them, ``fence.fail`` takes one.
"""
import enum

from rt.runtime.errors import (
    DeadlineExceededError,
    DeviceError,
    InvalidArgumentError,
    NotFoundError,
    ResourceExhaustedError,
    RtError,
    UnimplementedError,
)


class StatusCode(enum.IntEnum):
    """``iree_status_code_t`` values."""

    OK = 0
    CANCELLED = 1
    UNKNOWN = 2
    INVALID_ARGUMENT = 3
    DEADLINE_EXCEEDED = 4
    NOT_FOUND = 5
    ALREADY_EXISTS = 6
    PERMISSION_DENIED = 7
    RESOURCE_EXHAUSTED = 8
    FAILED_PRECONDITION = 9
    ABORTED = 10
    OUT_OF_RANGE = 11
    UNIMPLEMENTED = 12
    INTERNAL = 13
    UNAVAILABLE = 14
    DATA_LOSS = 15
    UNAUTHENTICATED = 16
    DEFERRED = 17


_CODE_OF_ERROR = (
    (InvalidArgumentError, StatusCode.INVALID_ARGUMENT),
    (DeadlineExceededError, StatusCode.DEADLINE_EXCEEDED),
    (NotFoundError, StatusCode.NOT_FOUND),
    (ResourceExhaustedError, StatusCode.RESOURCE_EXHAUSTED),
    (UnimplementedError, StatusCode.UNIMPLEMENTED),
    (DeviceError, StatusCode.ABORTED),
)


def status_code_of(error):
    """The ``StatusCode`` of exception ``error``'s root cause (its deepest ``__cause__``).

    A queue wraps failures in ``DeviceError``; the code reports what went wrong underneath,
    e.g. RESOURCE_EXHAUSTED for a queue_alloca past the heap capacity. INTERNAL for non-rt errors.
    """
    while error.__cause__ is not None:
        error = error.__cause__
    for cls, code in _CODE_OF_ERROR:
        if isinstance(error, cls):
            return code
    return StatusCode.UNKNOWN if isinstance(error, RtError) else StatusCode.INTERNAL


def status_name(code):
    """``"ABORTED"`` for 10; ``"status 99"`` for a code IREE does not define."""
    try:
        return StatusCode(code).name
    except ValueError:
        return f"status {code}"
