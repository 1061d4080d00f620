"""Stream phase up to refine-usage on the bundled examples, plus the usage analysis' rules.

Runs input -> target devices -> dispatch creation (data tiling off) -> the stream passes
verify-input .. refine-usage (nothing here needs codegen) and asserts the IR those passes must
leave for scheduling: no ``*`` lifetime in host code, external at the ABI edges, transient
intermediates, constants used in place.
"""
import os

import pytest

from rt.compiler.dialects import make_context, stream
from rt.compiler.frontend import parse_module
from rt.compiler.ir_printing import module_to_text
from rt.compiler.passes import PassPipeline, get_pass_class, pipeline
from rt.compiler.helpers.stream.resource_usage import CONSTANT, DISPATCH_READ, EXTERNAL, MUTATED, STAGING_READ
from rt.compiler.helpers.stream.resource_usage import is_valid, lifetime
from rt.compiler.helpers.stream.resources import host_callables

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


def _run(name):
    path = os.path.join(ROOT, "examples", f"{name}.mlir")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    ctx = make_context()
    module = parse_module(text, path, ctx)
    PassPipeline(pipeline.build_passes({"data_tiling": False}, until="iree-stream-refine-usage")).run(module, ctx)
    return module


def _host_ops(module):
    return [op for c in host_callables(module) for op in c.walk()]


def _lifetimes(values):
    return [v.type.lifetime.data for v in values]


@pytest.mark.parametrize("name", ["test_constant_add", "predict", "mlp", "matmul_f32"])
def test_no_unknown_lifetime_is_left(name):
    module = _run(name)
    for op in _host_ops(module):
        for value in list(op.results) + [a for r in op.regions for b in r.blocks for a in b.args]:
            if isinstance(value.type, stream.ResourceType):
                assert value.type.lifetime.data != "*", f"{op.name} in {name} still has a * resource"


def test_predict_keeps_four_transients_and_uses_the_constant_in_place():
    module = _run("predict")
    dispatches = [op for op in _host_ops(module) if isinstance(op, stream.AsyncDispatchOp)]
    assert [_lifetimes(d.results) for d in dispatches] == [["transient"]] * 4 + [["external"]]
    first = dispatches[0]
    assert _lifetimes(v for v in first.resource_operands if isinstance(v.type, stream.ResourceType)) == \
        ["external", "constant"]
    assert not [op for op in _host_ops(module) if isinstance(op, stream.AsyncTransferOp)]
    text = module_to_text(module)
    assert "util.global private @_constant {noinline}" in text
    assert "!stream.resource<*>" not in text.split("util.initializer", 1)[0].split("stream.executable")[0]


def test_matmul_binding_dims_come_from_workload_ordinals():
    module = _run("matmul_f32")
    exe = next(op for op in module.body.block.ops if isinstance(op, stream.ExecutableOp))
    subspans = [op for op in exe.walk() if isinstance(op, stream.BindingSubspanOp)]
    assert len(subspans) == 3
    for subspan in subspans:
        assert len(subspan.dynamic_dims) == 2
        for dim in subspan.dynamic_dims:
            owner = dim.owner
            assert getattr(owner, "name", "block-arg") in ("flow.dispatch.workload.ordinal", "block-arg")
    dispatch = next(op for op in _host_ops(module) if isinstance(op, stream.AsyncDispatchOp))
    assert _lifetimes(dispatch.results) == ["external"]


def test_lifetime_rules_follow_iree_priorities():
    assert lifetime({EXTERNAL, STAGING_READ, CONSTANT}, set()) == "external"
    assert lifetime({STAGING_READ, CONSTANT}, set()) == "staging"
    assert lifetime({CONSTANT, DISPATCH_READ}, set()) == "constant"
    assert lifetime({"global_read"}, set()) == "constant"
    assert lifetime({"global_read", MUTATED}, set()) == "variable"
    assert lifetime({DISPATCH_READ}, set()) == "transient"
    assert lifetime({EXTERNAL}, {"constant"}) == "constant"


def test_invalid_unions_are_rejected():
    assert not is_valid({CONSTANT, MUTATED}, set())
    assert not is_valid({STAGING_READ, DISPATCH_READ}, set())
    assert not is_valid(set(), {"constant", "external"})
    assert is_valid({CONSTANT, DISPATCH_READ}, {"constant"})


WHILE_LOOP = """
util.func public @loop(%arg: !hal.buffer_view, %n: i32) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %z = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %0 = stream.tensor.import %arg : !hal.buffer_view -> tensor<4xf32> in !stream.resource<external>{%c16}
  %1 = stream.async.transfer %0 : !stream.resource<external>{%c16} -> !stream.resource<*>{%c16}
  %r:2 = scf.while (%t = %1, %i = %z) : (!stream.resource<*>, i32) -> (!stream.resource<*>, i32) {
    %lt = arith.cmpi slt, %i, %n : i32
    scf.condition(%lt) %t, %i : !stream.resource<*>, i32
  } do {
  ^bb0(%t2: !stream.resource<*>, %i2: i32):
    %d = stream.async.dispatch @ex::@fn(%t2[%c0 to %c16 for %c16]) : (!stream.resource<*>{%c16}) -> !stream.resource<*>{%c16}
    %i3 = arith.addi %i2, %one : i32
    scf.yield %d, %i3 : !stream.resource<*>, i32
  }
  %2 = stream.async.transfer %r#0 : !stream.resource<*>{%c16} -> !stream.resource<external>{%c16}
  %3 = stream.tensor.export %2 : tensor<4xf32> in !stream.resource<external>{%c16} -> !hal.buffer_view
  util.return %3 : !hal.buffer_view
}
"""


def test_scf_while_operands_arguments_and_results_share_one_lifetime():
    ctx = make_context()
    module = parse_module(WHILE_LOOP, "while.mlir", ctx)
    PassPipeline([get_pass_class("iree-stream-refine-usage")()]).run(module, ctx)
    loop = next(op for op in _host_ops(module) if op.name == "scf.while")
    values = [loop.arguments[0], loop.results[0], loop.before_region.blocks[0].args[0],
              loop.after_region.blocks[0].args[0]]
    values += [op.results[0] for op in _host_ops(module) if isinstance(op, stream.AsyncDispatchOp)]
    assert _lifetimes(values) == ["external"] * 5
    assert "stream.async.transfer" not in module_to_text(module)
