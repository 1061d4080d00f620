"""Binding a module's devices: the ``rt.devices`` attribute, given devices, and defaults.

A compiled module lists its device globals in order in the ``rt.devices`` attribute
(docs/compiled_module_abi.md), each with the executable targets compiled for it. Devices
given to ``rt.load`` / ``--device=`` bind in that order and must be able to load one of the
targets' formats; the rest are picked (llvm-cpu -> ``local-task://llvm-cpu``, vmvx ->
``local-task://vmvx``), like iree-run-module picks a device per target. A module without the
attribute gets the given devices, or one ``local-task://llvm-cpu`` if it uses the HAL.
"""
import json

from rt.runtime.errors import InvalidArgumentError, ModuleFormatError, NotFoundError
from rt.runtime.hal import Device, create_device, list_drivers
from rt.runtime.hal.executable_loader import device_names

DEFAULT_DRIVER = "local-task"
DEFAULT_DEVICE = "local-task://llvm-cpu"


def device_specs(module):
    """The module's ``rt.devices`` attribute: [{"name", "targets": [{"backend", "format"}]}] or None."""
    text = module.attributes.get("rt.devices")
    if text is None:
        return None
    try:
        specs = json.loads(text)
    except ValueError as e:
        raise ModuleFormatError(f"module {module.name}: attribute rt.devices is not JSON: {e}") from None
    ok = isinstance(specs, list) and all(
        isinstance(s, dict) and isinstance(s.get("name"), str) and isinstance(s.get("targets"), list)
        and all(isinstance(t, dict) and isinstance(t.get("backend"), str) for t in s["targets"])
        for s in specs)
    if not ok:
        raise ModuleFormatError(f"module {module.name}: attribute rt.devices must be a list of "
                                '{"name": str, "targets": [{"backend": str, "format": str}]}')
    return specs


def _targets_text(spec):
    return ", ".join(t["backend"] for t in spec["targets"]) or "any"


def _check_device_fits(module, index, spec, device):
    formats = [t["format"] for t in spec["targets"] if isinstance(t.get("format"), str)]
    if formats and not any(device.executable_cache.can_prepare_format(f) for f in formats):
        suggestion = ", ".join(f"{DEFAULT_DRIVER}://{t['backend']}" for t in spec["targets"])
        raise InvalidArgumentError(
            f"device {index} ({spec['name']}) of module {module.name} targets {_targets_text(spec)} "
            f"(formats {', '.join(formats)}), which {device.label} cannot load; use e.g. {suggestion}")


def _default_uri(module, index, spec):
    known = device_names()
    for target in spec["targets"]:
        if target["backend"] in known:
            return f"{DEFAULT_DRIVER}://{target['backend']}"
    raise NotFoundError(f"device {index} ({spec['name']}) of module {module.name} targets "
                        f"{_targets_text(spec)}; no local device runs that (devices: {', '.join(known)})")


def resolve_device_uri(text, spec):
    """A device URI for ``--device=text`` bound to device ``spec`` (an rt.devices entry or None).

    ``driver://device[?params]`` is kept; a bare driver (``local-sync``, ``local-task?threads=4``)
    gets the device of the spec's first target (default llvm-cpu); a bare device (``vmvx``)
    gets ``local-task``.
    """
    if "://" in text:
        return text
    name, sep, query = text.partition("?")
    if name in (d.name for d in list_drivers()):
        backends = [t["backend"] for t in spec["targets"]] if spec else []
        device = next((b for b in backends if b in device_names()), "llvm-cpu")
        return f"{name}://{device}{sep}{query}"
    if name in device_names():
        return f"{DEFAULT_DRIVER}://{name}{sep}{query}"
    return text


def _needs_device(module):
    return any(imp.module_name == "hal" for imp in module.imports) or any(
        "r" in module.functions[o].signature.args for o in module.exports.values())


