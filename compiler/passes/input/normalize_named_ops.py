"""``linalg-normalize-named-ops``: the canonical linalg op set later phases rely on.

Kept as named ops (dispatch creation and data tiling match on them): ``linalg.matmul``,
``batch_matmul``, ``matvec``, ``vecmat``, ``batch_matvec``, ``dot``, ``mmt4d``,
``batch_mmt4d``, ``fill``, ``transpose``, ``broadcast``, ``reduce``, ``pack``, ``unpack``,
convolutions and poolings; ``linalg.generic`` is kept. Every other named op (the elementwise
ones: ``linalg.add``, ``sub``, ``mul``, ``div``, ``max``, ``min``, ``exp``, ``log``, ``sqrt``,
``negf``, ``select``, ``copy``) becomes the equivalent ``linalg.generic`` (same maps,
iterators and body), so fusion and codegen see one elementwise form.

Example::

    %0 = linalg.add ins(%a, %b : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    // ->
    %0 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
        ins(%a, %b : ...) outs(%e : ...) { ^bb0(%x: f32, %y: f32, %o: f32):
          %s = arith.addf %x, %y : f32
          linalg.yield %s : f32 } -> tensor<4xf32>

Source followed: MLIR ``-linalg-generalize-named-ops`` restricted to elementwise ops, as
IREE's global optimization keeps contractions named.
"""
import dataclasses

from xdsl.dialects.builtin import ArrayAttr, AffineMapAttr
from xdsl.dialects.linalg import ops as linalg
from xdsl.rewriter import Rewriter

from rt.compiler.dialects.linalg import DivOp, GenericOp, NegFOp
from rt.compiler.passes.base import Pass

GENERALIZED = (
    linalg.AddOp, linalg.SubOp, linalg.MulOp, DivOp, linalg.MaxOp, linalg.MinOp, linalg.ExpOp,
    linalg.LogOp, linalg.SqrtOp, NegFOp, linalg.SelectOp, linalg.CopyOp,
)


@dataclasses.dataclass(frozen=True)
class NormalizeNamedOpsPass(Pass):
    """Generalize elementwise named linalg ops; keep contractions, fill, transpose, broadcast, reduce."""

    name = "linalg-normalize-named-ops"

    def run(self, module, ctx):
        for op in [o for o in module.walk() if isinstance(o, GENERALIZED)]:
            maps = op.get_indexing_maps()
            if not isinstance(maps, ArrayAttr):
                maps = ArrayAttr([AffineMapAttr(m) for m in maps])
            generic = GenericOp(
                list(op.inputs), list(op.outputs), op.body.clone(), maps, op.get_iterator_types(),
                [r.type for r in op.results],
            )
            generic.location = op.location
            Rewriter.replace_op(op, generic)



