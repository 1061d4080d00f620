"""The ``local-task`` driver: a queue thread per device and multi-threaded dispatches.

After IREE's runtime/src/iree/hal/drivers/local_task: submissions run in order on the
device's queue thread once their wait fences are reached — or, while that thread is idle, on a
thread blocked waiting for them (it donates itself, see local_queue.ThreadQueue.donate), so a
submit-then-wait round trip needs no thread switch; each dispatch may split its workgroups
over ``threads`` workers (the executable library's launcher owns the pool).
Parameters: ``threads`` (default: the host's CPU count), ``heap_capacity``.
"""
import os

from rt.runtime.hal.driver import Driver, parse_int_param
from rt.runtime.hal.drivers.local_device import LocalDevice
from rt.runtime.hal.drivers.local_queue import ThreadQueue
from rt.runtime.hal.drivers.local_sync import HEAP_PARAM, heap_capacity_param, list_local_devices
from rt.runtime.hal.executable_loader import device_loader

MAX_THREADS = 256


class LocalTaskDriver(Driver):
    name = "local-task"
    description = "runs work on a queue thread per device, dispatches over a worker pool"
    parameters = {
        "threads": f"worker threads per dispatch, 1..{MAX_THREADS}; default the CPU count",
        "heap_capacity": HEAP_PARAM,
    }

    def create_device(self, device_name, params, loaders=None, uri=None):
        uri = uri or f"{self.name}://{device_name}"
        self.check_params(params, uri)
        threads = os.cpu_count() or 1
        if "threads" in params:
            threads = parse_int_param("threads", params["threads"], 1, MAX_THREADS,
                                      f"device URI {uri!r}")
        if loaders is None:
            loaders = [device_loader(device_name)]
        return LocalDevice(self.name, device_name, uri, loaders, ThreadQueue, threads=threads,
                           heap_capacity=heap_capacity_param(params, uri))

    def list_devices(self):
        return list_local_devices(self.name)
