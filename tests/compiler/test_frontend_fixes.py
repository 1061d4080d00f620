"""Regression tests for the frontend fixes the e2e suite needed (issue 4, brief F2).

1. op locations at the op name (``%0 = linalg.matmul`` -> the column of ``linalg``);
2. ``arith.cmpf``/``cmpi`` on tensors give ``tensor<..xi1>``; ``arith.select`` takes it;
3. named linalg ops with mixed element types cast their inputs in the implicit body;
4. every arith/math elementwise op and cast on tensors becomes a ``linalg.generic``;
5. ``util.unfoldable_constant`` survives the input phase.
"""
import pytest
from xdsl.dialects.builtin import IntegerType, TensorType, VectorType

from rt.compiler.dialects import make_context
from rt.compiler.frontend import parse_module
from rt.compiler.frontend.diagnostics import op_location
from rt.compiler.passes import PassPipeline
from rt.compiler.passes.registry import get_pass_class
from rt.runtime.errors import CompileError

INPUT_PASSES = ("verify", "canonicalize", "cse", "convert-elementwise-to-linalg", "linalg-normalize-named-ops")


def _run(text, *passes, name="t.mlir"):
    ctx = make_context()
    module = parse_module(text, name, ctx)
    PassPipeline([get_pass_class(p)() for p in passes]).run(module, ctx)
    return module


def _ops(module, name):
    return [op for op in module.walk() if op.name == name]


def _body(op):
    return [o.name for o in op.regions[0].block.ops]


# ---------------------------------------------------------------- 1. locations
LOCATED = """func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %a, %a : tensor<4xf32>
  %2 = "arith.mulf"(%0, %0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
}"""


def test_op_location_is_the_op_name():
    module = parse_module(LOCATED, "loc.mlir")
    where = {op.name: op_location(op) for op in module.walk() if op.name != "builtin.module"}
    assert where["func.func"] == ("loc.mlir", 1, 1)
    assert where["arith.addf"] == ("loc.mlir", 2, 8)
    assert where["arith.mulf"] == ("loc.mlir", 3, 8)
    assert where["func.return"] == ("loc.mlir", 4, 3)


def test_multi_result_op_location_is_the_op_name():
    text = """func.func @f(%a: tensor<4xi32>) -> tensor<4xi32> {
  %s, %o = arith.addui_extended %a, %a : tensor<4xi32>, tensor<4xi1>
  %p:2 = arith.mului_extended %a, %a : tensor<4xi32>
  return %s : tensor<4xi32>
}"""
    module = parse_module(text, "multi.mlir")
    assert op_location(_ops(module, "arith.addui_extended")[0]) == ("multi.mlir", 2, 12)
    assert op_location(_ops(module, "arith.mului_extended")[0]) == ("multi.mlir", 3, 10)


def test_verifier_error_points_at_the_op_name():
    text = """func.func @f() {
  %a = util.unfoldable_constant dense<1.0> : tensor<2x3xf32>
  %b = util.unfoldable_constant dense<1.0> : tensor<4x2xf32>
  %e = tensor.empty() : tensor<2x2xf32>
  %c = linalg.matmul ins(%a, %b : tensor<2x3xf32>, tensor<4x2xf32>) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  return
}"""
    with pytest.raises(CompileError) as info:
        parse_module(text, "mm.mlir")
    err = info.value
    assert (err.file, err.line, err.col) == ("mm.mlir", 5, 8)
    assert "'linalg.matmul' op" in err.message


def test_op_build_error_points_at_the_op_name():
    with pytest.raises(CompileError) as info:
        parse_module("func.func @f(%a: tensor<4xf32>) {\n  %0 = arith.cmpf bogus, %a, %a : tensor<4xf32>\n  return\n}",
                     "pred.mlir")
    assert (info.value.line, info.value.col) == (2, 19)
    assert "unknown arith.cmpf predicate 'bogus'" in info.value.message


# ------------------------------------------------------------- 2. comparisons
@pytest.mark.parametrize("text, result", [
    ("arith.cmpf olt, %f, %f : tensor<2x?xf32>", "tensor<2x?xi1>"),
    ("arith.cmpi slt, %i, %i : tensor<2x?xi32>", "tensor<2x?xi1>"),
    ("arith.cmpf oge, %s, %s : f32", "i1"),
    ("arith.cmpi ult, %v, %v : vector<8xi32>", "vector<8xi1>"),
])
def test_comparison_result_has_the_operands_shape(text, result):
    src = (f"func.func @f(%f: tensor<2x?xf32>, %i: tensor<2x?xi32>, %s: f32, %v: vector<8xi32>) -> {result} {{\n"
           f"  %r = {text}\n  return %r : {result}\n}}")
    module = parse_module(src, "cmp.mlir")
    cmp = next(op for op in module.walk() if op.name.startswith("arith.cmp"))
    assert str(cmp.result.type) == result
    assert f"= {text}" in str(module)
    assert str(parse_module(str(module))) == str(module)


