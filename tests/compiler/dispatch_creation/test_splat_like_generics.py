"""Which generics form-dispatch-regions clones into every dispatch that reads them (splats), and
which it does not: a generic with no inputs whose body reads a tensor from outside (a decomposed
``iree_linalg_ext.gather``) does real work per element. Cloning one into an attention dispatch
made llvm-cpu run out of workgroup scratch on IREE's ``dynamic_gather_attention``."""
from rt.compiler.frontend import parse_module
from rt.compiler.passes.dispatch_creation.form_dispatch_regions import _splat_like
from xdsl.dialects.linalg import ops as linalg

SPLAT = """
func.func @f(%s: tensor<f32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<f32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<4x8xf32>
  return %g : tensor<4x8xf32>
}
"""

GATHER = """
func.func @f(%src: tensor<16x8xf32>, %idx: tensor<4xindex>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<4x8xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %row = tensor.extract %idx[%i] : tensor<4xindex>
    %v = tensor.extract %src[%row, %j] : tensor<16x8xf32>
    linalg.yield %v : f32
  } -> tensor<4x8xf32>
  return %g : tensor<4x8xf32>
}
"""


def _generic(text):
    return next(op for op in parse_module(text).walk() if isinstance(op, linalg.GenericOp))


def test_a_generic_splatting_a_0d_tensor_is_cloned():
    assert _splat_like(_generic(SPLAT))


def test_a_generic_reading_outside_tensors_is_not_a_splat():
    assert not _splat_like(_generic(GATHER))
