"""Device specs, parsed once at the CLI/API boundary: ``[NAME=]BACKEND[:OPTION]`` -> DeviceSpec.

A device spec names a device global of the compiled module and its executable target:
``llvm-cpu`` (this host's CPU), ``llvm-cpu:<cpu>`` (``x86-64``, ``x86-64-v3``, ``znver4``, ...),
``vmvx`` or ``vmvx:no-ukernels``. ``NAME`` defaults to ``__device_<i>`` (i = position). The
parse checks the syntax, the backend, the option (through the backend's ``target_config``) and
that names are unique, and keeps the executable target configuration it computed, so nothing
downstream parses a spec string again: ``rt.compile(devices=...)`` and ``rt compile --device``
parse, ``CompileOptions.devices`` carries the tuple, ``iree-hal-assign-target-devices`` turns it
into ``#hal.device.target`` attributes, and later passes read those attributes.

Source followed: IREE's ``--iree-hal-target-device=`` / ``--iree-hal-target-backends=`` flags
(TargetOptions, parsed once by the compiler session).
"""
import dataclasses
import re

from rt.runtime.errors import InvalidArgumentError

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_TARGET = re.compile(r"([a-z][a-z0-9-]*)(?::([A-Za-z0-9_.+-]+))?\Z")
TARGET_HELP = "vmvx, llvm-cpu or llvm-cpu:<cpu> (e.g. llvm-cpu:znver4, llvm-cpu:x86-64-v3)"
#: the device a module gets when neither the input nor the options declare one
DEFAULT_TARGET = "llvm-cpu"


@dataclasses.dataclass(frozen=True)
class DeviceSpec:
    """One device global: ``name``, ``backend`` (``llvm-cpu`` | ``vmvx``), ``option`` (the
    text after ``:``, "" for none) and ``config``, the executable target configuration
    (``((key, value), ...)`` in the backend's order) computed once by the parse."""

    name: str
    backend: str
    option: str = ""
    config: tuple = dataclasses.field(default=(), compare=False, repr=False)

    @property
    def target(self):
        """``backend`` or ``backend:option``, as written on the command line."""
        return f"{self.backend}:{self.option}" if self.option else self.backend

    def __str__(self):
        return f"{self.name}={self.target}"


def parse_target(name, target, where="device"):
    """The DeviceSpec for device ``name`` with ``target`` text; InvalidArgumentError starting
    with ``where`` (e.g. ``--device=cuda``) when the target is malformed or unknown."""
    from rt.compiler.targets import BACKENDS, get_backend

    match = _TARGET.match(target) if isinstance(target, str) else None
    if match is None or match.group(1) not in BACKENDS:
        raise InvalidArgumentError(f"{where}: target {target!r} is not a compile target; expected {TARGET_HELP}")
    backend, option = match.group(1), match.group(2) or ""
    try:
        config = get_backend(backend).target_config(option or None)
    except InvalidArgumentError as exc:
        raise InvalidArgumentError(f"{where}: {exc}") from None
    return DeviceSpec(name, backend, option, tuple(config.items()))


def parse_device_flag(text, index):
    """``"NAME=TARGET"`` or ``"TARGET"`` (the ``--device=`` flag) -> DeviceSpec; the default
    name is ``__device_<index>``."""
    name, sep, target = str(text).strip().rpartition("=")
    if not sep:
        name = f"__device_{index}"
    elif not _NAME.match(name):
        raise InvalidArgumentError(f"--device={text}: device name {name!r} must be an identifier; "
                                   "expected --device=[NAME=]TARGET")
    return parse_target(name, target.strip(), f"--device={text}")


def parse_device_specs(devices):
    """Every accepted form of a device list -> a tuple of DeviceSpec (``()`` for None).

    ``devices``: None; a DeviceSpec; ``"a=llvm-cpu,b=vmvx"`` (``,``, ``;`` or space separated);
    a list of ``"[name=]target"`` strings, ``(name, target)`` pairs or DeviceSpecs; or a
    ``{name: target}`` dict. Raises InvalidArgumentError for a bad name, target or option, a
    repeated name, an empty list, or any other type.
    """
    if devices is None:
        return ()
    if isinstance(devices, (str, DeviceSpec)):
        devices = [d for d in re.split(r"[,; ]+", devices) if d] if isinstance(devices, str) else [devices]
    if isinstance(devices, dict):
        items = list(devices.items())
    elif isinstance(devices, (list, tuple)):
        items = list(devices)
    else:
        raise InvalidArgumentError(f"devices must be None, a list of targets or a {{name: target}} dict, "
                                   f"got {type(devices).__name__}")
    if not items:
        raise InvalidArgumentError("devices is empty; give at least one target or None for the default")
    specs = []
    for index, item in enumerate(items):
        if isinstance(item, DeviceSpec):
            specs.append(item)
        elif isinstance(item, str):
            specs.append(parse_device_flag(item, index))
        elif isinstance(item, tuple) and len(item) == 2:
            name, target = item
            if not isinstance(name, str) or not _NAME.match(name):
                raise InvalidArgumentError(f"devices: name {name!r} must be an identifier like __device_0")
            specs.append(parse_target(name, target, f"devices[{name!r}]"))
        else:
            raise InvalidArgumentError(f"devices[{index}]: expected 'name=target' or (name, target), got {item!r}")
    names = [s.name for s in specs]
    if len(set(names)) != len(names):
        raise InvalidArgumentError(f"devices: names must be unique, got {names}")
    return tuple(specs)
