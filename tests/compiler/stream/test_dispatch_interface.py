"""The cmd-level stream passes (elide-timepoints, fuse-dispatch-bindings, pack-dispatch-operands,
fold-uniform-operands, annotate-dispatch-arguments): results checked by running the program.

axpy_twice.mlir.in dispatches one export twice over ranges of one transient resource at
dynamic, different offsets, with an f32 constant and a dynamic size passed twice; after the five
passes, the hal and vm phases compile it and the devices must compute 2 * (2x + y) + x.
"""
import os

import numpy as np
import pytest

import rt
from rt.compiler.dialects import make_context
from rt.compiler.frontend import parse_module
from rt.compiler.passes import PassPipeline, parse_pass_spec
from rt.compiler.passes.vm.conversion import vmfb_bytes
from rt.runtime.errors import CompileError

HERE = os.path.dirname(__file__)
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
STREAM_PASSES = ["iree-stream-elide-timepoints", "iree-stream-fuse-dispatch-bindings",
                 "iree-stream-pack-dispatch-operands", "iree-stream-fold-uniform-operands",
                 "iree-stream-annotate-dispatch-arguments"]
HAL_PASSES = ["iree-hal-materialize-interfaces", "iree-hal-translate-executables", "iree-hal-convert-to-hal",
              "iree-hal-serialize-executables", "iree-vm-conversion"]
TARGETS = {"vmvx": '#hal.executable.target<"vmvx", "vmvx-bytecode">',
           "llvm-cpu": '#hal.executable.target<"llvm-cpu", "llvm-cpu-object-x86_64">'}


def _axpy_module(target):
    with open(os.path.join(HERE, "axpy_twice.mlir.in"), encoding="utf-8") as f:
        text = f.read().replace("TARGET", TARGETS[target])
    ctx = make_context()
    return parse_module(text, "axpy_twice.mlir", ctx), ctx


def _run_passes(module, ctx, names):
    PassPipeline([parse_pass_spec(name) for name in names]).run(module, ctx)


def _func(module, name):
    return next(op for op in module.walk() if op.name == "func.func" and op.sym_name.data == name)


@pytest.fixture(scope="module", params=sorted(TARGETS))
def axpy(request):
    module, ctx = _axpy_module(request.param)
    _run_passes(module, ctx, STREAM_PASSES + HAL_PASSES)
    return rt.load(vmfb_bytes(module))


@pytest.mark.parametrize("n", [1, 7, 100])
def test_fused_rebased_packed_dispatches_compute_axpy_twice(axpy, n):
    x = np.arange(n, dtype=np.float32) - 3.0
    y = np.linspace(-1.0, 1.0, n, dtype=np.float32)
    got = np.asarray(axpy.run(x, y))
    np.testing.assert_allclose(got, 2.0 * (2.0 * x + y) + x, rtol=1e-6, atol=1e-6)


def test_dispatch_interface_after_the_passes():
    module, ctx = _axpy_module("vmvx")
    _run_passes(module, ctx, STREAM_PASSES)
    func = _func(module, "axpy")
    types = [str(t) for t in func.function_type.inputs.data]
    assert types == ["!stream.binding", "!stream.binding", "i32", "i32", "i32", "i32"]
    attrs = [d.data.get("stream.alignment") for d in func.properties["arg_attrs"].data]
    assert [a.value.data if a is not None else None for a in attrs] == [64, 64, 128, 64, 128, None]
    constants = [op for op in func.walk() if op.name == "arith.constant" and str(op.result.type) == "f32"]
    assert [op.value.value.data for op in constants] == [2.0]
    dispatches = [op for op in module.walk() if op.name == "stream.cmd.dispatch"]
    assert [len(d.uniform_operands) for d in dispatches] == [4, 4]
    assert [d.accesses() for d in dispatches] == [["ro", "wo"], ["ro", "wo"]]
    assert dispatches[0].uniform_operands[3] is dispatches[1].uniform_operands[3]
    execute = next(op for op in module.walk() if op.name == "stream.cmd.execute")
    assert [v.owner.name for v in execute.await_timepoint] == ["stream.resource.alloca"]
    awaits = [op for op in module.walk() if op.name == "stream.timepoint.await"]
    assert [a.await_timepoint.owner.name for a in awaits] == ["stream.resource.dealloca"]


EXECUTABLE = """
stream.executable private @ex {
  stream.executable.export public @fn workgroups(%arg0: index) -> (index, index, index) {
    %x, %y, %z = flow.dispatch.workgroup_count_from_slice %arg0
    stream.return %x, %y, %z : index, index, index
  }
  builtin.module {
    func.func @fn(%b: !stream.binding, %n: index) {
      %c0 = arith.constant 0 : index
      %0 = stream.binding.subspan %b[%c0] : !stream.binding -> !flow.dispatch.tensor<readonly:tensor<?xf32>>{%n}
      BODY
      return
    }
  }
}
util.func public @f(%r: !stream.resource<external>, %n: index) -> !stream.timepoint {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %big = arith.constant 2147483648 : index
  %i = arith.constant 4 : i32
  %t = stream.cmd.execute with(%r as %a: !stream.resource<external>{%c16}) {
    DISPATCH
  } => !stream.timepoint
  util.return %t : !stream.timepoint
}
"""
GOOD_DISPATCH = "stream.cmd.dispatch @ex::@fn[%n](%n : index) { ro %a[%c0 for %c16] : !stream.resource<external>{%c16} }"


