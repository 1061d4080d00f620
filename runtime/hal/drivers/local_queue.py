"""Device queues of the local drivers (C-level: ``_local_queue.pyx`` describes the ordering,
propagation, donation and tracing semantics)."""
from rt.runtime.hal.drivers._local_queue import InlineQueue, Submission, ThreadQueue  # noqa: F401
