"""Device specs -> ``#hal.device.target`` attributes (shared by the target-device passes).

A device spec is ``NAME=TARGET`` (``--device=`` on the command line) or a ``(name, target)``
pair, TARGET one of ``vmvx``, ``llvm-cpu``, ``llvm-cpu:<cpu>``. The executable target's config
comes from the backend (``TargetBackend.target_config``); when the backend module is not
available a minimal config naming the CPU is used. Python values become MLIR attributes with
:func:`to_attr` (dict -> DictionaryAttr, str -> StringAttr, int -> i64, bool -> UnitAttr when
true, float -> f64, list -> ArrayAttr).

Source followed: IREE ``Dialect/HAL/Transforms/AssignTargetDevices.cpp`` and the
``--iree-hal-target-device=`` syntax.
"""
import re

from xdsl.dialects.builtin import (ArrayAttr, BoolAttr, DictionaryAttr, FloatAttr, IntegerAttr,
                                   StringAttr, f64, i64)

from rt.compiler.dialects.hal import DeviceTargetAttr, ExecutableTargetAttr
from rt.runtime.errors import InvalidArgumentError

#: backend -> executable format when the backend module cannot be imported
FALLBACK_FORMATS = {"llvm-cpu": "llvm-cpu-object-x86_64", "vmvx": "vmvx-bytecode"}


def parse_device_specs(devices):
    """``devices`` (None, "a=llvm-cpu,b=vmvx" (also ';' or space separated), or [(name, target) | "name=target"]) -> [(name, target)]."""
    if devices is None:
        return []
    if isinstance(devices, str):
        devices = [d for d in re.split(r"[,; ]+", devices) if d]
    specs = []
    for entry in devices:
        if isinstance(entry, str):
            name, sep, target = entry.partition("=")
            if not sep:
                name, target = f"__device_{len(specs)}", entry
        else:
            name, target = entry
        name, target = name.strip(), target.strip()
        if not name.isidentifier():
            raise InvalidArgumentError(f"device name {name!r} must be an identifier like __device_0")
        if any(name == n for n, _ in specs):
            raise InvalidArgumentError(f"device {name!r} is given twice; device names must be unique")
        specs.append((name, target))
    return specs


def executable_target(target):
    """``vmvx`` / ``llvm-cpu`` / ``llvm-cpu:<cpu>`` -> ExecutableTargetAttr."""
    from rt.compiler.targets import BACKENDS, get_backend

    backend_name, _, suffix = target.partition(":")
    if backend_name not in BACKENDS:
        raise InvalidArgumentError(f"unknown device target {target!r}; expected vmvx, llvm-cpu or "
                                   f"llvm-cpu:<cpu> (e.g. llvm-cpu:znver4)")
    try:
        backend = get_backend(backend_name)
    except ModuleNotFoundError:
        backend = None
    if backend is None:
        config = {"cpu": suffix or "host"} if backend_name == "llvm-cpu" else {}
        fmt = FALLBACK_FORMATS[backend_name]
    else:
        config = backend.target_config(suffix or None)
        fmt = backend.format
    return ExecutableTargetAttr(StringAttr(backend_name), StringAttr(fmt), to_attr(config))


def device_target(target):
    """``#hal.device.target<"local", [#hal.executable.target<...>]>`` for one device spec."""
    return DeviceTargetAttr(StringAttr("local"), DictionaryAttr({}), ArrayAttr([executable_target(target)]))


def to_attr(value):
    """A plain Python value (dict/list/str/int/float/bool) as an MLIR attribute."""
    if isinstance(value, dict):
        return DictionaryAttr({str(k): to_attr(v) for k, v in value.items()})
    if isinstance(value, bool):
        return BoolAttr.from_bool(value)
    if isinstance(value, int):
        return IntegerAttr(value, i64)
    if isinstance(value, float):
        return FloatAttr(value, f64)
    if isinstance(value, str):
        return StringAttr(value)
    if isinstance(value, (list, tuple)):
        return ArrayAttr([to_attr(v) for v in value])
    raise InvalidArgumentError(f"target config value {value!r} has no MLIR attribute form")


def from_attr(attr):
    """The inverse of :func:`to_attr` (config dicts handed to backends)."""
    if isinstance(attr, DictionaryAttr):
        return {k: from_attr(v) for k, v in attr.data.items()}
    if isinstance(attr, ArrayAttr):
        return [from_attr(v) for v in attr.data]
    if isinstance(attr, StringAttr):
        return attr.data
    if isinstance(attr, IntegerAttr):
        value = attr.value.data
        return bool(value) if attr.type == BoolAttr.from_bool(True).type else value
    if isinstance(attr, FloatAttr):
        return attr.value.data
    return attr
