"""The local drivers' timeline semaphore: host memory, waits that release the GIL.

Modelled on IREE's runtime/src/iree/hal/drivers/local_sync/sync_semaphore.c; the class is
``rt.runtime.hal.Semaphore`` (C-level, ``rt.runtime.hal._semaphore``).
"""
from rt.runtime.hal._semaphore import Semaphore as HostSemaphore  # noqa: F401
from rt.runtime.hal._semaphore import check_payload, semaphore_failure_error  # noqa: F401
