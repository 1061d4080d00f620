"""Shapes checked where types promise them (issue 13, defect 5), on both devices: a dynamic
shape that disagrees with what an op requires fails before dispatch, naming the op's location;
an ill-typed insert_slice is a compile error; index arguments are range-checked."""
import numpy as np
import pytest

import rt
from rt.runtime.errors import CompileError, InvalidArgumentError, VMTrapError

DEVICES = ["local-sync://vmvx", "local-sync://llvm-cpu"]

PROGRAM = """
func.func @mm(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %n = tensor.dim %b, %c1 : tensor<?x?xf32>
  %z = tensor.empty(%m, %n) : tensor<?x?xf32>
  %cf = arith.constant 0.0 : f32
  %f = linalg.fill ins(%cf : f32) outs(%z : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%f : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
func.func @cast(%a: tensor<?x?xf32>) -> tensor<2x3xf32> {
  %r = tensor.cast %a : tensor<?x?xf32> to tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
func.func @add(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %r = arith.addf %a, %b : tensor<?xf32>
  return %r : tensor<?xf32>
}
func.func @ins(%s: tensor<?x?xf32>, %d: tensor<4x4xf32>, %o: index) -> tensor<4x4xf32> {
  %r = tensor.insert_slice %s into %d[%o, 0] [2, 2] [1, 1] : tensor<?x?xf32> into tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}
func.func @ext(%s: tensor<?xf32>, %o: index, %n: index) -> tensor<?xf32> {
  %r = tensor.extract_slice %s[%o] [%n] [1] : tensor<?xf32> to tensor<?xf32>
  return %r : tensor<?xf32>
}
func.func @inc(%n: index) -> index {
  %c1 = arith.constant 1 : index
  %r = arith.addi %n, %c1 : index
  return %r : index
}
func.func @cat(%a: tensor<2x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = tensor.concat dim(0) %a, %b : (tensor<2x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
"""


@pytest.fixture(scope="module", params=DEVICES)
def m(request, tmp_path_factory):
    path = tmp_path_factory.mktemp("shapes") / "shapes.mlir"
    path.write_text(PROGRAM)
    with rt.load(str(path), devices=[request.param]) as module:
        yield module


def _f32(*shape):
    return np.arange(np.prod(shape), dtype=np.float32).reshape(shape)


def test_matmul_with_disagreeing_k_fails_before_dispatch(m):
    """4x5 @ 6x7 used K=5 on both devices; 4x5 @ 3x7 read neighbouring transient data on vmvx."""
    for b in (_f32(6, 7), _f32(3, 7)):
        with pytest.raises(VMTrapError, match=r"shapes.mlir:10:8: linalg.matmul: operand 1 dim 0 must "
                                              r"equal operand 0 dim 1 \(both are loop dim d2\)") as info:
            m.mm(_f32(4, 5), b)
        assert info.value.vm_stack[0].endswith("shapes.mlir:10:8 in @mm")
    np.testing.assert_allclose(m.mm(_f32(4, 5), _f32(5, 7)), _f32(4, 5) @ _f32(5, 7), rtol=1e-6)


def test_static_cast_from_another_shape_fails(m):
    with pytest.raises(VMTrapError, match=r"shapes.mlir:14:8: tensor.cast: to tensor<2x3xf32>: "
                                          r"dimension 1 of the source is not 3"):
        m.cast(_f32(2, 4))
    np.testing.assert_array_equal(m.cast(_f32(2, 3)), _f32(2, 3))


def test_elementwise_operands_of_different_sizes_fail(m):
    with pytest.raises(VMTrapError, match=r"shapes.mlir:18:8: .*operand 1 dim 0 must equal operand 0 dim 0"):
        m.add(_f32(3), _f32(4))
    np.testing.assert_array_equal(m.add(_f32(3), _f32(3)), 2 * _f32(3))


def test_insert_slice_source_and_bounds_checked(m):
    with pytest.raises(VMTrapError, match="tensor.insert_slice: dim 1 of the inserted source does not equal"):
        m.ins(_f32(2, 3), np.zeros((4, 4), np.float32), 0)
    with pytest.raises(VMTrapError, match="tensor.insert_slice: the slice along dim 0 ends past the destination"):
        m.ins(_f32(2, 2), np.zeros((4, 4), np.float32), 3)
    out = m.ins(_f32(2, 2) + 1, np.zeros((4, 4), np.float32), 2)
    np.testing.assert_array_equal(out[2:, :2], _f32(2, 2) + 1)
    assert out.sum() == (_f32(2, 2) + 1).sum()


def test_extract_slice_bounds_checked(m):
    np.testing.assert_array_equal(m.ext(_f32(5), 1, 4), _f32(5)[1:5])
    assert m.ext(_f32(5), 5, 0).shape == (0,)
    for offset, size in ((2, 4), (-1, 2), (0, -1)):
        with pytest.raises(VMTrapError, match="tensor.extract_slice: "):
            m.ext(_f32(5), offset, size)


def test_index_arguments_range_checked(m):
    assert m.inc(2**63 - 2) == 2**63 - 1
    with pytest.raises(InvalidArgumentError, match=r"input 0 of @inc: expected index, got "
                                                   r"9223372036854775808, which does not fit index"):
        m.inc(2**63)
    with pytest.raises(InvalidArgumentError, match="does not fit index"):
        m.inc(-2**63 - 1)


def test_concat_inputs_of_different_row_lengths_fail(m):
    """The concat's rows are one byte range only when every input has the result's row length
    (random_programs seed 1 case 5050 was refused before; a mismatch must not copy wrong bytes)."""
    np.testing.assert_array_equal(m.cat(_f32(2, 3), _f32(4, 3)), np.concatenate([_f32(2, 3), _f32(4, 3)]))
    with pytest.raises(VMTrapError, match=r"shapes.mlir:35:8: tensor.concat: input 1 dim 1 must equal input 0 "
                                          r"dim 1 \(only dim 0 is concatenated\)"):
        m.cat(_f32(2, 3), _f32(4, 5))


def test_ill_typed_insert_slice_is_a_located_compile_error():
    text = """
func.func @bad(%s: tensor<2x3xf32>, %d: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %r = tensor.insert_slice %s into %d[0, 0] [2, 2] [1, 1] : tensor<2x3xf32> into tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}
"""
    # The op verifier (MLIR's wording) catches it before the shape-check pass would.
    with pytest.raises(CompileError, match=r"3:8: error: 'tensor.insert_slice' op expected source type "
                                           r"to be 'tensor<2x2xf32>' .*got tensor<2x3xf32>"):
        rt.compile(text, devices=["vmvx"])
