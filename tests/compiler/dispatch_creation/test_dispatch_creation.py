"""ABI wrapping + dispatch creation end to end on the shared examples, plus bad input."""
import json
import os

import pytest

from rt.compiler.dialects import flow, make_context, util
from rt.compiler.frontend import parse_module
from rt.compiler.passes import PassPipeline, pipeline
from rt.compiler.passes.registry import get_pass_class
from rt.runtime.errors import CompileError

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


def _compile(text, name="t.mlir"):
    """Dispatch creation without data tiling (tests/compiler/data_tiling covers the tiled form)."""
    module = parse_module(text, name)
    ctx = make_context()
    PassPipeline(pipeline.build_passes({"data_tiling": False, "compile_to": "flow"})).run(module, ctx)
    return module


def _example(name):
    with open(os.path.join(ROOT, "examples", name)) as f:
        return _compile(f.read(), name)


def _dispatches(module):
    return [op for op in module.walk() if isinstance(op, flow.DispatchOp)]


def test_pass_names_are_registered_in_order():
    names = [e.name for e in pipeline.entries(compile_from="input", compile_to="flow")]
    assert names[0] == "iree-abi-wrap-entry-points" and names[-1] == "iree-flow-inject-dispatch-tracing"
    assert [get_pass_class(n).name for n in names] == names


@pytest.mark.parametrize("name,exports", [
    ("matmul_f32.mlir", ["foo_dispatch_0_matmul_DxDxD_f32"]),
    ("mlp.mlir", ["mlp_dispatch_0_matmul_64x512x784_f32", "mlp_dispatch_1_matmul_64x512x512_f32",
                  "mlp_dispatch_2_matmul_64x10x512_f32"]),
    ("predict.mlir", ["predict_dispatch_0_matmul_1x10x2_f32", "predict_dispatch_1_reduction_1x10_f32",
                      "predict_dispatch_2_elementwise_broadcast_1x10_f32", "predict_dispatch_3_reduction_1x10_f32",
                      "predict_dispatch_4_elementwise_broadcast_1x10_f32"]),
    ("test_constant_add.mlir", ["test_dispatch_0_elementwise_10_f32"]),
])
def test_examples_give_irees_dispatches(name, exports):
    module = _example(name)
    got = [d.entry_point.nested_references.data[0].data for d in _dispatches(module)]
    assert got == exports
    executables = [op for op in module.body.block.ops if isinstance(op, flow.ExecutableOp)]
    assert [e.sym_name.data for e in executables] == [x.rsplit("_", 3)[0] if "DxDxD" in x else x[:x.index("_dispatch_") + 11]
                                                      for x in exports]
    text = str(module)
    assert str(parse_module(text, "again.mlir")) == text


def test_mlp_fuses_bias_and_relu_into_each_matmul():
    module = _example("mlp.mlir")
    bodies = [op for op in module.walk() if op.name == "func.func"]
    kinds = [[o.name for o in body.walk() if o.name.startswith("linalg.") and o.name != "linalg.yield"] for body in bodies]
    assert kinds == [["linalg.fill", "linalg.matmul", "linalg.generic"]] * 3
    relus = [sum(1 for o in body.walk() if o.name == "arith.maximumf") for body in bodies]
    assert relus == [1, 1, 0]


def test_matmul_workload_and_operands_are_the_dynamic_dims():
    module = _example("matmul_f32.mlir")
    (dispatch,) = _dispatches(module)
    names = {op.results[0]: op.index.value.data for op in module.walk() if op.name == "hal.buffer_view.dim"}
    owners = {op.results[0]: op.buffer_view.name_hint for op in module.walk() if op.name == "hal.buffer_view.dim"}
    assert [(owners[w], names[w]) for w in dispatch.workload] == [("lhs", 0), ("rhs", 1)]
    assert [str(a.type) for a in dispatch.arguments] == ["tensor<?x?xf32>"] * 2 + ["index"] * 4
    assert [(owners[d], names[d]) for d in dispatch.result_dims] == [("lhs", 0), ("rhs", 1)]


def test_abi_reflection_follows_the_documented_json():
    module = _example("matmul_f32.mlir")
    fn = next(op for op in module.walk() if isinstance(op, util.FuncOp) and op.sym_name.data == "foo")
    reflection = fn.attributes["iree.reflection"].data
    assert reflection["iree.abi.declaration"].data == \
        "func @foo(%lhs: tensor<?x?xf32>, %rhs: tensor<?x?xf32>) -> tensor<?x?xf32>"
    abi = json.loads(reflection["rt.abi"].data)
    assert abi["args"][0] == {"name": "lhs", "type": "tensor<?x?xf32>", "kind": "tensor", "shape": [None, None],
                              "dtype": "f32", "encoding": None}
    assert [r["name"] for r in abi["results"]] == ["output0"]
    assert reflection["rt.source"].data == "matmul_f32.mlir:1:1"
    assert [str(t) for t in fn.function_type.inputs.data] == ["!hal.buffer_view"] * 2


