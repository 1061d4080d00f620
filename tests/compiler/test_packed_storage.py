"""i1 tensors with ``#iree_encoding.packed_storage``: the attribute, the pass's located errors.

Values are checked end to end in ``tests/e2e/programs/i1_packed_storage.mlir``; the pass's
output form in ``tests/lit/input/rt_unpack_packed_storage.mlir``.
"""
import pytest

import rt
from rt.compiler.frontend import parse_module
from rt.runtime.errors import CompileError


def _compile_error(tmp_path, text):
    path = tmp_path / "packed.mlir"
    path.write_text(text)
    with pytest.raises(CompileError) as info:
        rt.compile(str(path), devices=["vmvx"])
    return info.value


def test_attribute_prints_as_parsed():
    text = "%0 = tensor.empty() : tensor<16xi1, #iree_encoding.packed_storage>"
    assert "tensor<16xi1, #iree_encoding.packed_storage>" in str(parse_module(text, "t.mlir"))


def test_quoted_comparison_predicate_parses():
    module = parse_module('%a = arith.constant 1 : i8\n%b = arith.cmpi "sgt", %a, %a : i8', "t.mlir")
    assert "arith.cmpi sgt" in str(module)


def test_packed_tensor_in_public_signature_is_a_located_error(tmp_path):
    err = _compile_error(tmp_path, (
        "func.func @f(%x: tensor<1xi8>) -> tensor<8xi1, #iree_encoding.packed_storage> {\n"
        "  %b = flow.tensor.bitcast %x : tensor<1xi8> -> tensor<8xi1, #iree_encoding.packed_storage>\n"
        "  return %b : tensor<8xi1, #iree_encoding.packed_storage>\n"
        "}\n"))
    assert (err.line, err.col) == (1, 1)
    assert "public function @f" in err.message and "bitcast it to an i8 tensor" in err.message


def test_dynamic_packed_bitcast_is_a_located_error(tmp_path):
    err = _compile_error(tmp_path, (
        "func.func @f(%x: tensor<?xi8>, %n: index, %m: index) -> tensor<?xi8> {\n"
        "  %b = flow.tensor.bitcast %x : tensor<?xi8>{%n} -> tensor<?xi1, #iree_encoding.packed_storage>{%m}\n"
        "  %c = flow.tensor.bitcast %b : tensor<?xi1, #iree_encoding.packed_storage>{%m} -> tensor<?xi8>{%n}\n"
        "  return %c : tensor<?xi8>\n"
        "}\n"))
    assert (err.line, err.col) == (2, 8)
    assert "needs static shapes" in err.message