@pytest.mark.parametrize("pass_name,dispatch,body,message", [
    ("iree-stream-fuse-dispatch-bindings", GOOD_DISPATCH.replace("(%n : index)", ""), "",
     r"passes 0 operand\(s\) and 1 resource\(s\) but func @fn takes 1 non-binding and 1 !stream.binding"),
    ("iree-stream-fuse-dispatch-bindings", GOOD_DISPATCH.replace("@ex::@fn", "@ex::@nope"), "",
     r"names @ex::@nope, which is not an export"),
    ("iree-stream-fuse-dispatch-bindings", GOOD_DISPATCH,
     "%1 = stream.binding.subspan %b[%c0] : !stream.binding -> !flow.dispatch.tensor<readonly:tensor<4xf32>>\n"
     "      util.optimization_barrier %b : !stream.binding",
     r"'util.optimization_barrier' uses a !stream.binding of @fn; only stream.binding.subspan may"),
    ("iree-stream-pack-dispatch-operands", GOOD_DISPATCH.replace("(%n : index)", "(%big : index)"), "",
     r"is the index 2147483648, which does not fit the signed 32-bit push constant"),
    ("iree-stream-pack-dispatch-operands", GOOD_DISPATCH.replace("(%n : index)", "(%i : i32)"), "",
     r"operand 0 of stream.cmd.dispatch @ex::@fn has type i32 but the function argument it feeds has type index"),
    ("iree-stream-fold-uniform-operands",
     "stream.async.dispatch @ex::@fn[%n](%a[%c0 to %c16 for %c16], %n) : "
     "(!stream.resource<external>{%c16}, index) -> ()", "",
     r"expects explicit commands \(stream.cmd.dispatch\) but found 'stream.async.dispatch'"),
])
def test_bad_input_is_a_located_error(pass_name, dispatch, body, message):
    text = EXECUTABLE.replace("DISPATCH", dispatch).replace("BODY", body)
    ctx = make_context()
    try:
        module = parse_module(text, "bad.mlir", ctx)
    except CompileError as exc:
        pytest.fail(f"test input does not parse: {exc}")
    with pytest.raises(CompileError, match=r"bad\.mlir:\d+:\d+: error: .*" + message):
        _run_passes(module, ctx, [pass_name])


def test_operand_defined_inside_the_execute_region_is_rejected():
    text = EXECUTABLE.replace("BODY", "").replace(
        "DISPATCH", "%m = arith.constant 4 : index\n    " + GOOD_DISPATCH.replace("(%n : index)", "(%m : index)"))
    ctx = make_context()
    module = parse_module(text, "bad.mlir", ctx)
    with pytest.raises(CompileError, match=r"bad\.mlir:\d+:\d+: error: .*is defined inside the stream.cmd.execute"):
        _run_passes(module, ctx, ["iree-stream-pack-dispatch-operands"])


def test_predict_example_bindings_are_fused_rebased_and_folded_and_it_runs(tmp_path):
    """Whole pipeline on examples/predict.mlir (needs the stream passes before these too); data
    tiling off so the five plain dispatches are the ones counted."""
    from rt.compiler.driver import compile_source

    with open(os.path.join(ROOT, "examples", "predict.mlir"), encoding="utf-8") as f:
        text = f.read()
    vmfb = compile_source(text, "predict.mlir", devices=["__device_0=vmvx"],
                          options={"dump_after": "iree-stream-annotate-dispatch-arguments", "dump_dir": str(tmp_path),
                                   "data_tiling": False})
    dump = next(p for p in tmp_path.iterdir() if p.name.endswith("annotate-dispatch-arguments.mlir"))
    ctx = make_context()
    module = parse_module(dump.read_text(), dump.name, ctx)
    dispatches = [op for op in module.walk() if op.name == "stream.cmd.dispatch"]
    assert len(dispatches) == 5
    for d in dispatches:
        assert not d.uniform_operands
        assert all(o.owner.value.value.data == 0 for o in d.resource_offsets)
        assert list(d.resource_lengths) == list(d.resource_sizes)
        readonly = [r for r, a in zip(d.resources, d.accesses()) if a == "ro"]
        assert len(set(readonly)) == len(readonly)
    funcs = [op for op in module.walk() if op.name == "func.func"]
    assert len(funcs) == 5
    for func in funcs:
        bindings = [(t, d) for t, d in zip(func.function_type.inputs.data, func.properties["arg_attrs"].data)]
        assert all(str(t) == "!stream.binding" and d.data["stream.alignment"].value.data == 64 for t, d in bindings)
    x = np.array([[0.5, -1.5]], np.float32)
    w = np.array([[0.1, -0.2, 0.3, -0.4, 0.5, -0.6, 0.7, -0.8, 0.9, -1.0],
                  [1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1]], np.float32)
    logits = x @ w
    e = np.exp(logits - logits.max())
    np.testing.assert_allclose(np.asarray(rt.load(vmfb).predict(x)), e / e.sum(), rtol=1e-5, atol=1e-7)
