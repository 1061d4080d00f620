"""``iree_linalg_ext`` sort/scatter/gather/topk/scan/arg_compare/map/winograd (and the affine index
ops their regions use): IREE's printed syntax round-trips, and the verifiers give located errors
that say what was expected."""
import pytest

from rt.compiler.frontend import parse_module
from rt.runtime.errors import CompileError

CMP = """{
    ^bb0(%a: f32, %b: f32):
      %c = arith.cmpf ogt, %a, %b : f32
      iree_linalg_ext.yield %c : i1
    }"""
ADD = """{
    ^bb0(%a: i32, %b: i32):
      %c = arith.addi %a, %b : i32
      iree_linalg_ext.yield %c : i32
    }"""

OPS = {
    "sort": ("%x: tensor<4x3xf32>, %y: tensor<4x3xi32>",
             "%r:2 = iree_linalg_ext.sort dimension(1) outs(%x, %y : tensor<4x3xf32>, tensor<4x3xi32>) {\n"
             "    ^bb0(%a: f32, %b: f32, %c: i32, %d: i32):\n      %e = arith.cmpf olt, %a, %b : f32\n"
             "      iree_linalg_ext.yield %e : i1\n    } -> tensor<4x3xf32>, tensor<4x3xi32>"),
    "scatter": ("%u: tensor<2x3xi32>, %i: tensor<2x1xi32>, %m: tensor<2xi1>, %o: tensor<5x3xi32>",
                "%r = iree_linalg_ext.scatter dimension_map = [0] unique_indices(false) ins(%u, %i, %m : "
                "tensor<2x3xi32>, tensor<2x1xi32>, tensor<2xi1>) outs(%o : tensor<5x3xi32>) " + ADD
                + " -> tensor<5x3xi32>"),
    "gather": ("%s: tensor<5x3xf32>, %i: tensor<2xi32>, %o: tensor<2x3xf32>",
               "%r = iree_linalg_ext.gather dimension_map = [0] ins(%s, %i : tensor<5x3xf32>, tensor<2xi32>) "
               "outs(%o : tensor<2x3xf32>) -> tensor<2x3xf32>"),
    "scan": ("%x: tensor<?x8xi32>, %o: tensor<?x8xi32>, %acc: tensor<?xi32>",
             "%r:2 = iree_linalg_ext.scan dimension(1) inclusive(false) ins(%x : tensor<?x8xi32>) "
             "outs(%o, %acc : tensor<?x8xi32>, tensor<?xi32>) " + ADD + " -> tensor<?x8xi32>, tensor<?xi32>"),
    "topk": ("%x: tensor<10xf32>, %v: tensor<3xf32>, %i: tensor<3xi32>",
             "%r:2 = iree_linalg_ext.topk dimension(0) ins(%x : tensor<10xf32>) outs(%v, %i : tensor<3xf32>, "
             "tensor<3xi32>) " + CMP + " -> tensor<3xf32>, tensor<3xi32>"),
    "topk_v2": ("%x: tensor<10xf32>, %v: tensor<3xf32>",
                "%r = iree_linalg_ext.topk_v2 dimension(0) is_sorted ins(%x : tensor<10xf32>) "
                "outs(%v : tensor<3xf32>) " + CMP + " -> tensor<3xf32>"),
    "arg_compare": ("%x: tensor<2x6xf32>, %v: tensor<2xf32>, %i: tensor<2xi32>, %base: index",
                    "%r:2 = iree_linalg_ext.arg_compare dimension(1) ins(%x : tensor<2x6xf32>) outs(%v, %i : "
                    "tensor<2xf32>, tensor<2xi32>)  index_base(%base : index) " + CMP
                    + " -> tensor<2xf32>, tensor<2xi32>"),
    "map_load": ("%s: tensor<4xf32>, %o: tensor<8xf32>, %p: f32",
                 "%r = iree_linalg_ext.map_load %s into %o {\n    ^bb0(%i: index):\n"
                 "      iree_linalg_ext.yield %i, %p : index, f32\n    } : tensor<4xf32> into tensor<8xf32> "
                 "-> tensor<8xf32>"),
    "linearize": ("%i: index, %j: index, %n: index",
                  "%r = affine.linearize_index disjoint [%i, %j] by (%n, 4) : index"),
    "delinearize": ("%l: index, %n: index",
                    "%r:3 = affine.delinearize_index %l into (%n, 4) : index, index, index"),
    "winograd": ("%x: tensor<1x6x6x1xf32>, %o: tensor<8x8x1x1x1x1xf32>",
                 "%r = iree_linalg_ext.winograd.input_transform output_tile_size(6) kernel_size(3) "
                 "image_dimensions([1, 2]) ins(%x : tensor<1x6x6x1xf32>) outs(%o : tensor<8x8x1x1x1x1xf32>) "
                 "-> tensor<8x8x1x1x1x1xf32>"),
}


