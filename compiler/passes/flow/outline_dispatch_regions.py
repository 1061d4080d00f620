"""``iree-flow-outline-dispatch-regions``: ``flow.dispatch.workgroups`` -> executables + dispatches.

Input: functions holding ``flow.dispatch.workgroups`` ops. Output: one ``flow.executable
private @<func>_dispatch_<n>`` per workgroups op (n counts per function, in order; the k-th
``util.initializer`` is named ``_initializer_<k>``), inserted
before the function, holding ``flow.executable.export public @<func>_dispatch_<n>_<summary>``
with the workgroup-count region and a ``builtin.module`` with ``func.func`` of the same name
taking the body's ``!flow.dispatch.tensor`` / scalar arguments; the host op becomes
``flow.dispatch @exe::@export[workload](operands)``. ``<summary>`` names the root op, its loop
ranges (``D`` for dynamic) and element types, as IREE does: ``matmul_DxDxD_f32``,
``elementwise_10_f32``, ``reduction_1x10_f32``.

Example::

    %r = flow.dispatch.workgroups[%c10](%a) : (tensor<10xf32>) -> tensor<10xf32> = (...) {...}
    // ->
    flow.executable private @test_dispatch_0 {
      flow.executable.export public @test_dispatch_0_elementwise_10_f32 workgroups(%arg0: index) -> (index, index, index) {...}
      builtin.module { func.func @test_dispatch_0_elementwise_10_f32(%arg0: !flow.dispatch.tensor<readonly:tensor<10xf32>>, ...) {...} }
    }
    %r = flow.dispatch @test_dispatch_0::@test_dispatch_0_elementwise_10_f32[%c10](%a) : (tensor<10xf32>) -> tensor<10xf32>

Source followed: IREE ``Flow/Transforms/OutlineDispatchRegions.cpp`` and
``AnnotateDispatches.cpp`` (export names).
"""
import dataclasses

from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, ModuleOp, StringAttr, SymbolRefAttr
from xdsl.ir import Block, Region
from xdsl.rewriter import Rewriter

from rt.compiler.dialects import flow, util
from rt.compiler.passes.base import Pass
from rt.compiler.helpers.dispatch import op_kinds as kinds


def _symbol_names(module):
    return {op.sym_name.data for op in module.walk() if hasattr(op, "sym_name") and op.sym_name is not None}


def _unique(name, taken):
    candidate, n = name, 1
    while candidate in taken:
        candidate = f"{name}_{n}"
        n += 1
    taken.add(candidate)
    return candidate


def outline(workgroups, exe_name, taken):
    """Outline one flow.dispatch.workgroups into a flow.executable; returns (executable, dispatch)."""
    body_block = workgroups.workgroup_body.block
    root = kinds.pick_root([op for op in body_block.walk()])
    export_name = _unique(f"{exe_name}_{kinds.summary(root)}", taken)
    terminator = body_block.last_op
    ret = func.ReturnOp()
    ret.location = terminator.location
    Rewriter.replace_op(terminator, ret)
    body = Region()
    workgroups.workgroup_body.move_blocks(body)
    entry = func.FuncOp(export_name, FunctionType.from_lists([a.type for a in body.block.args], []), body)
    entry.location = workgroups.location
    count = Region()
    workgroups.workgroup_count.move_blocks(count)
    export = flow.ExecutableExportOp.build(
        properties={"sym_name": StringAttr(export_name), "sym_visibility": StringAttr("public")}, regions=[count])
    executable = flow.ExecutableOp.build(
        properties={"sym_name": StringAttr(exe_name), "sym_visibility": StringAttr("private")},
        regions=[Region(Block([export, ModuleOp([entry])]))])
    for op in (export, executable):
        op.location = workgroups.location
    props = {"entry_point": SymbolRefAttr(exe_name, [export_name])}
    if workgroups.tied_operands is not None:
        props["tied_operands"] = workgroups.tied_operands
    dispatch = flow.DispatchOp.build(
        operands=[list(workgroups.workload), list(workgroups.arguments), list(workgroups.argument_dims),
                  list(workgroups.result_dims)],
        result_types=[[r.type for r in workgroups.results]], properties=props)
    dispatch.location = workgroups.location
    Rewriter.replace_op(workgroups, dispatch)
    return executable, dispatch


@dataclasses.dataclass(frozen=True)
class OutlineDispatchRegionsPass(Pass):
    """flow.dispatch.workgroups -> flow.executable + flow.dispatch."""

    name = "iree-flow-outline-dispatch-regions"

    def run(self, module, ctx):
        taken = _symbol_names(module)
        initializers = 0
        for fn in list(module.body.block.ops):
            if isinstance(fn, util.InitializerOp):
                prefix = f"_initializer_{initializers}"
                initializers += 1
            else:
                prefix = getattr(fn, "sym_name", None)
                prefix = prefix.data if prefix is not None else None
            ops = [op for op in fn.walk() if isinstance(op, flow.DispatchWorkgroupsOp)]
            if not ops:
                continue
            for n, workgroups in enumerate(ops):
                exe_name = _unique(f"{prefix}_dispatch_{n}", taken)
                executable, _ = outline(workgroups, exe_name, taken)
                module.body.block.insert_op_before(executable, fn)