def test_comparison_keeps_fastmath():
    module = parse_module("func.func @f(%a: tensor<3xf32>) -> tensor<3xi1> {\n"
                          "  %r = arith.cmpf ogt, %a, %a fastmath<nnan> : tensor<3xf32>\n  return %r : tensor<3xi1>\n}")
    assert "arith.cmpf ogt, %a, %a fastmath<nnan> : tensor<3xf32>" in str(module)


def test_comparison_with_a_scalar_result_on_tensors_is_rejected():
    text = ('func.func @f(%a: tensor<4xi32>) -> i1 {\n'
            '  %r = "arith.cmpi"(%a, %a) <{predicate = 2 : i64}> : (tensor<4xi32>, tensor<4xi32>) -> i1\n'
            '  return %r : i1\n}')
    with pytest.raises(CompileError) as info:
        parse_module(text, "bad.mlir")
    assert (info.value.line, info.value.col) == (2, 8)
    assert "must be tensor<4xi1>" in info.value.message


def test_select_takes_the_tensor_condition_of_a_comparison():
    text = """func.func @relu(%x: tensor<4xf32>, %z: tensor<4xf32>) -> tensor<4xf32> {
  %c = arith.cmpf ogt, %x, %z : tensor<4xf32>
  %r = arith.select %c, %x, %z : tensor<4xi1>, tensor<4xf32>
  return %r : tensor<4xf32>
}"""
    module = _run(text, *INPUT_PASSES)
    generics = _ops(module, "linalg.generic")
    assert [_body(g) for g in generics] == [["arith.cmpf", "linalg.yield"], ["arith.select", "linalg.yield"]]
    assert generics[0].results[0].type == TensorType(IntegerType(1), [4])
    assert generics[1].inputs[0] == generics[0].results[0]


# ------------------------------------------------------- 3. mixed element types
MIXED = {
    "matmul_i8_i32": ("linalg.matmul", "tensor<2x3xi8>", "tensor<3x2xi8>", "tensor<2x2xi32>", "",
                      ["arith.extsi", "arith.extsi", "arith.muli", "arith.addi", "linalg.yield"]),
    "matmul_f16_f32": ("linalg.matmul", "tensor<2x3xf16>", "tensor<3x2xf16>", "tensor<2x2xf32>", "",
                       ["arith.extf", "arith.extf", "arith.mulf", "arith.addf", "linalg.yield"]),
    "matmul_i8_f32": ("linalg.matmul", "tensor<2x3xi8>", "tensor<3x2xi8>", "tensor<2x2xf32>", "",
                      ["arith.sitofp", "arith.sitofp", "arith.mulf", "arith.addf", "linalg.yield"]),
    "batch_matmul_i8_i32": ("linalg.batch_matmul", "tensor<2x2x3xi8>", "tensor<2x3x2xi8>", "tensor<2x2x2xi32>", "",
                            ["arith.extsi", "arith.extsi", "arith.muli", "arith.addi", "linalg.yield"]),
    "matvec_f16_f32": ("linalg.matvec", "tensor<4x3xf16>", "tensor<3xf16>", "tensor<4xf32>", "",
                       ["arith.extf", "arith.extf", "arith.mulf", "arith.addf", "linalg.yield"]),
    "conv_i8_i32": ("linalg.conv_2d_nhwc_hwcf", "tensor<1x4x4x1xi8>", "tensor<3x3x1x2xi8>", "tensor<1x2x2x2xi32>",
                    "{dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}",
                    ["arith.extsi", "arith.extsi", "arith.muli", "arith.addi", "linalg.yield"]),
    "pooling_sum_f16_f32": ("linalg.pooling_nhwc_sum", "tensor<1x4x4x1xf16>", "tensor<2x2xf32>", "tensor<1x3x3x1xf32>",
                            "{dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}",
                            ["arith.extf", "arith.addf", "linalg.yield"]),
}


@pytest.mark.parametrize("case", sorted(MIXED))
def test_named_op_with_mixed_element_types_verifies_with_casts(case):
    name, lhs, rhs, out, attrs, body = MIXED[case]
    text = (f"func.func @f(%a: {lhs}, %b: {rhs}, %c: {out}) -> {out} {{\n"
            f"  %r = {name} {attrs} ins(%a, %b : {lhs}, {rhs}) outs(%c : {out}) -> {out}\n"
            f"  return %r : {out}\n}}")
    module = _run(text, *INPUT_PASSES)
    op = _ops(module, name)[0]
    assert _body(op) == body
    block = op.regions[0].block
    *_, add, _ = block.ops
    assert block.args[2] in add.operands
    assert str(parse_module(str(module))) == str(module)


