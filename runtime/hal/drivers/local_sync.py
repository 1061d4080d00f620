"""The ``local-sync`` driver: devices whose queue runs work inline on the calling thread.

After IREE's runtime/src/iree/hal/drivers/local_sync: no threads; a submission whose wait
fence is already reached runs before ``queue_*`` returns; otherwise it runs on the thread
that reaches the fence. Dispatches use one thread. Parameters: ``heap_capacity``.
"""
from rt.runtime.hal.driver import DeviceInfo, Driver, parse_int_param
from rt.runtime.hal.drivers.local_device import LocalDevice
from rt.runtime.hal.drivers.local_queue import InlineQueue
from rt.runtime.hal.executable_loader import device_loader, device_names
from rt.runtime.errors import RtError

HEAP_PARAM = "heap capacity in bytes, e.g. 256M; default unlimited"


def list_local_devices(driver_name):
    """DeviceInfo for every device kind, available if its loader can be imported."""
    infos = []
    for name in device_names():
        try:
            device_loader(name)
            infos.append(DeviceInfo(f"{driver_name}://{name}", driver_name, name, True))
        except RtError as error:
            infos.append(DeviceInfo(f"{driver_name}://{name}", driver_name, name, False, str(error)))
    return infos


def heap_capacity_param(params, uri):
    """The ``heap_capacity`` URI parameter in bytes, or None."""
    if "heap_capacity" not in params:
        return None
    return parse_int_param("heap_capacity", params["heap_capacity"], 0, (1 << 63) - 1,
                           f"device URI {uri!r}", suffixes=True)


class LocalSyncDriver(Driver):
    name = "local-sync"
    description = "runs work inline on the calling thread (deterministic, single-threaded)"
    parameters = {"heap_capacity": HEAP_PARAM}

    def create_device(self, device_name, params, loaders=None, uri=None):
        uri = uri or f"{self.name}://{device_name}"
        self.check_params(params, uri)
        if loaders is None:
            loaders = [device_loader(device_name)]
        return LocalDevice(self.name, device_name, uri, loaders, InlineQueue, threads=1,
                           heap_capacity=heap_capacity_param(params, uri))

    def list_devices(self):
        return list_local_devices(self.name)
