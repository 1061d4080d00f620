"""``cse``: common subexpression elimination of side-effect-free ops.

Input: any verified module. Output: equal pure ops with equal operands and attributes merged
(the first one dominates and is kept). Constant handles compare by value (see
rt.compiler.frontend.elements), so two equal large constants are merged too.

Example::

    %0 = arith.addf %a, %b : tensor<4xf32>
    %1 = arith.addf %a, %b : tensor<4xf32>   // -> uses of %1 now use %0
    %2 = arith.mulf %0, %1 : tensor<4xf32>   // -> arith.mulf %0, %0

Source followed: MLIR ``-cse`` (xDSL ``CommonSubexpressionElimination``).
"""
import dataclasses

from xdsl.transforms.common_subexpression_elimination import CommonSubexpressionElimination

from rt.compiler.passes.base import Pass


@dataclasses.dataclass(frozen=True)
class CSEPass(Pass):
    """Runs xDSL's CSE."""

    name = "cse"

    def run(self, module, ctx):
        CommonSubexpressionElimination().apply(ctx, module)
