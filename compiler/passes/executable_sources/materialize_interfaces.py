"""``iree-hal-materialize-interfaces``: stream.executable -> hal.executable with variants.

Input: ``stream.executable`` ops whose dispatch functions take ``!stream.binding`` and scalar
(i32 / index / f32) arguments, and the dispatch sites naming them. Output: one
``hal.executable`` per stream executable with one ``hal.executable.variant`` per executable
target of the devices that dispatch it; each variant holds ``hal.executable.export @entry
ordinal(N) layout(#hal.pipeline.layout<constants = C, bindings = [...]>)`` and a copy of the
functions with no arguments, reading bindings through ``hal.interface.binding.subspan`` and
scalars through ``hal.interface.constant.load`` (one i32 push constant per scalar, in argument
order; index scalars come back through ``arith.index_cast``, so they must stay below 2^31). Dispatch sites keep naming ``@exe::@entry``; the hal conversion picks the variant of
the dispatching device.

Example::

    stream.executable private @ex {
      stream.executable.export public @add workgroups(%n: index) -> (index, index, index) {..}
      builtin.module { func.func @add(%a: !stream.binding, %n: i32, %b: !stream.binding) {
        %c0 = arith.constant 0 : index
        %0 = stream.binding.subspan %a[%c0] : !stream.binding -> !flow.dispatch.tensor<readonly:tensor<4xf32>>
        ... } }
    }
    // ->
    hal.executable private @ex {
      hal.executable.variant public @vmvx_bytecode target(#hal.executable.target<"vmvx", ..>) {
        hal.executable.export public @add ordinal(0) layout(#hal.pipeline.layout<constants = 1,
            bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly">, #hal.pipeline.binding<storage_buffer>]>)
        builtin.module { func.func @add() {
          %c0 = arith.constant 0 : index
          %n = hal.interface.constant.load layout(#layout) ordinal(0) : i32
          %0 = hal.interface.binding.subspan layout(#layout) binding(0) alignment(64) offset(%c0)
              flags(ReadOnly) : !flow.dispatch.tensor<readonly:tensor<4xf32>>
          ... } }
      }
    }

Source followed: IREE ``Dialect/HAL/Transforms/MaterializeInterfaces.cpp``.
"""
import dataclasses
import re

from xdsl.dialects import arith
from xdsl.dialects.builtin import (ArrayAttr, Float32Type, FunctionType, IndexType, IntegerAttr,
                                   IntegerType, ModuleOp, StringAttr, i32)
from xdsl.dialects.func import FuncOp
from xdsl.ir import Block, Region

from rt.compiler.dialects import stream
from rt.compiler.dialects.hal import (ExecutableExportOp, ExecutableOp, ExecutableVariantOp,
                                      InterfaceBindingSubspanOp, InterfaceConstantLoadOp,
                                      PipelineBindingAttr, PipelineLayoutAttr, ReturnOp)
from rt.compiler.dialects.hal_types import DeviceType
from rt.compiler.frontend.diagnostics import error_at_op
from rt.compiler.passes.base import Pass
from rt.compiler.helpers.hal.affinity import device_globals, op_device

DISPATCH_OPS = (stream.CmdDispatchOp, stream.AsyncDispatchOp, stream.TensorDispatchOp)


def variant_name(target):
    """Variant symbol for an executable target: its format with non-identifier chars as '_'."""
    return re.sub(r"[^A-Za-z0-9_]", "_", target.format.data)


def dispatch_sites(module):
    """``{executable name: [dispatch ops]}`` over every dispatch op of the module."""
    sites = {}
    for op in module.walk():
        if isinstance(op, DISPATCH_OPS):
            for ref in op.properties["entry_points"].data:
                sites.setdefault(ref.root_reference.data, []).append(op)
    return sites


def _binding_flags(subspans):
    access = {s.result.type.access.data for s in subspans if hasattr(s.result.type, "access")}
    return "ReadOnly" if access == {"readonly"} else ""


