"""``iree-hal-assign-target-devices``: record the requested devices on the module.

Input: a module without device globals (no ``util.global @d = #hal.device.target<...>``) and
without ``hal.device.targets``. Output: the module carries ``hal.device.targets = {name =
#hal.device.target<...>, ...}`` built from the ``targets`` option: a tuple of DeviceSpec (parsed once by
``rt.compiler.targets.device_spec``; on the ``rt opt`` command line ``name=target`` items
separated by ';' or spaces; target vmvx, llvm-cpu or llvm-cpu:<cpu>; default ``__device_0=llvm-cpu``).
Modules that already declare devices are left unchanged.

Example (``targets=__device_0=vmvx``)::

    module { ... }
    // ->
    module attributes {hal.device.targets = {__device_0 = #hal.device.target<"local",
        [#hal.executable.target<"vmvx", "vmvx-bytecode">]> : !hal.device}} { ... }

Source followed: IREE ``Dialect/HAL/Transforms/AssignTargetDevices.cpp``.
"""
import dataclasses

from xdsl.dialects.builtin import DictionaryAttr

from rt.compiler.dialects.hal import DeviceTargetAttr
from rt.compiler.dialects.util import GlobalOp
from rt.compiler.passes.base import Pass
from rt.compiler.helpers.hal.target_devices import device_target
from rt.compiler.targets.device_spec import DEFAULT_TARGET, parse_device_specs, parse_target


def declared_devices(module):
    """``[(name, DeviceTargetAttr)]`` of the module's device globals, in order."""
    found = []
    for op in module.body.block.ops:
        if isinstance(op, GlobalOp) and isinstance(op.initial_value, DeviceTargetAttr):
            found.append((op.sym_name.data, op.initial_value))
    return found


@dataclasses.dataclass(frozen=True)
class AssignTargetDevicesPass(Pass):
    """Attach ``hal.device.targets`` from the ``targets`` option when the module has no devices."""

    name = "iree-hal-assign-target-devices"
    targets: tuple = dataclasses.field(default=(), metadata={"parse": parse_device_specs})

    def run(self, module, ctx):
        if declared_devices(module) or "hal.device.targets" in module.attributes:
            return
        specs = self.targets or (parse_target("__device_0", DEFAULT_TARGET),)
        module.attributes["hal.device.targets"] = DictionaryAttr({s.name: device_target(s) for s in specs})
