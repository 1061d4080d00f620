"""The interface a device package implements to turn executable bytes into loaded code.

A loader recognises one or more executable *formats* (``"llvm-cpu-object-x86_64"``,
``"vmvx-bytecode"``) and produces an ``ExecutableLibrary`` from one variant's bytes. The
executable cache asks every loader of a device which variants it could load
(``unsupported_reason``) before picking one, so that an unusable variant is reported with its
reason instead of failing at dispatch time.

Modelled on IREE's ``iree_hal_executable_loader_t``
(runtime/src/iree/hal/local/executable_loader.h): ``query_support`` becomes
``unsupported_reason`` (which also says *why* not) and ``try_load`` becomes ``load``.
Each device package exposes one instance as ``LOADER`` (``rt.devices.llvm_cpu.LOADER``,
``rt.devices.vmvx.LOADER``).
"""
import abc
import importlib

from rt.runtime.errors import InvalidArgumentError, NotFoundError, UnimplementedError


class ExecutableLoader(abc.ABC):
    """Loads executables of the formats in ``formats`` for one device kind.

    name: the device kind it serves, as used in device URIs (``"llvm-cpu"``, ``"vmvx"``).
    formats: tuple of executable format strings this loader accepts.
    """

    name: str
    formats: tuple

    @abc.abstractmethod
    def unsupported_reason(self, format, metadata):
        """Return None if a variant of ``format`` with ``metadata`` can be loaded on this host.

        Otherwise return a one-line reason naming what does not fit and what would, e.g.
        ``"requires CPU features +avx512f which this host lacks"`` or
        ``"format 'vmvx-bytecode' is not one of ('llvm-cpu-object-x86_64',)"``.
        metadata: the variant's dict (keys are loader-defined, e.g. ``"cpu_features"``).
        Must not raise for any format string or metadata dict.
        """

    @abc.abstractmethod
    def load(self, format, data, metadata):
        """Load one executable variant and return its ``ExecutableLibrary``.

        format: one of ``formats``. data: the variant's bytes (``bytes`` or ``memoryview``;
        the loader copies what it keeps). metadata: the variant's dict.

        Raises ``InvalidArgumentError`` for a format this loader does not accept,
        ``ModuleFormatError`` for malformed or truncated data, ``UnimplementedError`` when
        the host lacks something the variant requires (CPU features, ABI version).
        """

    def pin_workers(self, cpu_ids):
        """Pin the threads this loader's code runs dispatches on to ``cpu_ids`` (a local-task
        device's ``cpu_ids``, IREE's ``--task_topology_cpu_ids``). The default does nothing:
        the code runs on the device's queue thread."""


# Device kinds (the device part of a URI) and the package whose ``LOADER`` serves each.
_DEVICE_PACKAGES = {"llvm-cpu": "rt.devices.llvm_cpu", "vmvx": "rt.devices.vmvx"}
_REGISTERED = {}


def register_device_loader(device_name, loader):
    """Make ``device_name`` a device kind served by ``loader`` (None unregisters it).

    For out-of-tree devices and tests; the built-in kinds are ``llvm-cpu`` and ``vmvx``.
    """
    if loader is None:
        _REGISTERED.pop(device_name, None)
        return
    if not isinstance(loader, ExecutableLoader):
        raise InvalidArgumentError(
            f"register_device_loader({device_name!r}): expected an ExecutableLoader, got "
            f"{type(loader).__name__}"
        )
    _REGISTERED[device_name] = loader


def device_names():
    """Every known device kind, built-in first."""
    return tuple(_DEVICE_PACKAGES) + tuple(n for n in _REGISTERED if n not in _DEVICE_PACKAGES)


def device_loader(device_name):
    """The ``ExecutableLoader`` of device kind ``device_name``.

    Raises ``NotFoundError`` for an unknown kind (listing the known ones) and
    ``UnimplementedError`` when the device package is missing or exposes no ``LOADER``.
    """
    if device_name in _REGISTERED:
        return _REGISTERED[device_name]
    package = _DEVICE_PACKAGES.get(device_name)
    if package is None:
        raise NotFoundError(
            f"unknown device {device_name!r}; known devices: {', '.join(device_names())}"
        )
    try:
        module = importlib.import_module(package)
    except ImportError as error:
        raise UnimplementedError(
            f"device {device_name!r} is unavailable: importing {package} failed ({error}); "
            "build the extensions with `pip install -e .`"
        ) from error
    loader = getattr(module, "LOADER", None)
    if not isinstance(loader, ExecutableLoader):
        raise UnimplementedError(
            f"device {device_name!r} is unavailable: {package}.LOADER is "
            f"{type(loader).__name__}, expected an ExecutableLoader"
        )
    return loader
