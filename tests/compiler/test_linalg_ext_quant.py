"""``iree_linalg_ext.quantize_affine`` / ``dequantize_affine``: IREE 3.13's printed form (as its ONNX
importer writes it) round-trips, and the verifier gives located errors that say what was expected."""
import pytest

from rt.compiler.frontend import parse_module
from rt.runtime.errors import CompileError

MAPS = "indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, " \
       "affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>]"
QUANTIZE = (f"%r = iree_linalg_ext.quantize_affine <{MAPS}, quant_min = 0, quant_max = 255, storage_unsigned, "
            "zp_unsigned> ins(%x, %s, %z : tensor<2x3xf32>, tensor<3xf32>, tensor<3xi8>) "
            "outs(%o : tensor<2x3xi8>) -> tensor<2x3xi8>")
DEQUANTIZE = ("%r = iree_linalg_ext.dequantize_affine <indexing_maps = [affine_map<(d0) -> (d0)>, "
              "affine_map<(d0) -> ()>, affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>], quant_min = -128, "
              "quant_max = 127> ins(%q, %c, %p : tensor<4xi8>, f32, i64) outs(%f : tensor<4xf32>) -> tensor<4xf32>")
ARGS = ("%x: tensor<2x3xf32>, %s: tensor<3xf32>, %z: tensor<3xi8>, %o: tensor<2x3xi8>, "
        "%q: tensor<4xi8>, %c: f32, %p: i64, %f: tensor<4xf32>")


def _program(body):
    return f"func.func @f({ARGS}) {{\n  {body}\n  return\n}}\n"


@pytest.mark.parametrize("body", [QUANTIZE, DEQUANTIZE], ids=["quantize", "dequantize"])
def test_prints_as_iree_writes_it_and_round_trips(body):
    printed = str(parse_module(_program(body), "q.mlir"))
    assert body.split(" = ", 1)[1] in printed.replace("\n", " ")
    assert str(parse_module(printed, "again.mlir")) == printed


BAD = [
    (QUANTIZE, "affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>]",
     "affine_map<(d0, d1) -> (d0, d1)>]", "expected 4 indexing maps"),
    (QUANTIZE, "quant_min = 0", "quant_min = 300", "quant_min (300) must not exceed quant_max (255)"),
    (QUANTIZE, "outs(%o : tensor<2x3xi8>) -> tensor<2x3xi8>", "outs(%x : tensor<2x3xf32>) -> tensor<2x3xf32>",
     "the input must be floats and the output integers"),
    (DEQUANTIZE, "affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>]", "affine_map<(d0) -> (d0)>, "
     "affine_map<(d0) -> (d0)>]", "the indexing map of the zero point"),
    (DEQUANTIZE, "quant_max = 127>", "quant_max = 127, storage_unsigned>", "unknown property 'storage_unsigned'"),
]


@pytest.mark.parametrize("body,old,new,message", BAD, ids=[str(i) for i in range(len(BAD))])
def test_bad_op_is_a_located_error(body, old, new, message):
    assert old in body
    with pytest.raises(CompileError) as info:
        parse_module(_program(body.replace(old, new)), "bad.mlir")
    assert "bad.mlir:" in str(info.value)
    assert message in str(info.value)
