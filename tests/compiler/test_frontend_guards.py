"""Regression tests for rt's guards against xDSL 0.74.0 defects (docs/ARCHITECTURE.md §8)."""
import math
import tracemalloc

import numpy as np
import pytest
from xdsl.dialects.builtin import DYNAMIC_INDEX, TensorType, f32

from rt.compiler.frontend import ElementsAttr, elements_to_numpy, is_splat, parse_module, splat_value
from rt.runtime.errors import CompileError


def _constant(module):
    return next(op for op in module.walk() if op.name == "arith.constant").value


def test_hex_float_in_dense_list_is_a_bit_pattern():
    m = parse_module("%0 = arith.constant dense<[0x7F800000, 1.0, 0xFF800000]> : tensor<3xf32>", "hex.mlir")
    values = elements_to_numpy(_constant(m))
    assert math.isinf(values[0]) and values[0] > 0
    assert values[1] == 1.0
    assert math.isinf(values[2]) and values[2] < 0


def test_hex_float_round_trips_through_printing():
    m = parse_module("%0 = arith.constant dense<[0x7FC00000, 2.5]> : tensor<2xf32>", "nan.mlir")
    again = parse_module(str(m), "again.mlir")
    values = elements_to_numpy(_constant(again))
    assert np.isnan(values[0]) and values[1] == 2.5


def test_out_of_range_f16_is_a_located_error():
    with pytest.raises(CompileError) as info:
        parse_module("func.func @f() {\n  %0 = arith.constant dense<[70000.0, 1.0]> : tensor<2xf16>\n  return\n}", "f16.mlir")
    err = info.value
    assert (err.file, err.line) == ("f16.mlir", 2)
    assert "out of range for f16" in err.message
    assert str(err).splitlines()[1].strip().startswith("%0 = arith.constant")


def test_out_of_range_scalar_f16_is_a_located_error():
    with pytest.raises(CompileError) as info:
        parse_module("%0 = arith.constant 70000.0 : f16", "s.mlir")
    assert info.value.line == 1 and "out of range for f16" in info.value.message


def test_multi_result_generic_parses_and_round_trips():
    text = """
func.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0:2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%a, %b : tensor<4xf32>, tensor<4xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %n = arith.negf %x : f32
    linalg.yield %x, %n : f32, f32
  } -> (tensor<4xf32>, tensor<4xf32>)
  return %0#0, %0#1 : tensor<4xf32>, tensor<4xf32>
}"""
    m = parse_module(text, "multi.mlir")
    generic = next(op for op in m.walk() if op.name == "linalg.generic")
    assert len(generic.results) == 2
    assert "-> (tensor<4xf32>, tensor<4xf32>)" in str(m)
    assert len(next(op for op in parse_module(str(m)).walk() if op.name == "linalg.generic").results) == 2


def test_large_splat_stays_a_splat():
    tracemalloc.start()
    m = parse_module("%0 = arith.constant dense<1.5> : tensor<8192x8192xf32>", "splat.mlir")
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    attr = _constant(m)
    assert isinstance(attr, ElementsAttr) and is_splat(attr)
    assert splat_value(attr) == np.float32(1.5)
    assert peak < 16 * 1024 * 1024  # a materialized splat would be 256 MiB
    assert "dense<1.500000e+00> : tensor<8192x8192xf32>" in str(m)
    view = elements_to_numpy(attr)
    assert view.shape == (8192, 8192) and view.strides == (0, 0)


def test_large_non_splat_round_trips_as_hex():
    values = np.arange(2048, dtype=np.int32)
    literal = "[" + ", ".join(map(str, values)) + "]"
    m = parse_module(f"%0 = arith.constant dense<{literal}> : tensor<2048xi32>", "big.mlir")
    assert isinstance(_constant(m), ElementsAttr)
    text = str(m)
    assert 'dense<"0x00000000010000000200' in text
    np.testing.assert_array_equal(elements_to_numpy(_constant(parse_module(text))), values)


RESOURCE = """
%0 = arith.constant dense_resource<blob> : tensor<2xf32>
{{-#
  dialect_resources: {{
    builtin: {{
      blob: "0x04000000{payload}"
    }}
  }}
#-}}
"""


