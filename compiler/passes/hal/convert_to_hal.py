"""``iree-hal-convert-to-hal``: the stream dialect -> HAL ops, device and executable globals.

Input: the module after the stream phase (stream.cmd.execute regions, stream.resource.*,
stream.timepoint.*, stream.tensor.import/export) with ``hal.executable`` ops whose variants
carry serialized binaries and count regions (iree-hal-translate-executables). Output:

* with several devices, each export's ``rt.abi`` reflection records the device ordinal of
  every tensor argument and result (:mod:`abi_devices`);
* device globals keep their ``#hal.device.target`` (the vm phase records it in ``rt.devices``)
  and are bound in a first ``util.initializer``: ``hal.devices.get %i`` in declaration order;
* one ``util.global private @__executable_<exe>_<device> : !hal.executable`` per executable
  and device that dispatches it, created in the same initializer with
  ``hal.executable.create device(..) target(@exe::@variant)`` (the device's first target
  with a variant);
* one ``util.global private @__command_buffer_<n>_<device> : !hal.command_buffer`` per
  memoized ``stream.cmd.execute`` (static commands), recorded in the same initializer after
  the executables (:mod:`cmd_lowering`);
* stream ops lowered as described in :mod:`cmd_lowering` and :mod:`resource_lowering`;
  ``!stream.resource<*>`` values become ``!hal.buffer`` and ``!stream.timepoint`` become
  ``!hal.fence`` everywhere (globals, block arguments, scf results).

Example::

    %r = stream.resource.alloc uninitialized : !stream.resource<external>{%c16}
    // ->
    %dev = util.global.load @__device_0 : !hal.device
    %alloc = hal.device.allocator<%dev : !hal.device> : !hal.allocator
    %r = hal.allocator.allocate<%alloc : !hal.allocator> affinity(%q) type(%t) usage(%u) : !hal.buffer{%c16}

Source followed: IREE ``Dialect/HAL/Transforms/ConvertToHAL.cpp`` and
``Conversion/StreamToHAL``; device binding after ``InitializeDevices.cpp``.
"""
import dataclasses

from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, StringAttr, SymbolRefAttr
from xdsl.ir import Block, Region

from rt.compiler.dialects import hal, stream, util
from rt.compiler.dialects.hal_channel import ChannelType as HalChannelType
from rt.compiler.dialects.hal_ops import DevicesGetOp, ExecutableCreateOp
from rt.compiler.dialects.hal_types import BufferType, CommandBufferType, DeviceType, ExecutableType, FenceType
from rt.compiler.dialects.util import GlobalOp, GlobalStoreOp, InitializerOp, ReturnOp
from rt.compiler.frontend.diagnostics import error_at_op
from rt.compiler.op_handlers import OpTable
from rt.compiler.passes.base import Pass
from rt.compiler.helpers.hal import channel_lowering, cmd_lowering, resource_lowering
from rt.compiler.helpers.hal.abi_devices import record_abi_devices
from rt.compiler.helpers.hal.affinity import device_globals, op_device
from rt.compiler.helpers.hal.builder import Inserter


class _Conversion:
    """Per-module state shared by the lowerings."""

    def __init__(self, module):
        self.module = module
        self.devices = device_globals(module)
        self.executables = {op.sym_name.data: op for op in module.body.block.ops if isinstance(op, hal.ExecutableOp)}
        self.executable_globals = {}
        self.memoized = []

    def device_of(self, op):
        if not self.devices:
            raise error_at_op(op, f"'{op.name}' needs a device but the module declares none; run "
                                  "iree-hal-assign-target-devices / iree-hal-materialize-target-devices")
        return op_device(op, self.module, self.devices)

    def load_device(self, b, name):
        return b.global_load(name, DeviceType())

    def variant_for(self, op, exe_name, device_name):
        exe = self.executables.get(exe_name)
        if exe is None:
            raise error_at_op(op, f"dispatch names @{exe_name}, which is not a hal.executable of the module; "
                                  "run iree-hal-materialize-interfaces first")
        variants = [v for v in exe.body.block.ops if isinstance(v, hal.ExecutableVariantOp)]
        for target in self.devices[device_name].executable_targets.data:
            for variant in variants:
                if variant.target == target:
                    return variant
        raise error_at_op(op, f"@{exe_name} has no variant for the targets of device @{device_name}")

    def export_for(self, op, exe_name, export_name, device_name):
        variant = self.variant_for(op, exe_name, device_name)
        for export in variant.body.block.ops:
            if isinstance(export, hal.ExecutableExportOp) and export.sym_name.data == export_name:
                return variant, export
        raise error_at_op(op, f"@{exe_name}::@{variant.sym_name.data} has no export @{export_name}")

    def executable_global(self, exe_name, device_name):
        key = (exe_name, device_name)
        if key not in self.executable_globals:
            self.executable_globals[key] = f"__executable_{exe_name}_{device_name}"
        return self.executable_globals[key]


    def memoize(self, device_name, record):
        """A new ``!hal.command_buffer`` global of ``device_name`` that the initializer fills with
        ``record(inserter, device)`` (after the executables are created); returns its name."""
        name = f"__command_buffer_{len(self.memoized)}_{device_name}"
        self.memoized.append((name, device_name, record))
        return name