def _program(args, body):
    return f"func.func @f({args}) {{\n  {body}\n  return\n}}\n"


@pytest.mark.parametrize("name", sorted(OPS))
def test_op_prints_as_iree_writes_it_and_round_trips(name):
    args, body = OPS[name]
    printed = str(parse_module(_program(args, body), f"{name}.mlir"))
    head = body.split("{")[0].split(" = ", 1)[1].strip()
    assert head in printed.replace("\n", " ")
    assert str(parse_module(printed, "again.mlir")) == printed


BAD = [
    ("sort", "dimension(1)", "dimension(2)", "dimension(2) is out of range for rank 2"),
    ("sort", "%e : i1", "%a : f32", "region must yield i1, got f32"),
    ("scatter", "dimension_map = [0]", "dimension_map = [3]", "dimension_map [3] must name distinct dims"),
    ("scatter", "tensor<2xi1>", "tensor<3xi1>", "mask tensor<3xi1> must be i1 of the indices' batch shape"),
    ("gather", "outs(%o : tensor<2x3xf32>) -> tensor<2x3xf32>", "outs(%o : tensor<2x3xf32>) -> tensor<2x3xi32>",
     "result types"),
    ("scan", "tensor<?xi32>", "tensor<?x8xi32>",
     "accumulator tensor<?x8xi32> must have the input shape"),
    ("topk", "ins(%x : tensor<10xf32>)", "ins(%x : tensor<10xf32>, tensor<10xf32>)", ""),
    ("arg_compare", "tensor<2xf32>", "tensor<6xf32>", "output value tensor<6xf32> must have the input shape"),
    ("delinearize", "into (%n, 4)", "into (4)", "gives 3 results for a basis of 3 or 2 entries, got 1"),
    ("winograd", "output_tile_size(6)", "output_tile_size(4)", "supports output_tile_size(6) kernel_size(3)"),
]


@pytest.mark.parametrize("name,old,new,message", BAD, ids=[f"{b[0]}-{i}" for i, b in enumerate(BAD)])
def test_bad_op_is_a_located_error(name, old, new, message):
    args, body = OPS[name]
    text = _program(args.replace(old, new), body.replace(old, new))
    assert text != _program(args, body)
    with pytest.raises(CompileError) as info:
        parse_module(text, "bad.mlir")
    assert "bad.mlir:" in str(info.value)
    assert message in str(info.value)


def test_chlo_top_k_round_trips_and_rejects_k_past_the_row():
    text = _program("%x: tensor<2x10xf32>", "%v, %i = chlo.top_k(%x, k = 3) : tensor<2x10xf32> -> "
                    "(tensor<2x3xf32>, tensor<2x3xi32>)")
    printed = str(parse_module(text, "top_k.mlir"))
    assert "chlo.top_k(%x, k = 3) : tensor<2x10xf32> -> (tensor<2x3xf32>, tensor<2x3xi32>)" in printed
    with pytest.raises(CompileError) as info:
        parse_module(text.replace("k = 3", "k = 11").replace("x3x", "x11x").replace("2x3x", "2x11x"), "bad.mlir")
    assert "bad.mlir:" in str(info.value) and "takes k in [0, 10]" in str(info.value)


def test_sort_with_ins_operands_is_a_located_error():
    text = _program("%k: tensor<4xf32>, %v: tensor<4xf32>",
                    "%r = iree_linalg_ext.sort dimension(0) ins(%k : tensor<4xf32>) outs(%v : tensor<4xf32>) {\n"
                    "    ^bb0(%a: f32, %b: f32):\n      %c = arith.cmpf olt, %a, %b : f32\n"
                    "      iree_linalg_ext.yield %c : i1\n    } -> tensor<4xf32>")
    with pytest.raises(CompileError) as info:
        parse_module(text, "sort_ins.mlir")
    assert "sort_ins.mlir:2:" in str(info.value)
    assert "takes no inputs, got 1; sort sorts its outs(...) operands in place" in str(info.value)


def test_decomposition_rejects_buffers_with_a_located_error():
    from rt.compiler.dialects import make_context
    from rt.compiler.passes.global_optimization.decompose_linalg_ext import DecomposeLinalgExtPass

    text = _program("%s: memref<5x3xf32>, %i: memref<2xi32>, %o: memref<2x3xf32>",
                    "iree_linalg_ext.gather dimension_map = [0] ins(%s, %i : memref<5x3xf32>, memref<2xi32>) "
                    "outs(%o : memref<2x3xf32>)")
    ctx = make_context()
    with pytest.raises(CompileError) as info:
        DecomposeLinalgExtPass().run(parse_module(text, "buffers.mlir", ctx), ctx)
    assert "buffers.mlir:2:" in str(info.value) and "on buffers is not supported by rt" in str(info.value)
