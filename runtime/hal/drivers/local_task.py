"""The ``local-task`` driver: a queue thread per device and multi-threaded dispatches.

After IREE's runtime/src/iree/hal/drivers/local_task: submissions run in order on the
device's queue thread once their wait fences are reached — or, while that thread is idle, on a
thread blocked waiting for them (it donates itself, see local_queue.ThreadQueue.donate), so a
submit-then-wait round trip needs no thread switch; each dispatch may split its workgroups
over ``threads`` workers (the executable library's launcher owns the pool).
Parameters (IREE's ``--task_topology_*`` flags, as rt's run/benchmark take them, map here):

* ``threads`` (``--task_topology_group_count``): workers per dispatch, the calling thread
  included; default the CPUs this process may use (``os.sched_getaffinity``), at most
  ``max_threads``, or the number of ``cpu_ids``;
* ``max_threads`` (``--task_topology_max_group_count``): the cap on that default;
* ``cpu_ids`` (``--task_topology_cpu_ids``): CPUs, comma-separated, the workers are pinned to
  in order (the loaders' ``pin_workers``; llvm-cpu's pool is process-wide). Without it
  nothing is pinned;
* ``heap_capacity``.
"""
import os

from rt.runtime.errors import InvalidArgumentError
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
        "threads": f"worker threads per dispatch, 1..{MAX_THREADS}; default the CPUs this "
                   "process may use (at most max_threads) or the count of cpu_ids",
        "max_threads": f"cap on the default thread count, 1..{MAX_THREADS}",
        "cpu_ids": "comma-separated CPU numbers the workers are pinned to; default none",
        "heap_capacity": HEAP_PARAM,
    }

    def create_device(self, device_name, params, loaders=None, uri=None):
        uri = uri or f"{self.name}://{device_name}"
        self.check_params(params, uri)
        where = f"device URI {uri!r}"
        cpu_ids = cpu_ids_param(params["cpu_ids"], where) if "cpu_ids" in params else None
        threads = len(os.sched_getaffinity(0)) if cpu_ids is None else len(cpu_ids)
        if "max_threads" in params:
            threads = min(threads, parse_int_param("max_threads", params["max_threads"], 1,
                                                   MAX_THREADS, where))
        threads = max(1, min(threads, MAX_THREADS))
        if "threads" in params:
            threads = parse_int_param("threads", params["threads"], 1, MAX_THREADS, where)
        if loaders is None:
            loaders = [device_loader(device_name)]
        if cpu_ids is not None:
            for loader in loaders:
                loader.pin_workers(cpu_ids)
        return LocalDevice(self.name, device_name, uri, loaders, ThreadQueue, threads=threads,
                           heap_capacity=heap_capacity_param(params, uri))

    def list_devices(self):
        return list_local_devices(self.name)


def cpu_ids_param(text, where):
    """The CPU ids of a ``cpu_ids=0,2,4`` parameter: distinct CPUs this process may use."""
    allowed = os.sched_getaffinity(0)
    try:
        ids = [int(part) for part in str(text).split(",")]
    except ValueError:
        ids = None
    if not ids or len(set(ids)) != len(ids) or not set(ids) <= allowed:
        raise InvalidArgumentError(
            f"{where}: parameter cpu_ids={text!r} must list distinct CPUs this process may use, "
            f"comma-separated, from {sorted(allowed)}")
    return ids
