"""``iree-hal-resolve-device-promises``: ``#hal.device.promise<@d>`` becomes ``#hal.device.affinity<@d>``.

Frontends place ops on devices before the devices are declared: IREE's torch importer (and
iree-turbine's ``DeviceAffinity``) write ``flow.tensor.transfer %t : tensor<4xf32> to
#hal.device.promise<@__device_0>`` and ``iree.abi.affinity = #hal.device.promise<@__device_0>``
on arguments, and the devices come from the compile flags (``--device=NAME=TARGET``,
``--iree-hal-target-device=NAME=...``). Once iree-hal-materialize-target-devices has made the
device globals, every promise (on an op, in its properties, or nested in arrays and
dictionaries such as a function's ``arg_attrs``) is replaced by the affinity of the device it
names, queues kept. A promise naming no device global is a CompileError at the op that holds
it, listing the module's devices.

Example::

    %y = flow.tensor.transfer %x : tensor<4xf32> to #hal.device.promise<@__device_0>
    // ->
    %y = flow.tensor.transfer %x : tensor<4xf32> to #hal.device.affinity<@__device_0>

Source followed: IREE ``Dialect/HAL/Transforms/ResolveDevicePromises.cpp`` (run right after
MaterializeTargetDevices in the HAL device-assignment pipeline).
"""
import dataclasses

from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr

from rt.compiler.dialects.hal import DeviceAffinityAttr, DevicePromiseAttr
from rt.compiler.frontend.diagnostics import error_at_op
from rt.compiler.passes.base import Pass
from rt.compiler.helpers.hal.affinity import device_globals


@dataclasses.dataclass(frozen=True)
class ResolveDevicePromisesPass(Pass):
    """Every ``#hal.device.promise`` of the module -> the ``#hal.device.affinity`` of its device."""

    name = "iree-hal-resolve-device-promises"

    def run(self, module, ctx):
        devices = list(device_globals(module))
        for op in module.walk():
            for table in (op.attributes, op.properties):
                for key, value in list(table.items()):
                    resolved = _resolve(value, op, devices)
                    if resolved is not value:
                        table[key] = resolved


def _resolve(attr, op, devices):
    """``attr`` with its promises resolved (the same object when it holds none)."""
    if isinstance(attr, DevicePromiseAttr):
        name = attr.device.root_reference.data
        if name not in devices:
            known = ", ".join("@" + d for d in devices) or "none"
            raise error_at_op(op, f"'{op.name}' references a promised device that was not declared: "
                                  f"#hal.device.promise<@{name}>; the module's devices are {known} "
                                  f"(compile with --device={name}=TARGET)")
        return DeviceAffinityAttr(attr.device, attr.queues)
    if isinstance(attr, ArrayAttr):
        items = [_resolve(a, op, devices) for a in attr.data]
        if any(a is not b for a, b in zip(items, attr.data)):
            return ArrayAttr(items)
    elif isinstance(attr, DictionaryAttr):
        items = {k: _resolve(v, op, devices) for k, v in attr.data.items()}
        if any(items[k] is not v for k, v in attr.data.items()):
            return DictionaryAttr(items)
    return attr
