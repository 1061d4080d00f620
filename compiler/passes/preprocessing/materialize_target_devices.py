"""``iree-hal-materialize-target-devices``: device globals and the default affinity.

Input: a module with ``hal.device.targets = {name = #hal.device.target<...>}`` (from
iree-hal-assign-target-devices) or with device globals already. Output: one
``util.global private @name = #hal.device.target<...>`` per device at the top of the module,
``hal.device.targets`` removed, and ``stream.affinity.default = #hal.device.affinity<@first>``
set when the module has none. Every ``#hal.device.affinity<@d>`` of the input (``stream.affinity``
on functions and ops, ``flow.tensor.transfer`` targets, the default) must name a device
global: an unknown name is a CompileError at the op that uses it, listing the devices (the
usual cause: ``rt compile --device=NAME=TARGET`` flags with other names than the input's).

Example::

    module attributes {hal.device.targets = {__device_0 = #hal.device.target<"local", [..]>}} {}
    // ->
    module attributes {stream.affinity.default = #hal.device.affinity<@__device_0>} {
      util.global private @__device_0 = #hal.device.target<"local", [..]> : !hal.device
    }

Source followed: IREE ``Dialect/HAL/Transforms/MaterializeTargetDevices.cpp``.
"""
import dataclasses

from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, StringAttr, SymbolRefAttr

from rt.compiler.dialects.hal import DeviceAffinityAttr, DeviceTargetAttr
from rt.compiler.dialects.hal_types import DeviceType
from rt.compiler.dialects.util import GlobalOp
from rt.compiler.frontend.diagnostics import error_at_op
from rt.compiler.passes.base import Pass
from rt.compiler.passes.preprocessing.assign_target_devices import declared_devices


@dataclasses.dataclass(frozen=True)
class MaterializeTargetDevicesPass(Pass):
    """``hal.device.targets`` -> ``util.global`` device globals + ``stream.affinity.default``."""

    name = "iree-hal-materialize-target-devices"

    def run(self, module, ctx):
        targets = module.attributes.pop("hal.device.targets", None)
        if targets is not None:
            if not isinstance(targets, DictionaryAttr) or not all(
                    isinstance(v, DeviceTargetAttr) for v in targets.data.values()):
                raise error_at_op(module, "hal.device.targets must be a dictionary {name = "
                                          "#hal.device.target<...>, ...}")
            existing = {name for name, _ in declared_devices(module)}
            block = module.body.block
            anchor = block.first_op
            for name, target in targets.data.items():
                if name in existing:
                    continue
                op = GlobalOp.build(properties={"sym_name": StringAttr(name), "sym_visibility": StringAttr("private"),
                                                "type": DeviceType(), "initial_value": target})
                if anchor is None:
                    block.add_op(op)
                else:
                    block.insert_op_before(op, anchor)
        devices = declared_devices(module)
        if devices and "stream.affinity.default" not in module.attributes:
            module.attributes["stream.affinity.default"] = DeviceAffinityAttr(
                SymbolRefAttr(devices[0][0]), ArrayAttr([]))
        if devices:
            _check_affinities(module, [name for name, _ in devices])


def _check_affinities(module, names):
    """CompileError at the first op whose ``#hal.device.affinity<@d>`` names no device global."""
    for op in module.walk():
        for key, value in [*op.attributes.items(), *op.properties.items()]:
            if not isinstance(value, DeviceAffinityAttr):
                continue
            name = value.device.root_reference.data
            if name not in names:
                known = ", ".join("@" + n for n in names)
                raise error_at_op(op, f"{key} = #hal.device.affinity<@{name}> names no device; the module's "
                                      f"devices are {known} (declare util.global @{name} = "
                                      f"#hal.device.target<...> or compile with --device={name}=TARGET)")
