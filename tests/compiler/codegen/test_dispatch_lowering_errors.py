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
