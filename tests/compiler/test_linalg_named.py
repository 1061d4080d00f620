"""linalg's named structured ops (compiler/dialects/linalg_named.py): every row of the table
parses, verifies and round-trips; MLIR's defaults and explicit indexing_maps; located errors."""
import pytest
from xdsl.ir.affine import AffineDimExpr

from rt.compiler.dialects.linalg_named import NAMED_OPS, table_maps
from rt.compiler.frontend import parse_module
from rt.runtime.errors import CompileError


def _example(row, extent=2):
    """A function applying ``linalg.<row>`` to arguments whose shapes its maps imply."""
    maps = table_maps(row, (1, 1, 1), (1, 1, 1))
    types = []
    for i, m in enumerate(maps):
        shape = [m_expr.eval([extent - 1] * m.num_dims, []) + 1 for m_expr in m.results]
        scalar = not shape and i < len(maps) - 1
        types.append("f32" if scalar else f"tensor<{'x'.join(map(str, shape))}{'x' if shape else ''}f32>")
    args = ", ".join(f"%a{i}: {t}" for i, t in enumerate(types))
    ins = ", ".join(f"%a{i}" for i in range(len(types) - 1))
    out = f"%a{len(types) - 1}"
    return (f"func.func @f({args}) -> {types[-1]} {{\n"
            f"  %r = linalg.{row} ins({ins} : {', '.join(types[:-1])}) outs({out} : {types[-1]}) -> {types[-1]}\n"
            f"  return %r : {types[-1]}\n}}\n")


@pytest.mark.parametrize("row", sorted(NAMED_OPS))
def test_every_named_op_parses_verifies_and_round_trips(row):
    module = parse_module(_example(row), f"{row}.mlir")
    (op,) = [o for o in module.walk() if o.name == f"linalg.{row}"]
    text = str(module)
    assert str(parse_module(text, "again.mlir")) == text
    out_map = op.get_indexing_maps().data[-1].data
    used = {r.position for r in out_map.results if isinstance(r, AffineDimExpr)}
    iterators = [str(it.data.value) for it in op.get_iterator_types().data]
    assert iterators == ["parallel" if d in used else "reduction" for d in range(out_map.num_dims)]
    assert op.body.block.last_op.name == "linalg.yield"


def test_conv_defaults_to_unit_strides_and_prints_no_attributes():
    text = _example("conv_2d_nhwc_hwcf")
    op = [o for o in parse_module(text, "c.mlir").walk() if o.name == "linalg.conv_2d_nhwc_hwcf"][0]
    assert op.window("strides") == (1, 1) and op.window("dilations") == (1, 1)
    assert "strides" not in str(op)


def test_strided_conv_maps_use_strides_and_dilations():
    text = """func.func @f(%x: tensor<1x9x9x1xf32>, %w: tensor<3x3x1x1xf32>, %o: tensor<1x3x2x1xf32>) -> tensor<1x3x2x1xf32> {
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<[3, 2]> : tensor<2xi64>} ins(%x, %w : tensor<1x9x9x1xf32>, tensor<3x3x1x1xf32>) outs(%o : tensor<1x3x2x1xf32>) -> tensor<1x3x2x1xf32>
  return %r : tensor<1x3x2x1xf32>
}"""
    module = parse_module(text, "s.mlir")
    op = [o for o in module.walk() if o.name == "linalg.conv_2d_nhwc_hwcf"][0]
    image = op.get_indexing_maps().data[0].data
    assert str(image) == "(d0, d1, d2, d3, d4, d5, d6) -> (d0, ((d1 * 3) + d4), ((d2 * 2) + (d5 * 2)), d6)"
    assert "strides = dense<[3, 2]>" in str(module)


def test_matmul_indexing_maps_round_trip_in_mlir_syntax():
    text = """func.func @f(%a: tensor<3x2xf32>, %b: tensor<4x3xf32>, %c: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %r = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%a, %b : tensor<3x2xf32>, tensor<4x3xf32>) outs(%c : tensor<2x4xf32>) -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}"""
    module = parse_module(text, "m.mlir")
    printed = str(module)
    assert "linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>" in printed
    assert str(parse_module(printed, "again.mlir")) == printed


