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


DYNAMIC_QUANTIZE = """
func.func @main(%x: tensor<?x?xf32>, %scale: tensor<?xf32>, %zp: tensor<?xi16>) -> tensor<?x?xi16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %n = tensor.dim %x, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%m, %n) : tensor<?x?xi16>
  %q = iree_linalg_ext.quantize_affine <indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], quant_min = -32768, quant_max = 32767> ins(%x, %scale, %zp : tensor<?x?xf32>, tensor<?xf32>, tensor<?xi16>) outs(%e : tensor<?x?xi16>) -> tensor<?x?xi16>
  return %q : tensor<?x?xi16>
}
"""


@pytest.mark.parametrize("device", ["local-task://llvm-cpu", "local-sync://vmvx"])
def test_quantize_on_dynamic_and_empty_shapes_matches_numpy(device):
    """round(x / scale) (half to even) + zero point, per axis 1, clamped to the storage range."""
    import numpy as np

    import rt
    module = rt.load(rt.compile(DYNAMIC_QUANTIZE, devices=[device.split("://")[1]]), devices=[device])
    scale, zp = np.array([0.5, 1.0, 2.0], np.float32), np.array([0, 10, -3], np.int16)
    for rows in (2, 0):
        x = np.array([[1, 2, 3], [-4, 5.5, 6e5]] * 2, np.float32)[:rows]
        want = np.clip(np.round(x / scale) + zp, -32768, 32767).astype(np.int16)
        np.testing.assert_array_equal(np.asarray(module.main(x, scale, zp)), want)