def _rewrite_function(func, layout_of):
    """Replace func's arguments by interface ops; returns (binding flags list, constant count)."""
    block = func.body.blocks[0]
    first = block.first_op
    bindings, constants = [], 0
    plan = []
    for arg in block.args:
        type_ = arg.type
        if isinstance(type_, stream.BindingType):
            plan.append(("binding", arg, len(bindings)))
            bindings.append([use.operation for use in arg.uses])
        elif isinstance(type_, (IndexType, Float32Type)) or (isinstance(type_, IntegerType) and type_.width.data <= 32):
            plan.append(("constant", arg, constants))
            constants += 1
        else:
            raise error_at_op(func, f"dispatch function @{func.sym_name.data}: argument of type {type_} "
                                    "cannot be passed as a 32-bit push constant; expected index, i32 or f32 "
                                    "(iree-stream-pack-dispatch-operands splits wider operands)")
    flags = [_binding_flags(users) for users in bindings]
    layout = layout_of(constants, flags)
    for kind, arg, ordinal in plan:
        if kind == "constant":
            load = InterfaceConstantLoadOp.build(result_types=[i32], properties={
                "layout": layout, "ordinal": IntegerAttr(ordinal, IndexType())})
            block.insert_op_before(load, first)
            value = load.result
            if isinstance(arg.type, IndexType):
                cast_op = arith.IndexCastOp(value, IndexType())
                block.insert_op_before(cast_op, first)
                value = cast_op.results[0]
            elif isinstance(arg.type, Float32Type):
                cast_op = arith.BitcastOp(value, arg.type)
                block.insert_op_before(cast_op, first)
                value = cast_op.results[0]
            elif arg.type != i32:
                cast_op = arith.TruncIOp(value, arg.type)
                block.insert_op_before(cast_op, first)
                value = cast_op.results[0]
            value.name_hint = arg.name_hint
            arg.replace_all_uses_with(value)
            continue
        for user in list(arg.uses):
            sub = user.operation
            if not isinstance(sub, stream.BindingSubspanOp):
                raise error_at_op(sub, f"'{sub.name}' uses a !stream.binding directly; only "
                                       "stream.binding.subspan may")
            props = {"layout": layout, "binding": IntegerAttr(ordinal, IndexType()),
                     "alignment": IntegerAttr(64, IndexType())}
            if flags[ordinal]:
                props["flags"] = StringAttr(flags[ordinal])
            new = InterfaceBindingSubspanOp.build(
                operands=[[sub.byte_offset], list(sub.dynamic_dims)], result_types=[sub.result.type],
                properties=props, attributes=dict(sub.attributes))
            sub.parent_block().insert_op_before(new, sub)
            sub.result.replace_all_uses_with(new.result)
            sub.parent_block().erase_op(sub)
    for arg in reversed(block.args):
        block.erase_arg(arg)
    func.properties["function_type"] = FunctionType.from_lists([], list(func.function_type.outputs.data))
    func.properties.pop("arg_attrs", None)
    return layout


def _layout(constants, flags):
    return PipelineLayoutAttr(IntegerAttr(constants, 64), ArrayAttr([
        PipelineBindingAttr(StringAttr("storage_buffer"), StringAttr(f)) for f in flags]))


def _count_region(export):
    """Clone the stream export's workgroups region as IREE's count(%device, %workload...) region."""
    if not export.workgroup_count.blocks:
        return Region()
    region = export.workgroup_count.clone()
    block = region.blocks[0]
    block.insert_arg(DeviceType(), 0).name_hint = "device"
    term = block.last_op
    if isinstance(term, stream.ReturnOp):
        block.insert_op_before(ReturnOp.build(operands=[list(term.operands)]), term)
        block.erase_op(term)
    return region


@dataclasses.dataclass(frozen=True)
class MaterializeInterfacesPass(Pass):
    """stream.executable -> hal.executable with one variant per target that dispatches it."""

    name = "iree-hal-materialize-interfaces"

    def run(self, module, ctx):
        devices = device_globals(module)
        sites = dispatch_sites(module)
        for exe in [op for op in module.body.block.ops if isinstance(op, stream.ExecutableOp)]:
            name = exe.sym_name.data
            targets = []
            users = sites.get(name) or [exe]
            if not devices:
                raise error_at_op(exe, f"stream.executable @{name}: the module declares no devices; "
                                       "run iree-hal-assign-target-devices first or add util.global "
                                       "@dev = #hal.device.target<...>")
            for user in users:
                for target in devices[op_device(user, module, devices)].executable_targets.data:
                    if target not in targets:
                        targets.append(target)
            hal_exe = ExecutableOp.build(properties={"sym_name": StringAttr(name),
                                                     "sym_visibility": StringAttr("private")},
                                         regions=[Region(Block())])
            used_names = set()
            for target in targets:
                vname = variant_name(target)
                while vname in used_names:
                    vname += "_1"
                used_names.add(vname)
                hal_exe.body.block.add_op(self._variant(exe, vname, target))
            module.body.block.insert_op_before(hal_exe, exe)
            module.body.block.erase_op(exe)

    def _variant(self, exe, vname, target):
        inner = [op for op in exe.body.block.ops if isinstance(op, ModuleOp)]
        if len(inner) != 1:
            raise error_at_op(exe, f"stream.executable @{exe.sym_name.data} must hold exactly one builtin.module")
        module_copy = inner[0].clone()
        funcs = {op.sym_name.data: op for op in module_copy.body.block.ops if isinstance(op, FuncOp)}
        variant = ExecutableVariantOp.build(properties={"sym_name": StringAttr(vname),
                                                        "sym_visibility": StringAttr("public"),
                                                        "target": target}, regions=[Region(Block())])
        exports = [op for op in exe.body.block.ops if isinstance(op, stream.ExecutableExportOp)]
        for ordinal, export in enumerate(exports):
            fname = export.sym_name.data
            func = funcs.get(fname)
            if func is None:
                raise error_at_op(export, f"stream.executable.export @{fname} has no func.func @{fname} "
                                          f"in the executable's module")
            layout = _rewrite_function(func, _layout)
            variant.body.block.add_op(ExecutableExportOp.build(
                properties={"sym_name": StringAttr(fname), "sym_visibility": StringAttr("public"),
                            "ordinal": IntegerAttr(ordinal, IndexType()), "layout": layout},
                regions=[_count_region(export)]))
        variant.body.block.add_op(module_copy)
        return variant