def test_dense_resource_blobs_are_per_module():
    one = np.array([1.0, 2.0], dtype="<f4").tobytes().hex()
    two = np.array([3.0, 4.0], dtype="<f4").tobytes().hex()
    m1 = parse_module(RESOURCE.format(payload=one), "a.mlir")
    m2 = parse_module(RESOURCE.format(payload=two), "b.mlir")
    np.testing.assert_array_equal(elements_to_numpy(_constant(m1)), [1.0, 2.0])
    np.testing.assert_array_equal(elements_to_numpy(_constant(m2)), [3.0, 4.0])
    from xdsl.dialect_interfaces.op_asm import OpAsmDialectInterface
    from xdsl.dialects.builtin import Builtin

    assert "blob" not in Builtin.get_interface(OpAsmDialectInterface)._blob_storage


def test_dense_resource_without_blob_is_located():
    with pytest.raises(CompileError) as info:
        parse_module("%0 = arith.constant dense_resource<missing> : tensor<2xf32>", "r.mlir")
    assert info.value.line == 1 and "dense_resource<missing>" in info.value.message


def test_declarative_format_errors_are_located():
    text = "func.func @f(%a: i32) -> f32 {\n  %0 = arith.addf %a, %a : f32\n  return %0 : f32\n}"
    with pytest.raises(CompileError) as info:
        parse_module(text, "fmt.mlir")
    assert (info.value.file, info.value.line) == ("fmt.mlir", 2)
    assert "i32" in info.value.message and "f32" in info.value.message
    assert str(info.value).splitlines()[-1].strip() == "^"


def test_verifier_errors_are_located_at_the_op():
    text = "func.func @f(%a: tensor<4xf32>) -> tensor<8xf32> {\n  return %a : tensor<4xf32>\n}"
    with pytest.raises(CompileError) as info:
        parse_module(text, "v.mlir")
    assert info.value.line == 2 and "'func.return' op" in info.value.message


def test_integer_literal_out_of_range():
    with pytest.raises(CompileError) as info:
        parse_module("%0 = arith.constant dense<[300, 1]> : tensor<2xi8>", "i.mlir")
    assert "out of range for i8" in info.value.message


def test_small_float_constants_round_once_and_round_trip():
    """bf16 / f8 dense literals round once from the decimal (APFloat), hex literals are bit
    patterns, and the printed form parses back to the same bits."""
    import ml_dtypes

    text = ("%0 = arith.constant dense<[0.1, 431.99999999999994, 0x7F, -0.0]> : tensor<4xf8E4M3FN>\n"
            "%1 = arith.constant dense<[1.00390625, 0x7F80]> : tensor<2xbf16>")
    m = parse_module(text, "small.mlir")
    consts = [op.value for op in m.walk() if op.name == "arith.constant"]
    f8, bf16 = (elements_to_numpy(c) for c in consts)
    assert f8.dtype == ml_dtypes.float8_e4m3fn and f8.view(np.uint8).tolist() == [0x1D, 0x7D, 0x7F, 0x80]
    assert bf16.dtype == ml_dtypes.bfloat16 and bf16.view(np.uint16).tolist() == [0x3F80, 0x7F80]
    again = parse_module(str(m), "again.mlir")
    back = [elements_to_numpy(op.value) for op in again.walk() if op.name == "arith.constant"]
    assert back[0].view(np.uint8).tolist() == [0x1D, 0x7D, 0x7F, 0x80]
    assert back[1].view(np.uint16).tolist() == [0x3F80, 0x7F80]


def test_out_of_range_small_float_is_a_located_error():
    with pytest.raises(CompileError) as info:
        parse_module("func.func @f() {\n  %0 = arith.constant dense<[1.0, 1000.0]> : tensor<2xf8E4M3FN>\n"
                     "  return\n}", "f8.mlir")
    err = info.value
    assert (err.file, err.line, err.col) == ("f8.mlir", 2, 35)
    assert "out of range for f8E4M3FN (largest finite magnitude 448.0)" in err.message


def test_plain_shaped_types_are_parsed_once_and_shared():
    text = ("func.func @f(%a: tensor<4x?xf32>, %b: tensor<4x?xf32>, %c: vector<8xi1>, %d: tensor<f32>)"
            " -> (tensor<4x?xf32>, vector<8xi1>) {\n"
            "  return %a, %c : tensor<4x?xf32>, vector<8xi1>\n}\n")
    fn = next(op for op in parse_module(text, "t.mlir").walk() if op.name == "func.func")
    a, b, c, d = fn.function_type.inputs.data
    assert a is b and a is fn.function_type.outputs.data[0] and c is fn.function_type.outputs.data[1]
    assert str(a) == "tensor<4x?xf32>" and a == TensorType(f32, [4, DYNAMIC_INDEX])
    assert (list(c.get_shape()), str(c.element_type)) == ([8], "i1")
    assert list(d.get_shape()) == [] and str(d.element_type) == "f32"