def test_fill_casts_its_value_to_the_output_element_type():
    module = parse_module("func.func @f(%v: f32, %e: tensor<4xf16>) -> tensor<4xf16> {\n"
                          "  %r = linalg.fill ins(%v : f32) outs(%e : tensor<4xf16>) -> tensor<4xf16>\n"
                          "  return %r : tensor<4xf16>\n}")
    assert _body(_ops(module, "linalg.fill")[0]) == ["arith.truncf", "linalg.yield"]


def test_pooling_nchw_max_reads_the_input_and_the_accumulator():
    module = parse_module(
        "func.func @f(%x: tensor<1x1x4x4xf32>, %w: tensor<2x2xf32>, %o: tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32> {\n"
        "  %r = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}"
        " ins(%x, %w : tensor<1x1x4x4xf32>, tensor<2x2xf32>) outs(%o : tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>\n"
        "  return %r : tensor<1x1x2x2xf32>\n}")
    block = _ops(module, "linalg.pooling_nchw_max")[0].regions[0].block
    maximum = next(iter(block.ops))
    assert maximum.name == "arith.maximumf"
    assert set(maximum.operands) == {block.args[0], block.args[2]}


# ------------------------------------------------------ 4. elementwise on tensors
T, I, B = "tensor<2x?xf32>", "tensor<2x?xi32>", "tensor<2x?xi1>"
ELEMENTWISE = {
    **{f"arith.{n}": (f"%r = arith.{n} %f, %f : {T}", T)
       for n in "addf subf mulf divf remf maximumf minimumf maxnumf minnumf".split()},
    **{f"arith.{n}": (f"%r = arith.{n} %i, %i : {I}", I)
       for n in ("addi subi muli divsi divui remsi remui ceildivsi ceildivui floordivsi maxsi maxui minsi minui "
                 "andi ori xori shli shrsi shrui").split()},
    "arith.negf": (f"%r = arith.negf %f : {T}", T),
    "arith.cmpf": (f"%r = arith.cmpf ole, %f, %f : {T}", B),
    "arith.cmpi": (f"%r = arith.cmpi ne, %i, %i : {I}", B),
    "arith.select": (f"%r = arith.select %b, %f, %f : {B}, {T}", T),
    "arith.sitofp": (f"%r = arith.sitofp %i : {I} to {T}", T),
    "arith.uitofp": (f"%r = arith.uitofp %i : {I} to {T}", T),
    "arith.fptosi": (f"%r = arith.fptosi %f : {T} to {I}", I),
    "arith.fptoui": (f"%r = arith.fptoui %f : {T} to {I}", I),
    "arith.extsi": (f"%r = arith.extsi %i : {I} to tensor<2x?xi64>", "tensor<2x?xi64>"),
    "arith.extui": (f"%r = arith.extui %b : {B} to {I}", I),
    "arith.trunci": (f"%r = arith.trunci %i : {I} to tensor<2x?xi8>", "tensor<2x?xi8>"),
    "arith.extf": (f"%r = arith.extf %f : {T} to tensor<2x?xf64>", "tensor<2x?xf64>"),
    "arith.truncf": (f"%r = arith.truncf %f : {T} to tensor<2x?xf16>", "tensor<2x?xf16>"),
    "arith.index_cast": (f"%r = arith.index_cast %i : {I} to tensor<2x?xindex>", "tensor<2x?xindex>"),
    "arith.index_castui": (f"%r = arith.index_castui %i : {I} to tensor<2x?xindex>", "tensor<2x?xindex>"),
    "arith.bitcast": (f"%r = arith.bitcast %f : {T} to {I}", I),
    "arith.scaling_extf": (f"%r = arith.scaling_extf %f, %f : {T}, {T} to tensor<2x?xf64>", "tensor<2x?xf64>"),
    "arith.scaling_truncf": (f"%r = arith.scaling_truncf %f, %f : {T}, {T} to tensor<2x?xf16>",
                             "tensor<2x?xf16>"),
    "arith.addui_extended": (f"%r, %o = arith.addui_extended %i, %i : {I}, {B}", I),
    "arith.mulsi_extended": (f"%r, %o = arith.mulsi_extended %i, %i : {I}", I),
    "arith.mului_extended": (f"%r, %o = arith.mului_extended %i, %i : {I}", I),
    **{f"math.{n}": (f"%r = math.{n} %f : {T}", T)
       for n in ("absf acos acosh asin asinh atan atanh cbrt ceil cos cosh erf erfc exp exp2 expm1 floor log log10 "
                 "log1p log2 round roundeven rsqrt sin sinh sqrt tan tanh trunc").split()},
    **{f"math.{n}": (f"%r = math.{n} %f, %f : {T}", T) for n in "atan2 copysign powf".split()},
    **{f"math.{n}": (f"%r = math.{n} %i : {I}", I) for n in "absi ctlz ctpop cttz".split()},
    "math.ipowi": (f"%r = math.ipowi %i, %i : {I}", I),
    "math.fpowi": (f"%r = math.fpowi %f, %i : {T}, {I}", T),
    "math.fma": (f"%r = math.fma %f, %f, %f : {T}", T),
    **{f"math.{n}": (f"%r = math.{n} %f : {T}", B) for n in "isnan isinf isfinite".split()},
}


