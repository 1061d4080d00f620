"""Dispatch lowering refuses what it cannot lower with located errors, never an internal one."""
import pytest

import rt

_INDEX_TENSOR = """
func.func @f(%a: tensor<3xindex>) -> tensor<3xindex> {
  %e = tensor.empty() : tensor<3xindex>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%a : tensor<3xindex>) outs(%e : tensor<3xindex>) {
  ^bb0(%x: index, %o: index):
    %y = arith.addi %x, %x : index
    linalg.yield %y : index
  } -> tensor<3xindex>
  return %r : tensor<3xindex>
}
"""


@pytest.mark.parametrize("target", ["llvm-cpu", "vmvx"])
def test_index_element_tensors_in_a_dispatch_are_a_located_error(target):
    with pytest.raises(rt.CompileError, match=r"4:8: error: tensor<3xindex> in a dispatch: tensors "
                                              r"of index elements are not supported"):
        rt.compile(_INDEX_TENSOR, devices=[target])


_NO_OPCODE = """
func.func @f(%a: tensor<4xi32>) -> tensor<4xi32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%a : tensor<4xi32>) {
  ^bb0(%o: i32):
    %i = linalg.index 0 : index
    %j = affine.apply affine_map<(d0) -> (d0 * 2)>(%i)
    %k = arith.index_cast %j : index to i32
    linalg.yield %k : i32
  } -> tensor<4xi32>
  return %r : tensor<4xi32>
}
"""


@pytest.mark.parametrize("target", ["llvm-cpu", "vmvx"])
def test_a_scalar_op_without_a_kernel_ir_opcode_is_a_located_error(target):
    """affine.apply parses inside a linalg body, but Kernel IR (kernel_ir.Opcode) has no opcode
    for it: the dispatch lowering names it at its source line."""
    with pytest.raises(rt.CompileError, match=r"6:10: error: 'affine.apply' is not supported on scalars "
                                              r"in a dispatch by rt's llvm-cpu/vmvx codegen; supported: "
                                              r"arith.constant, .*math.isfinite"):
        rt.compile(_NO_OPCODE, devices=[target])
