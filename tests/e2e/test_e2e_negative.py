"""Inputs that must fail to compile with a located ``file:line:col: error: ...`` diagnostic.

Each ``negative/*.mlir`` is rejected by ``rt.compile`` for every target with
``rt.CompileError`` at the place iree-compile 3.13 reports for the same file (checked with the
oracle, see README.md): MLIR puts an op's location at its name (``%c = linalg.matmul`` -> the
column of ``linalg``) and a use-type error at the operand.
"""
import pathlib

import pytest

import rt

NEGATIVE = pathlib.Path(__file__).resolve().parent / "negative"

#: file -> (line, col, text the message must contain)
CASES = {
    "unknown_dialect_op.mlir": (4, 8, "foo.frobnicate"),
    "unsupported_tensor_gather.mlir": (5, 8, "tensor.gather"),
    "operand_type_mismatch.mlir": (5, 19, "i32"),
    "return_type_mismatch.mlir": (4, 3, "tensor<4xi32>"),
    "call_operand_type_mismatch.mlir": (9, 3, "tensor<3xi32>"),
    "check_const_type_mismatch.mlir": (5, 3, "expect_eq_const"),
    "matmul_shape_mismatch.mlir": (6, 8, "linalg.matmul"),
    "bitcast_width_mismatch.mlir": (3, 8, "arith.bitcast"),
    "extract_slice_out_of_bounds.mlir": (4, 8, "slice along dimension 0 runs out-of-bounds: 10 >= 10"),
    "insert_slice_offset_out_of_bounds.mlir": (5, 8, "offset 1 is out-of-bounds: 4 >= 4"),
    "extract_slice_type_mismatch.mlir": (4, 8, "expected result type to be 'tensor<3x2xf32>'"),
    "softmax_dimension_out_of_range.mlir": (5, 8, "dimension 2 is out of range"),
    "pad_result_type_mismatch.mlir": (5, 8, "result dim 1 is 5, but the source dim 2 padded by 1 and 1 gives 4"),
}


def test_every_negative_input_has_a_case():
    assert sorted(p.name for p in NEGATIVE.glob("*.mlir")) == sorted(CASES)


@pytest.mark.parametrize("target", ["llvm-cpu", "vmvx"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_located_compile_error(name, target):
    line, col, fragment = CASES[name]
    path = NEGATIVE / name
    with pytest.raises(rt.CompileError) as info:
        rt.compile(str(path), devices=[target])
    err = info.value
    assert pathlib.Path(err.file).name == name
    assert (err.line, err.col) == (line, col)
    assert f"{name}:{line}:{col}: error: " in str(err)
    assert fragment in err.message
    source_line = path.read_text().splitlines()[line - 1]
    assert source_line.rstrip() in str(err)
