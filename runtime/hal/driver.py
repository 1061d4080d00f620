"""Drivers: factories of devices, named by the scheme of a device URI.

Follows ``iree_hal_driver_t`` (runtime/src/iree/hal/driver.h): a driver enumerates the devices
it can create and creates one from a name plus parameters. ``local-sync://llvm-cpu`` is the
driver ``local-sync`` creating device ``llvm-cpu``; the URI query holds parameters
(``?threads=2&heap_capacity=64M``), each validated by the driver.
"""
import abc

from rt.runtime.errors import InvalidArgumentError
from rt.runtime.record import Record

_SUFFIXES = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


class DeviceInfo(Record):
    """One creatable device: ``uri``; ``available`` False with ``reason`` when it is not."""

    __slots__ = ("uri", "driver", "device", "available", "reason")
    _defaults = {"reason": None}


def parse_int_param(name, text, minimum, maximum, where, suffixes=False):
    """Parse URI parameter ``name`` (``"64M"`` allowed if ``suffixes``) in [minimum, maximum]."""
    raw = str(text).strip()
    scale = 1
    if suffixes and raw[-1:].upper() in _SUFFIXES:
        scale, raw = _SUFFIXES[raw[-1].upper()], raw[:-1]
    try:
        value = int(raw) * scale
    except ValueError:
        value = None
    if value is None or not minimum <= value <= maximum:
        unit = " (bytes; K/M/G suffixes allowed)" if suffixes else ""
        raise InvalidArgumentError(
            f"{where}: parameter {name}={text!r} must be an integer in [{minimum}, {maximum}]{unit}"
        )
    return value


class Driver(abc.ABC):
    """A device factory. ``name``: URI scheme; ``parameters``: {name: description}."""

    name = ""
    description = ""
    parameters = {}

    @abc.abstractmethod
    def create_device(self, device_name, params, loaders=None, uri=None):
        """Create device ``device_name`` with ``params`` ({str: str}); ``uri`` names it.

        loaders: override the device's executable loaders (tests, plugins); default: the
        loader of the device package named ``device_name``. Raises ``NotFoundError`` for an
        unknown device and ``InvalidArgumentError`` for unknown or malformed parameters.
        """

    @abc.abstractmethod
    def list_devices(self):
        """``DeviceInfo`` for every device this driver can create on this host."""

    def check_params(self, params, uri):
        """Raise ``InvalidArgumentError`` naming the valid parameters if one is unknown."""
        for key in params:
            if key not in self.parameters:
                valid = ", ".join(f"{k} ({d})" for k, d in self.parameters.items()) or "none"
                raise InvalidArgumentError(
                    f"device URI {uri!r}: unknown parameter {key!r} for driver {self.name}; "
                    f"valid parameters: {valid}"
                )
