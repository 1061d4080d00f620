"""Scheduling passes (schedule-execution .. pack-constants): planned sizes and rejected inputs."""
import pytest

from rt.compiler.dialects import make_context
from rt.compiler.frontend import parse_module
from rt.compiler.passes import PassPipeline, parse_pass_spec
from rt.runtime.errors import CompileError

CHAIN = """
util.func public @chain(%arg0: !stream.resource<external>, %v: i32) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c40 = arith.constant 40 : index
  %c4 = arith.constant 4 : index
  %0 = stream.async.dispatch @d0::@f0(%arg0[%c0 to %c8 for %c8]) : (!stream.resource<external>{%c8}) -> !stream.resource<transient>{%c40}
  %1 = stream.async.dispatch @d1::@f1(%0[%c0 to %c40 for %c40]) : (!stream.resource<transient>{%c40}) -> !stream.resource<transient>{%c4}
  %2 = stream.async.dispatch @d2::@f2(%0[%c0 to %c40 for %c40], %1[%c0 to %c4 for %c4]) : (!stream.resource<transient>{%c40}, !stream.resource<transient>{%c4}) -> !stream.resource<transient>{%c40}
  %3 = stream.async.dispatch @d3::@f3(%2[%c0 to %c40 for %c40]) : (!stream.resource<transient>{%c40}) -> !stream.resource<transient>{%c4}
  %4 = stream.async.dispatch @d4::@f4(%2[%c0 to %c40 for %c40], %3[%c0 to %c4 for %c4]) : (!stream.resource<transient>{%c40}, !stream.resource<transient>{%c4}) -> !stream.resource<external>{%c40}
  util.return %4 : !stream.resource<external>
}
"""

SCHEDULE = ["iree-stream-schedule-execution", "iree-stream-schedule-concurrency", "iree-stream-propagate-timepoints",
            "iree-stream-schedule-allocation", "iree-stream-pack-constants", "iree-stream-layout-slices"]


def _run(text, passes):
    ctx = make_context()
    module = parse_module(text, "sched.mlir", ctx)
    PassPipeline([parse_pass_spec(p) for p in passes]).run(module, ctx)
    return module


def _ops(module, name):
    return [op for op in module.walk() if op.name == name]


def test_predict_chain_packs_four_transients_into_192_bytes():
    module = _run(CHAIN, SCHEDULE)
    (alloca,) = _ops(module, "stream.resource.alloca")
    assert alloca.storage_size.op.value.value.data == 192
    (execute,) = _ops(module, "stream.cmd.execute")
    dispatches = _ops(execute, "stream.cmd.dispatch")
    assert [d.accesses() for d in dispatches] == [["ro", "wo"], ["ro", "wo"], ["ro", "ro", "wo"], ["ro", "wo"],
                                                   ["ro", "ro", "wo"]]
    offsets = [[o.op.value.value.data for o in d.resource_offsets] for d in dispatches]
    assert offsets == [[0, 0], [0, 64], [0, 64, 128], [128, 0], [128, 0, 0]]
    assert len(_ops(module, "stream.resource.alloc")) == 1
    assert len(_ops(module, "stream.resource.dealloca")) == 1
    assert not [op for op in module.walk() if op.name.startswith("stream.async.")]


def test_results_sharing_storage_are_rejected():
    text = """
util.func public @shared(%v: i32) -> !stream.timepoint {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %r:2, %t = stream.async.execute with() -> (!stream.resource<external>{%c16}, !stream.resource<external>{%c16}) {
    %0 = stream.async.splat %v : i32 -> !stream.resource<external>{%c16}
    %1 = stream.async.fill %v, %0[%c0 to %c16 for %c16] : i32 -> %0 as !stream.resource<external>{%c16}
    stream.yield %0, %1 : !stream.resource<external>{%c16}, !stream.resource<external>{%c16}
  } => !stream.timepoint
  util.return %t : !stream.timepoint
}
"""
    with pytest.raises(CompileError) as info:
        _run(text, ["iree-stream-schedule-allocation"])
    assert "share storage" in str(info.value) and "sched.mlir:" in str(info.value)


def test_constants_with_dynamic_size_are_rejected():
    text = """
util.func public @dyn(%n: index) -> !stream.timepoint {
  %r, %t = stream.resource.constants :
    !stream.resource<constant>{%n} = dense<1> : tensor<3xi32>
    => !stream.timepoint
  util.return %t : !stream.timepoint
}
"""
    with pytest.raises(CompileError) as info:
        _run(text, ["iree-stream-pack-constants"])
    assert "constant result sizes" in str(info.value)
