"""The flow dialect: every op parses, verifies and prints back to the same text, and bad forms
give located errors. Each snippet is one op in IREE's printed form (FlowOps.td)."""
import pathlib

import pytest

from rt.compiler.dialects.flow import (
    DispatchOp,
    DispatchTensorLoadOp,
    DispatchWorkgroupsOp,
    ExecutableExportOp,
    ExecutableOp,
)
from rt.compiler.frontend import parse_module
from rt.compiler.frontend.diagnostics import verify_module
from rt.runtime.errors import CompileError

HEADER = ("util.func public @f(%t: tensor<?x4xf32>, %s: tensor<10xf32>, %u: tensor<2x4xf32>, %d: index, "
          "%i: index, %f: f32) {\n")

OPS = {
    "transfer": "%0 = flow.tensor.transfer %t : tensor<?x4xf32>{%d} to #hal.device.affinity<@dev>",
    "reshape": "%0 = flow.tensor.reshape %t : tensor<?x4xf32>{%d} -> tensor<?xf32>{%i}",
    "empty": "%0 = flow.tensor.empty : tensor<?x4xf32>{%d}",
    "alloca": "%0 = flow.tensor.alloca : tensor<?x4xf32>{%d}",
    "splat": "%0 = flow.tensor.splat %f : tensor<?x4xf32>{%d}",
    "constant": "%0 = flow.tensor.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>",
    "clone": "%0 = flow.tensor.clone %t : tensor<?x4xf32>{%d}",
    "slice": "%0 = flow.tensor.slice %t[%i, %i for %i, %i] : tensor<?x4xf32>{%d} -> tensor<?x?xf32>{%i, %i}",
    "update": "%0 = flow.tensor.update %u, %t[%i, %i] : tensor<2x4xf32> -> %t as tensor<?x4xf32>{%d}",
    "load": "%0 = flow.tensor.load %t[%i, %i] : tensor<?x4xf32>{%d}",
    "store": "%0 = flow.tensor.store %f, %t[%i, %i] : tensor<?x4xf32>{%d}",
    "dynamic_constant": "%0 = flow.tensor.dynamic_constant dense<1.000000e+00> : tensor<2x4xf32> -> tensor<?x4xf32>",
    "bitcast": "%0 = flow.tensor.bitcast %t : tensor<?x4xf32>{%d} -> tensor<?x16xi8>{%d}",
    "tie_shape": "%0 = flow.tensor.tie_shape %t : tensor<?x4xf32>{%i}",
    "reshape_attrs": "%0 = flow.tensor.reshape %s : tensor<10xf32> -> tensor<2x5xf32> attributes {hint = 1 : i32}",
    "splat_attrs": "%0 = flow.tensor.splat %f : tensor<4xf32> attributes {hint}",
    "load_attrs": "%0 = flow.tensor.load %s[%i] : tensor<10xf32> attributes {hint}",
    "transfer_attrs": "%0 = flow.tensor.transfer %s : tensor<10xf32> to #hal.device.affinity<@dev> attributes {hint}",
    "dispatch": "%0 = flow.dispatch @ex::@ep[%d](%t, %s, %d) : (tensor<?x4xf32>{%d}, tensor<10xf32>, index) "
                "-> tensor<?x4xf32>{%d}",
    "dispatch_tied": "%0 = flow.dispatch @ex::@ep[%i](%s, %t) : (tensor<10xf32>, tensor<?x4xf32>{%d}) -> %s",
    "dispatch_multi": "%0, %1 = flow.dispatch @ex::@ep(%t) {hint} : (tensor<?x4xf32>{%d}) -> "
                      "(tensor<4xf32>, %t as tensor<?x4xf32>{%i})",
    "dispatch_none": "flow.dispatch @ex::@ep[%d](%s) : (tensor<10xf32>) -> ()",
    "region": """%0 = flow.dispatch.region[%d] -> (tensor<?x4xf32>{%d}) {
      %1 = tensor.empty(%d) : tensor<?x4xf32>
      flow.return %1 : tensor<?x4xf32>
    } count(%arg0: index) -> (index, index, index) {
      %x, %y, %z = flow.dispatch.workgroup_count_from_slice %arg0
      flow.return %x, %y, %z : index, index, index
    }""",
    "workgroups": """%0 = flow.dispatch.workgroups[%d](%t, %d) : (tensor<?x4xf32>{%d}, index) -> tensor<?x4xf32>{%d} =
        (%arg0: !flow.dispatch.tensor<readonly:tensor<?x4xf32>>, %arg1: index, %arg2: !flow.dispatch.tensor<writeonly:tensor<?x4xf32>>) {
      %1 = flow.dispatch.tensor.load %arg0, offsets = [0, 0], sizes = [%arg1, 4], strides = [1, 1] : !flow.dispatch.tensor<readonly:tensor<?x4xf32>>{%arg1} -> tensor<?x4xf32>
      flow.dispatch.tensor.store %1, %arg2, offsets = [0, 0], sizes = [%arg1, 4], strides = [1, 1] : tensor<?x4xf32> -> !flow.dispatch.tensor<writeonly:tensor<?x4xf32>>{%arg1}
      flow.return
    } count(%arg0_1: index) -> (index, index, index) {
      %x, %y, %z = flow.dispatch.workgroup_count_from_slice %arg0_1
      flow.return %x, %y, %z : index, index, index
    }""",
}


