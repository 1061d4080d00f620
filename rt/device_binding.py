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


def bind_devices(module, devices):
    """(devices, owned): the devices for ``module`` in ``rt.devices`` order and those rt created.

    devices: None, a URI, a Device, or a list of them, bound in order. Raises
    InvalidArgumentError for too many devices or one that cannot load its targets.
    """
    given = [] if devices is None else [devices] if isinstance(devices, (str, Device)) else list(devices)
    owned = []

    def make(uri):
        device = create_device(uri)
        owned.append(device)
        return device

    try:
        bound = []
        specs = device_specs(module)
        for i, d in enumerate(given):
            if isinstance(d, str):
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
            if i < len(bound):
                _check_device_fits(module, i, spec, bound[i])
            else:
                bound.append(make(_default_uri(module, i, spec)))
        return tuple(bound), owned
    except BaseException:
        for device in owned:
            device.release()
        raise


def compile_targets(devices):
    """Compile targets (``["llvm-cpu", "vmvx"]``) for run-time ``devices``, or None for the default.

    None unless every device names its kind (``local-task://vmvx``, ``vmvx``, a Device).
    """
    if not devices:
        return None
    names = []
    for d in [devices] if isinstance(devices, (str, Device)) else list(devices):
        if isinstance(d, Device):
            name = d.device_name
        else:
            text = str(d)
            name = text.partition("://")[2].partition("?")[0] if "://" in text else text
        if name not in device_names():
            return None
        names.append(name)
    return names