def _convert_type(type_):
    if isinstance(type_, stream.ResourceType):
        return BufferType()
    if isinstance(type_, stream.TimepointType):
        return FenceType()
    if isinstance(type_, stream.ChannelType):
        return HalChannelType()
    return type_


def _convert_types(op):
    for result in op.results:
        result._type = _convert_type(result.type)
    for region in op.regions:
        for block in region.blocks:
            for arg in block.args:
                arg._type = _convert_type(arg.type)
    if isinstance(op, GlobalOp):
        op.properties["type"] = _convert_type(op.properties["type"])
    ftype = op.properties.get("function_type")
    if isinstance(ftype, FunctionType):
        op.properties["function_type"] = FunctionType.from_lists(
            [_convert_type(t) for t in ftype.inputs.data], [_convert_type(t) for t in ftype.outputs.data])


#: the lowering ``fn(op, conversion)`` of each stream op convert-to-hal replaces
_LOWERINGS = OpTable({stream.CmdExecuteOp: cmd_lowering.lower_execute, **dict(resource_lowering.LOWERINGS.items()),
                      **dict(channel_lowering.LOWERINGS.items())})


def _convert_block(block, conv):
    for op in list(block.ops):
        lower = _LOWERINGS.get(op)
        if lower is not None:
            lower(op, conv)
        elif op.dialect_name() == "stream":  # any other stream op is left unlowered: an error
            raise resource_lowering.unsupported(op)
        else:
            _convert_types(op)
            for region in op.regions:
                for inner in region.blocks:
                    _convert_block(inner, conv)


@dataclasses.dataclass(frozen=True)
class ConvertToHALPass(Pass):
    """Lower stream ops to HAL and bind devices and executables in an initializer."""

    name = "iree-hal-convert-to-hal"

    def run(self, module, ctx):
        conv = _Conversion(module)
        record_abi_devices(module, conv)
        for op in list(module.body.block.ops):
            if isinstance(op, (util.FuncOp, func.FuncOp, InitializerOp, GlobalOp)):
                _convert_types(op)
                for region in op.regions:
                    for block in region.blocks:
                        _convert_block(block, conv)
            elif op.dialect_name() == "stream":  # a stream op outside any function: not lowerable
                raise resource_lowering.unsupported(op)
        self._initializer(module, conv)

    @staticmethod
    def _initializer(module, conv):
        if not conv.devices and not conv.executable_globals:
            return
        block = module.body.block
        body = Block()
        init = InitializerOp.build(regions=[Region(body)])
        anchor = next((op for op in block.ops if not isinstance(op, GlobalOp)), None)
        if anchor is None:
            block.add_op(init)
        else:
            block.insert_op_before(init, anchor)
        ret = ReturnOp.build(operands=[[]])
        body.add_op(ret)
        b = Inserter(ret)
        loaded = {}
        for index, name in enumerate(conv.devices):
            device = b.value(DevicesGetOp.build(operands=[b.const_index(index)], result_types=[DeviceType()]))
            b.add(GlobalStoreOp.build(operands=[device], properties={"global": SymbolRefAttr(name)}))
            loaded[name] = device
        for (exe_name, device_name), global_name in conv.executable_globals.items():
            variant = conv.variant_for(init, exe_name, device_name)
            block.insert_op_before(GlobalOp.build(properties={
                "sym_name": StringAttr(global_name), "sym_visibility": StringAttr("private"),
                "type": ExecutableType()}), init)
            exe = b.value(ExecutableCreateOp.build(
                operands=[loaded[device_name], b.const_i64(-1)], result_types=[ExecutableType()],
                properties={"executable_target": SymbolRefAttr(exe_name, [variant.sym_name.data])}))
            b.add(GlobalStoreOp.build(operands=[exe], properties={"global": SymbolRefAttr(global_name)}))
        for global_name, device_name, record in conv.memoized:
            block.insert_op_before(GlobalOp.build(properties={
                "sym_name": StringAttr(global_name), "sym_visibility": StringAttr("private"),
                "type": CommandBufferType()}), init)
            cmd = record(b, loaded[device_name])
            b.add(GlobalStoreOp.build(operands=[cmd], properties={"global": SymbolRefAttr(global_name)}))