def test_every_arith_and_math_op_is_covered():
    ctx = make_context()
    names = {op.name for d in ("arith", "math") for op in ctx.get_dialect(d).operations}
    assert names - set(ELEMENTWISE) == {"arith.constant"}


@pytest.mark.parametrize("name", sorted(ELEMENTWISE))
def test_elementwise_op_on_tensors_becomes_a_generic(name):
    line, result = ELEMENTWISE[name]
    text = (f"func.func @f(%f: {T}, %i: {I}, %b: {B}) -> {result} {{\n  {line}\n  return %r : {result}\n}}")
    module = _run(text, *INPUT_PASSES)
    generic = _ops(module, "linalg.generic")
    assert len(generic) == 1
    assert _body(generic[0]) == [name, "linalg.yield"]
    scalar = next(iter(generic[0].regions[0].block.ops))
    assert all(not isinstance(v.type, (TensorType, VectorType)) for v in (*scalar.operands, *scalar.results))
    assert [str(r.type) for r in generic[0].results][0] == result
    assert len(generic[0].results) == len(scalar.results)
    assert len(_ops(module, "tensor.dim")) == 1
    assert str(parse_module(str(module))) == str(module)


# ------------------------------------------------------- 5. unfoldable constants
def test_unfoldable_constant_survives_the_input_phase():
    text = """func.func @f() -> tensor<4xf32> {
  %a = util.unfoldable_constant dense<2.0> : tensor<4xf32>
  %b = util.unfoldable_constant dense<2.0> : tensor<4xf32>
  %unused = util.unfoldable_constant 7 : i32
  %s = arith.addf %a, %b : tensor<4xf32>
  return %s : tensor<4xf32>
}"""
    module = _run(text, *INPUT_PASSES)
    kept = _ops(module, "util.unfoldable_constant")
    assert [str(op.result.type) for op in kept] == ["tensor<4xf32>", "tensor<4xf32>", "i32"]
    generic = _ops(module, "linalg.generic")[0]
    assert list(generic.inputs) == [kept[0].result, kept[1].result]
    assert not _ops(module, "arith.constant")


def test_unfoldable_constant_type_mismatch_is_located():
    with pytest.raises(CompileError) as info:
        parse_module('func.func @f() {\n  %a = "util.unfoldable_constant"() <{value = 1 : i32}> : () -> f32\n  return\n}',
                     "u.mlir")
    assert (info.value.line, info.value.col) == (2, 8)
    assert "value type i32 differs from result type f32" in info.value.message


def test_a_single_result_type_after_an_arrow_needs_no_parentheses():
    """MLIR prints ``scf.if %c -> tensor<2xf32>`` and accepts ``scf.for ... -> tensor<2xf32>``
    (parseArrowTypeList); both parse to the same ops as the parenthesized forms."""
    bare = """
func.func @f(%t: tensor<2xf32>, %c: i1, %n: index) -> tensor<2xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = scf.if %c -> tensor<2xf32> {
    scf.yield %t : tensor<2xf32>
  } else {
    scf.yield %t : tensor<2xf32>
  }
  %b = scf.for %i = %c0 to %n step %c1 iter_args(%x = %a) -> tensor<2xf32> {
    scf.yield %x : tensor<2xf32>
  }
  return %b : tensor<2xf32>
}
"""
    parens = bare.replace("-> tensor<2xf32> {\n    scf", "-> (tensor<2xf32>) {\n    scf")
    assert parens != bare
    assert str(parse_module(bare, "bare.mlir")) == str(parse_module(parens, "parens.mlir"))


def test_an_arrow_followed_by_a_non_type_is_still_a_located_error():
    text = "func.func @f(%c: i1) {\n  %a = scf.if %c -> 3 {\n  }\n  return\n}\n"
    with pytest.raises(CompileError, match=r"2:\d+: error: "):
        parse_module(text, "t.mlir")