def _wrap(op_text):
    return HEADER + "    " + op_text + "\n    util.return\n  }"


@pytest.mark.parametrize("name", sorted(OPS))
def test_op_round_trips(name):
    module = parse_module(_wrap(OPS[name]), f"{name}.mlir")
    module.verify()
    text = str(module)
    assert OPS[name].split("\n")[0].strip() in text
    assert str(parse_module(text, "again.mlir")) == text


def test_seed_flow_executables_round_trip():
    """Seed 001's module after iree-flow-outline-dispatch-regions (four executables, four dispatches)."""
    text = (pathlib.Path(__file__).parent / "data" / "seed001_flow.mlir").read_text()
    module = parse_module(text, "seed001.mlir")
    module.verify()
    dispatches = [op for op in module.walk() if isinstance(op, DispatchOp)]
    assert [d.entry_point.nested_references.data[0].data for d in dispatches] == [
        "foo_dispatch_0", "foo_dispatch_1", "foo_dispatch_2", "foo_dispatch_3"]
    assert [len(d.workload) for d in dispatches] == [2, 2, 4, 2]
    loads = [op for op in module.walk() if isinstance(op, DispatchTensorLoadOp)]
    assert len(loads) == 5 and list(loads[0].static_sizes.get_values()) == [-(2 ** 63)] * 2
    assert str(parse_module(str(module), "again.mlir")) == str(module)
    executables = [op for op in module.walk() if op.name == "flow.executable"]
    assert len(executables) == 4 and all(type(e) is ExecutableOp for e in executables)
    assert all(type(op) is ExecutableExportOp for op in module.walk() if op.name == "flow.executable.export")


def test_tied_results_and_accessors():
    module = parse_module(_wrap(OPS["dispatch_multi"]), "t.mlir")
    op = next(o for o in module.walk() if isinstance(o, DispatchOp))
    assert op.tied_operand_indices() == [-1, 0]
    assert [d.name_hint for d in op.result_dims] == ["i"]
    module = parse_module(_wrap(OPS["dispatch_tied"]), "t.mlir")
    op = next(o for o in module.walk() if isinstance(o, DispatchOp))
    assert op.tied_operand_indices() == [0] and op.results[0].type == op.arguments[0].type
    module = parse_module(_wrap(OPS["workgroups"]), "t.mlir")
    op = next(o for o in module.walk() if isinstance(o, DispatchWorkgroupsOp))
    assert [str(a.type) for a in op.workgroup_body.block.args][2] == "!flow.dispatch.tensor<writeonly:tensor<?x4xf32>>"


