"""erase_dead_ops: unused pure ops go, chains of them in one call, used and impure ops stay."""
from rt.compiler.dialects import make_context
from rt.compiler.frontend import parse_module
from rt.compiler.helpers.dispatch.dce import erase_dead_ops

PROGRAM = """
func.func @f(%a: tensor<4xf32>, %b: index) -> tensor<4xf32> {
  %c1 = arith.constant 1 : index
  %d = arith.addi %b, %c1 : index
  %e = arith.muli %d, %d : index
  %t = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%t : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %x, %x : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %keep = arith.addf %a, %a : tensor<4xf32>
  return %keep : tensor<4xf32>
}
"""


def test_dead_chains_and_dead_regions_are_erased_in_one_call():
    module = parse_module(PROGRAM, "dce.mlir", make_context())
    # %e, then %d and %c1 (dead once %e is gone); %r with its body, then %t (dead once %r is gone)
    assert erase_dead_ops(module) == 5
    names = [op.name for op in module.walk()]
    assert names == ["builtin.module", "func.func", "arith.addf", "func.return"]
    assert erase_dead_ops(module) == 0
