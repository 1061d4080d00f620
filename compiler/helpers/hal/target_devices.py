"""Device specs -> ``#hal.device.target`` attributes, and config values <-> MLIR attributes.

A :class:`~rt.compiler.targets.device_spec.DeviceSpec` is parsed once at the CLI/API boundary
and carries the executable target configuration its backend computed
(``TargetBackend.target_config``); :func:`device_target` only wraps it in attributes. Python
values become MLIR attributes with :func:`to_attr` (dict -> DictionaryAttr, str -> StringAttr,
int -> i64, bool -> BoolAttr, float -> f64, list -> ArrayAttr); :func:`from_attr` reads them back.

Source followed: IREE ``Dialect/HAL/Transforms/AssignTargetDevices.cpp`` and the
``--iree-hal-target-device=`` syntax.
"""
from xdsl.dialects.builtin import (ArrayAttr, BoolAttr, DictionaryAttr, FloatAttr, IntegerAttr,
                                   StringAttr, f64, i64)

from rt.compiler.dialects.hal import DeviceTargetAttr, ExecutableTargetAttr
from rt.compiler.targets.device_spec import DeviceSpec, parse_target
from rt.runtime.errors import InvalidArgumentError


def executable_target(spec):
    """A DeviceSpec (or a target text such as ``llvm-cpu:znver4``) -> ExecutableTargetAttr."""
    from rt.compiler.targets import get_backend

    if not isinstance(spec, DeviceSpec):
        spec = parse_target("__device", spec)
    return ExecutableTargetAttr(StringAttr(spec.backend), StringAttr(get_backend(spec.backend).format),
                                to_attr(dict(spec.config)))


def device_target(spec):
    """``#hal.device.target<"local", [#hal.executable.target<...>]>`` for one DeviceSpec."""
    return DeviceTargetAttr(StringAttr("local"), DictionaryAttr({}), ArrayAttr([executable_target(spec)]))


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