@pytest.mark.parametrize("op_text,fragment", [
    ("%0 = flow.tensor.empty : tensor<?x4xf32>", "1 dynamic dims but 0 dim values"),
    ("%0 = flow.tensor.splat %i : tensor<4xf32>", "index"),
    ("%0 = flow.tensor.update %u, %t[%i] : tensor<2x4xf32> -> %t as tensor<?x4xf32>{%d}", "needs 2 offsets"),
    ("%0 = flow.tensor.update %u, %t[%i, %i] : tensor<2x4xf32> -> %u as tensor<?x4xf32>{%d}", "tied to the target"),
    ("%0 = flow.dispatch @ex::@ep(%s) : (tensor<10xf32>) -> %t", "not an operand"),
    ("%0 = flow.dispatch @ex::@ep(%s, %t) : (tensor<10xf32>) -> %s", "expected 2 operand types"),
    ("%0 = flow.tensor.load %t[%i] : tensor<?x4xf32>{%d}", "needs 2 indices"),
    ("%c3 = arith.constant 3 : index\n%0 = flow.tensor.slice %u[%c3, %c3 for %c3, %c3] : tensor<2x4xf32> -> "
     "tensor<3x3xf32>", "slice along dimension 0 runs out-of-bounds: 3 + 3 > 2"),
    ("%c1 = arith.constant 1 : index\n%c2 = arith.constant 2 : index\n%0 = flow.tensor.slice "
     "%u[%c1, %c1 for %c1, %c2] : tensor<2x4xf32> -> tensor<1x3xf32>", "length 2 of dimension 1 differs"),
    ("%c3 = arith.constant 3 : index\n%0 = flow.tensor.update %u, %u[%c3, %i] : tensor<2x4xf32> -> "
     "%u as tensor<2x4xf32>", "update along dimension 0 runs out-of-bounds: 3 + 2 > 2"),
    ("%c9 = arith.constant 9 : index\n%0 = flow.tensor.store %f, %s[%c9] : tensor<10xf32>", None),
    ("%c10 = arith.constant 10 : index\n%0 = flow.tensor.load %s[%c10] : tensor<10xf32>",
     "element index along dimension 0 runs out-of-bounds: 10 + 1 > 10"),
    ("%0 = flow.tensor.reshape %s : tensor<10xf32> -> tensor<3x3xf32>", "has 10 elements but result"),
    ("%0 = flow.tensor.reshape %s : tensor<10xf32> -> tensor<10xf16>", "element bit widths must match"),
    ("%0 = flow.tensor.bitcast %s : tensor<10xf32> -> tensor<10xi16>", "holds 40 bytes but result"),
    ("%0 = flow.tensor.dynamic_constant dense<1.0> : tensor<2x4xf32> -> tensor<?x5xf32>", "not a dynamic form"),
    ("%0 = flow.tensor.dynamic_constant dense<1> : tensor<2x4xi32> -> tensor<?x4xf32>", "not a dynamic form"),
    ("%0 = flow.tensor.tie_shape %t : tensor<?x4xf32>", "1 dynamic dims but 0 dim values"),
])
def test_bad_flow_ops_are_located(op_text, fragment):
    if fragment is None:
        verify_module(parse_module(_wrap(op_text), "good.mlir"))
        return
    with pytest.raises(CompileError) as info:
        verify_module(parse_module(_wrap(op_text), "bad.mlir"))
    assert info.value.file == "bad.mlir" and info.value.line == 2 + op_text.count("\n")
    assert fragment in info.value.message


def test_dispatch_tensor_access_modes_are_checked():
    text = """func.func @d(%a: !flow.dispatch.tensor<writeonly:tensor<4xf32>>, %b: !flow.dispatch.tensor<readonly:tensor<4xf32>>) {
  %0 = flow.dispatch.tensor.load %a, offsets = [0], sizes = [4], strides = [1] : !flow.dispatch.tensor<writeonly:tensor<4xf32>> -> tensor<4xf32>
  return
}"""
    with pytest.raises(CompileError) as info:
        verify_module(parse_module(text, "acc.mlir"))
    assert "cannot use a writeonly dispatch tensor" in info.value.message and info.value.line == 2
