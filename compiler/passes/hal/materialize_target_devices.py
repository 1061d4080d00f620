"""``iree-hal-materialize-target-devices``: device globals and the default affinity.

Input: a module with ``hal.device.targets = {name = #hal.device.target<...>}`` (from
iree-hal-assign-target-devices) or with device globals already. Output: one
``util.global private @name = #hal.device.target<...>`` per device at the top of the module,
``hal.device.targets`` removed, and ``stream.affinity.default = #hal.device.affinity<@first>``
set when the module has none.

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
from rt.compiler.passes.hal.assign_target_devices import declared_devices


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
