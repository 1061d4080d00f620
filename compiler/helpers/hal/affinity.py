"""Which device an op runs on: its ``on(#hal.device.affinity<@d>)``, its parent's, or the default.

Used by the hal passes. Lookup order follows IREE's ``IREE::Stream::AffinityAttr::lookup``: the
op's ``affinity`` property, then ``stream.affinity`` attributes on the op and its ancestors,
then the module's ``stream.affinity.default``, then the only device global when there is one.
"""
from rt.compiler.dialects.hal import DeviceAffinityAttr, DeviceTargetAttr
from rt.compiler.dialects.util import GlobalOp
from rt.compiler.frontend.diagnostics import error_at_op


def device_globals(module):
    """``{name: DeviceTargetAttr}`` of the module's device globals, in declaration order."""
    found = {}
    for op in module.body.block.ops:
        if isinstance(op, GlobalOp) and isinstance(op.properties.get("initial_value"), DeviceTargetAttr):
            found[op.sym_name.data] = op.properties["initial_value"]
    return found


def _from_attr(attr):
    if isinstance(attr, DeviceAffinityAttr):
        return attr.device.root_reference.data
    return None


def op_device(op, module, devices):
    """The device global name ``op`` runs on; CompileError when none can be determined."""
    current = op
    while current is not None and current is not module:
        for table in (current.properties, current.attributes):
            for key in ("affinity", "stream.affinity"):
                name = _from_attr(table.get(key))
                if name is not None:
                    return _checked(op, name, devices)
        current = current.parent_op()
    name = _from_attr(module.attributes.get("stream.affinity.default"))
    if name is not None:
        return _checked(op, name, devices)
    if len(devices) == 1:
        return next(iter(devices))
    raise error_at_op(op, f"'{op.name}' has no device affinity and the module has "
                          f"{len(devices)} devices and no stream.affinity.default; add "
                          "on(#hal.device.affinity<@device>)")


def _checked(op, name, devices):
    if name not in devices:
        known = ", ".join("@" + d for d in devices) or "none"
        raise error_at_op(op, f"'{op.name}' is placed on @{name}, which is not a device global "
                              f"(util.global @{name} = #hal.device.target<...>); devices: {known}")
    return name