def test_scalars_stay_scalars_and_slices_pads_work():
    module = _compile("""
func.func @f(%n: index, %x: f32, %t: tensor<?xf32>) -> (f32, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %e = tensor.extract %t[%c0] : tensor<?xf32>
  %s = tensor.extract_slice %t[1] [%n] [1] : tensor<?xf32> to tensor<?xf32>
  %p = tensor.pad %s low[1] high[2] {
  ^bb0(%i: index):
    tensor.yield %x : f32
  } : tensor<?xf32> to tensor<?xf32>
  return %e, %p : f32, tensor<?xf32>
}""")
    fn = next(op for op in module.walk() if isinstance(op, util.FuncOp))
    assert [str(t) for t in fn.function_type.inputs.data] == ["index", "f32", "!hal.buffer_view"]
    assert [str(t) for t in fn.function_type.outputs.data] == ["f32", "!hal.buffer_view"]
    names = [op.name for op in fn.body.block.ops]
    assert "flow.tensor.load" in names and "flow.tensor.slice" in names
    (dispatch,) = _dispatches(module)
    assert dispatch.entry_point.nested_references.data[0].data == "f_dispatch_0_pad_D_f32"
    assert [str(a.type) for a in dispatch.arguments] == ["tensor<?xf32>", "f32", "index", "index"]


def test_e2e_function_without_tensors_keeps_check_ops_on_host():
    module = _compile("""
func.func @check_add() {
  %a = util.unfoldable_constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = arith.constant dense<3.0> : tensor<2xf32>
  %c = arith.addf %a, %b : tensor<2xf32>
  check.expect_almost_eq_const(%c, dense<[4.0, 5.0]> : tensor<2xf32>) : tensor<2xf32>
  return
}""")
    fn = next(op for op in module.walk() if isinstance(op, util.FuncOp))
    assert "iree.abi.stub" in fn.attributes
    names = [op.name for op in fn.body.block.ops]
    # the splat addend is a scalar constant inside the dispatch (elementwise-op-fusion folds
    # splat inputs), so the host makes no splat tensor
    assert names.count("flow.tensor.splat") == 0 and names.count("flow.dispatch") == 1
    assert names[-2:] == ["check.expect_almost_eq_const", "util.return"]


def test_unsupported_public_signature_is_a_located_error():
    with pytest.raises(CompileError) as info:
        _compile("func.func @f(%m: memref<4xf32>) {\n  return\n}", "bad.mlir")
    assert info.value.file == "bad.mlir" and info.value.line == 1
    assert "argument 0 of @f has type memref<4xf32>" in info.value.message


def test_a_splat_like_generic_read_only_inside_a_body_gets_a_dispatch():
    """A generic with no inputs (a table built from linalg.index) that its consumer reads only by
    tensor.extract inside the body is not an operand to clone: it must be a dispatch of its own
    (it was left outside every dispatch, a CompileError), and the lookup gives the table's values."""
    import numpy as np

    import rt
    text = """
func.func @table_lookup(%i: tensor<4xi32>) -> tensor<4xi32> {
  %init = tensor.empty() : tensor<16xi32>
  %table = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%init : tensor<16xi32>) {
  ^bb0(%o: i32):
    %k = linalg.index 0 : index
    %v = arith.index_cast %k : index to i32
    %sq = arith.muli %v, %v : i32
    linalg.yield %sq : i32
  } -> tensor<16xi32>
  %e = tensor.empty() : tensor<4xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%i : tensor<4xi32>) outs(%e : tensor<4xi32>) {
  ^bb0(%x: i32, %o: i32):
    %at = arith.index_cast %x : i32 to index
    %y = tensor.extract %table[%at] : tensor<16xi32>
    linalg.yield %y : i32
  } -> tensor<4xi32>
  return %r : tensor<4xi32>
}
"""
    for device in ("llvm-cpu", "vmvx"):
        module = rt.load(rt.compile(text, devices=[device]), devices=[f"local-sync://{device}"])
        np.testing.assert_array_equal(np.asarray(module.table_lookup(np.array([0, 3, 7, 15], np.int32))), [0, 9, 49, 225])