def _by_name(module, devices, specs):
    """``{name: URI or Device}`` -> a list in ``rt.devices`` order, None where not named.

    Names are the module's device globals (``gpu0`` or ``@gpu0``), as IREE asks for in #18414
    (a module declares each argument's device by name; the caller binds the names)."""
    if specs is None:
        raise InvalidArgumentError(f"devices given by name ({', '.join(map(str, devices))}), but "
                                   f"module {module.name} names no devices (no rt.devices attribute); "
                                   "give them as a list")
    names = [spec["name"] for spec in specs]
    given = [None] * len(names)
    for key, device in devices.items():
        name = key[1:] if isinstance(key, str) and key.startswith("@") else key
        if name not in names:
            raise InvalidArgumentError(f"devices[{key!r}]: module {module.name} has no device {key!r}; "
                                       f"its devices: {', '.join(names)}")
        if device is None:
            raise InvalidArgumentError(f"devices[{key!r}] must be a device URI or a Device, got None")
        given[names.index(name)] = device
    return given


def bind_devices(module, devices):
    """(devices, owned): the devices for ``module`` in ``rt.devices`` order and those rt created.

    devices: None, a URI, a Device, or a list of them, bound in order, or a dict binding the
    module's device globals by name (``{"gpu0": "local-task://llvm-cpu", "gpu1": device}``;
    devices it does not name are picked as for a list). Raises InvalidArgumentError for too many
    devices, an unknown name, or one that cannot load its targets.
    """
    specs = device_specs(module)
    if isinstance(devices, dict):
        given = _by_name(module, devices, specs)
    else:
        given = [] if devices is None else [devices] if isinstance(devices, (str, Device)) else list(devices)
    owned = []

    def make(uri):
        device = create_device(uri)
        owned.append(device)
        return device

    try:
        bound = []
        for i, d in enumerate(given):
            if d is None and isinstance(devices, dict):
                bound.append(None)
            elif isinstance(d, str):
                bound.append(make(resolve_device_uri(d, specs[i] if specs and i < len(specs) else None)))
            elif isinstance(d, Device):
                bound.append(d)
            else:
                raise InvalidArgumentError(f"devices[{i}] must be a device URI or a Device, got {d!r}")
        if specs is None:
            if not bound and _needs_device(module):
                bound.append(make(DEFAULT_DEVICE))
            return tuple(bound), owned
        if len(bound) > len(specs):
            names = ", ".join(s["name"] for s in specs) or "none"
            raise InvalidArgumentError(f"module {module.name} declares {len(specs)} device(s) ({names}) "
                                       f"but {len(bound)} were given")
        for i, spec in enumerate(specs):
            if i < len(bound) and bound[i] is not None:
                _check_device_fits(module, i, spec, bound[i])
            elif i < len(bound):
                bound[i] = make(_default_uri(module, i, spec))
            else:
                bound.append(make(_default_uri(module, i, spec)))
        return tuple(bound), owned
    except BaseException:
        for device in owned:
            device.release()
        raise


def compile_targets(devices):
    """Compile targets (``["llvm-cpu", "vmvx"]``) for run-time ``devices``, or None for the default.

    None unless every device names its kind (``local-task://vmvx``, ``vmvx``, a Device). For
    devices given by name, the named device globals (``["gpu0=llvm-cpu", "gpu1=vmvx"]``).
    """
    if not devices:
        return None
    if isinstance(devices, dict):
        kinds = {str(k).lstrip("@"): _kind(d) for k, d in devices.items()}
        return None if None in kinds.values() else [f"{k}={v}" for k, v in kinds.items()]
    names = [_kind(d) for d in ([devices] if isinstance(devices, (str, Device)) else list(devices))]
    return None if None in names else names


def _kind(device):
    """The device kind (``llvm-cpu``, ``vmvx``) of a Device or URI, or None if unknown."""
    if isinstance(device, Device):
        name = device.device_name
    else:
        text = str(device)
        name = text.partition("://")[2].partition("?")[0] if "://" in text else text
    return name if name in device_names() else None
