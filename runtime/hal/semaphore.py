"""Timeline semaphores: a monotonically increasing uint64 payload, or a sticky failure.

The class is C-level (``rt.runtime.hal._semaphore``: see its docstring for the semantics,
which follow ``iree_hal_semaphore_t``, and for how waits release the GIL and stay
interruptible).
"""
from rt.runtime.hal._semaphore import MAX_PAYLOAD, WAIT_SLICE_S, Semaphore, Timepoint  # noqa: F401