def test_types_after_a_cached_type_parse_and_locate_as_before():
    text = ("func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
            "  %0 = arith.addf %a, %a : tensor<4xf32>\n"
            "  %e = tensor.empty() : tensor<4xf32, 7 : i64>\n"  # an encoding: not the plain form
            "  %2 = arith.addf %0, %a : tensor<4xf32>\n"
            "  %3 = arith.addf %2, %a : tensor<4xf33>\n"
            "  return %3 : tensor<4xf32>\n}\n")
    with pytest.raises(CompileError) as info:
        parse_module(text, "cached.mlir")
    assert (info.value.file, info.value.line) == ("cached.mlir", 5)
    ok = text.replace("tensor<4xf33>", "tensor<4xf32>")
    ops = [op for op in parse_module(ok, "cached.mlir").walk() if op.name in ("arith.addf", "tensor.empty")]
    assert [(op.location.line.data, op.location.column.data) for op in ops] == [(2, 8), (3, 8), (4, 8), (5, 8)]
    assert str(ops[1].results[0].type) == "tensor<4xf32, 7 : i64>"


def test_plain_affine_maps_are_parsed_once_and_others_as_before():
    generic = ("  %{r} = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, {second}], "
               "iterator_types = [\"parallel\", \"parallel\"]}} ins(%a : tensor<4x4xf32>) outs(%a : tensor<4x4xf32>) {{\n"
               "  ^bb0(%x: f32, %o: f32):\n    linalg.yield %x : f32\n  }} -> tensor<4x4xf32>\n")
    text = ("func.func @f(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {\n"
            + generic.format(r="0", second="affine_map<(d0, d1) -> (d1, d0)>")
            + generic.format(r="1", second="affine_map<(d0, d1) -> (d1, d0)>")
            + generic.format(r="2", second="affine_map<(d0, d1) -> ((d0 + d1) mod 4, d1)>")
            + "  return %2 : tensor<4x4xf32>\n}\n")
    g0, g1, g2 = [op for op in parse_module(text, "maps.mlir").walk() if op.name == "linalg.generic"]
    assert g0.indexing_maps.data[1] is g1.indexing_maps.data[1]  # one spelling, one attribute
    assert g0.indexing_maps.data[0] is g2.indexing_maps.data[0]
    assert str(g0.indexing_maps.data[1].data) == "(d0, d1) -> (d1, d0)"
    assert str(g2.indexing_maps.data[1].data) == "(d0, d1) -> (((d0 + d1) mod 4), d1)"
    bad = text.replace("(d1, d0)>]", "(d1, d0 +)>]", 1)
    with pytest.raises(CompileError) as info:
        parse_module(bad, "maps.mlir")
    assert (info.value.file, info.value.line) == ("maps.mlir", 2)


def test_file_location_ranges_read_as_their_start():
    """JAX 0.10 prints ``loc("f.py":3:5 to :9)`` and MLIR also writes ``to 4:2``; xDSL reads
    neither. Both are read as the range's start, at the top of the file and inline."""
    text = ('#loc1 = loc("model.py":3:5 to :9)\n'
            'func.func @f(%a: f32) -> f32 {\n'
            '  %0 = arith.addf %a, %a : f32 loc("model.py":7:2 to 8:4)\n'
            '  return %0 : f32 loc(#loc1)\n'
            '}\n')
    module = parse_module(text, "ranges.mlir")
    add = next(op for op in module.walk() if op.name == "arith.addf")
    ret = next(op for op in module.walk() if op.name == "func.return")
    assert (add.location.line.data, add.location.column.data) == (7, 2)
    assert (ret.location.filename.data, ret.location.line.data, ret.location.column.data) == ("model.py", 3, 5)


def test_location_alias_defined_after_its_use():
    """MLIR (and jax.export) print debug locations as aliases at the end of the file; an op
    using one before its definition is located in the .mlir file itself."""
    text = ('func.func @f(%a: f32) -> f32 {\n'
            '  %0 = arith.addf %a, %a : f32 loc(#loc3)\n'
            '  return %0 : f32 loc(#loc)\n'
            '}\n'
            '#loc = loc(unknown)\n'
            '#loc3 = loc("model.py":7:2 to :9)\n')
    module = parse_module(text, "late.mlir")
    add = next(op for op in module.walk() if op.name == "arith.addf")
    assert (add.location.filename.data, add.location.line.data, add.location.column.data) == ("late.mlir", 2, 8)
