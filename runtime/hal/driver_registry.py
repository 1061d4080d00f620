"""The driver registry: device URIs to devices, and the listing behind ``python -m rt devices``.

After IREE's runtime/src/iree/hal/driver_registry.h and its device URI convention
(``driver://device?key=value&...``): ``create_device("local-task://llvm-cpu?threads=2")``.
"""
import urllib.parse

from rt.runtime.errors import InvalidArgumentError, NotFoundError
from rt.runtime.hal.drivers.local_sync import LocalSyncDriver
from rt.runtime.hal.drivers.local_task import LocalTaskDriver
from rt.runtime.hal.executable_loader import device_names

_DRIVERS = {d.name: d for d in (LocalSyncDriver(), LocalTaskDriver())}


def list_drivers():
    """Every registered ``Driver``."""
    return tuple(_DRIVERS.values())


def get_driver(name):
    """The driver called ``name``; ``NotFoundError`` listing the registered ones."""
    driver = _DRIVERS.get(name)
    if driver is None:
        raise NotFoundError(f"unknown HAL driver {name!r}; registered drivers: "
                            + ", ".join(_DRIVERS))
    return driver


def parse_device_uri(uri):
    """Split ``driver://device?k=v&...`` into ``(driver, device, {k: v})``.

    Raises ``InvalidArgumentError`` for a malformed URI, naming the expected form.
    """
    if not isinstance(uri, str) or "://" not in uri:
        raise InvalidArgumentError(
            f"device URI {uri!r} is not of the form driver://device[?key=value&...]; e.g. "
            "local-sync://llvm-cpu, local-task://vmvx?threads=2 (drivers: "
            + ", ".join(_DRIVERS) + "; devices: " + ", ".join(device_names()) + ")"
        )
    driver, rest = uri.split("://", 1)
    device, _, query = rest.partition("?")
    if not device:
        raise InvalidArgumentError(f"device URI {uri!r} names no device; expected "
                                   f"{driver}://<device> with device one of "
                                   + ", ".join(device_names()))
    params = {}
    for key, value in urllib.parse.parse_qsl(query, keep_blank_values=True, strict_parsing=False):
        if key in params:
            raise InvalidArgumentError(f"device URI {uri!r}: parameter {key!r} given twice")
        params[key] = value
    if query and not params:
        raise InvalidArgumentError(f"device URI {uri!r}: cannot parse parameters {query!r}; "
                                   "expected key=value pairs joined by '&'")
    return driver, device, params


def create_device(uri, loaders=None):
    """Create a new device for ``uri`` (each call: a fresh device with its own heap/queue).

    loaders: optional list of ``ExecutableLoader`` replacing the device package's loader.
    Raises ``NotFoundError`` (unknown driver/device) or ``InvalidArgumentError`` (bad
    parameter), each listing the valid choices; ``UnimplementedError`` if the device
    package cannot be loaded.
    """
    driver_name, device_name, params = parse_device_uri(uri)
    driver = get_driver(driver_name)
    if loaders is None and device_name not in device_names():
        raise NotFoundError(f"device URI {uri!r}: unknown device {device_name!r}; known "
                            "devices: " + ", ".join(device_names()))
    return driver.create_device(device_name, params, loaders=loaders, uri=uri)


def list_devices():
    """``DeviceInfo`` of every device of every driver (available or not, with the reason)."""
    return [info for driver in _DRIVERS.values() for info in driver.list_devices()]


def format_device_table():
    """The text ``python -m rt devices`` prints: drivers, their parameters and devices."""
    lines = []
    for driver in _DRIVERS.values():
        lines.append(f"{driver.name}: {driver.description}")
        for key, text in driver.parameters.items():
            lines.append(f"    ?{key}=...  {text}")
        for info in driver.list_devices():
            state = "available" if info.available else f"unavailable: {info.reason}"
            lines.append(f"  {info.uri:<28} {state}")
    return "\n".join(lines) + "\n"