@pytest.mark.parametrize("op_text,fragment", [
    ("linalg.conv_2d_nhwc_hwcf {strides = dense<1> : tensor<3xi64>} ins(%x, %w : tensor<1x4x4x1xf32>, tensor<2x2x1x1xf32>) outs(%o : tensor<1x3x3x1xf32>) -> tensor<1x3x3x1xf32>",
     "expected 'strides' to be 2 positive integers, got [1, 1, 1]"),
    ("linalg.conv_2d_nhwc_hwcf {dilations = dense<0> : tensor<2xi64>} ins(%x, %w : tensor<1x4x4x1xf32>, tensor<2x2x1x1xf32>) outs(%o : tensor<1x3x3x1xf32>) -> tensor<1x3x3x1xf32>",
     "expected 'dilations' to be 2 positive integers"),
    ("linalg.conv_2d_nhwc_hwcf indexing_maps = [] ins(%x, %w : tensor<1x4x4x1xf32>, tensor<2x2x1x1xf32>) outs(%o : tensor<1x3x3x1xf32>) -> tensor<1x3x3x1xf32>",
     "does not take explicit indexing_maps"),
    ("linalg.matmul indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>] ins(%m, %m : tensor<2x2xf32>, tensor<2x2xf32>) outs(%m : tensor<2x2xf32>) -> tensor<2x2xf32>",
     "expected indexing_maps over 3 dims (m n k)"),
    ("linalg.matmul ins(%m, %m, %m : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) outs(%m : tensor<2x2xf32>) -> tensor<2x2xf32>",
     "expected 2 inputs and 1 output, got 3 inputs"),
    ("linalg.conv_2d_nhwc_hwcf ins(%x, %w : tensor<1x4x4x1xf32>, tensor<2x2x1x1xf32>) outs(%x : tensor<1x4x4x1xf32>) -> tensor<1x4x4x1xf32>",
     "'linalg.conv_2d_nhwc_hwcf' op inferred input/output operand #0"),
])
def test_bad_named_ops_are_located_errors(op_text, fragment):
    text = ("func.func @f(%x: tensor<1x4x4x1xf32>, %w: tensor<2x2x1x1xf32>, %o: tensor<1x3x3x1xf32>, %m: tensor<2x2xf32>) {\n"
            f"  %r = {op_text}\n  return\n}}\n")
    with pytest.raises(CompileError) as info:
        parse_module(text, "bad.mlir")
    assert (info.value.file, info.value.line, info.value.col) == ("bad.mlir", 2, 8)
    assert fragment in info.value.message


@pytest.mark.parametrize("op_text,fragment", [
    ("linalg.softmax dimension(2) ins(%x : tensor<2x3xf32>) outs(%x : tensor<2x3xf32>) -> tensor<2x3xf32>",
     "dimension 2 is out of range for tensor<2x3xf32>"),
    ("linalg.softmax dimension(0) ins(%x : tensor<2x3xf32>) outs(%y : tensor<3x2xf32>) -> tensor<3x2xf32>",
     "expected input, init and result of one type"),
    ("linalg.softmax dimension(0) ins(%i : tensor<2x3xi32>) outs(%i : tensor<2x3xi32>) -> tensor<2x3xi32>",
     "expected a float element type, got i32"),
])
def test_bad_softmax_is_located(op_text, fragment):
    text = ("func.func @f(%x: tensor<2x3xf32>, %y: tensor<3x2xf32>, %i: tensor<2x3xi32>) {\n"
            f"  %r = {op_text}\n  return\n}}\n")
    with pytest.raises(CompileError) as info:
        parse_module(text, "bad.mlir")
    assert (info.value.file, info.value.line, info.value.col) == ("bad.mlir", 2, 8)
    assert fragment in info.value.message
