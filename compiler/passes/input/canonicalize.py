"""``canonicalize``: xDSL's canonicalizer (folding, op canonicalization patterns, dead code).

Input: any verified module. Output: the module with every op's canonicalization patterns
applied to a fixed point and unused side-effect-free ops erased.

Example::

    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %s = arith.addi %c1, %c2 : index      // -> %s = arith.constant 3 : index
    %dead = arith.muli %c1, %c2 : index   // -> erased

Source followed: MLIR ``-canonicalize`` (xDSL ``CanonicalizePass``).
"""
import dataclasses

from xdsl.transforms.canonicalize import CanonicalizePass as XdslCanonicalize

from rt.compiler.passes.base import Pass


@dataclasses.dataclass(frozen=True)
class CanonicalizePass(Pass):
    """Runs xDSL's canonicalization patterns to a fixed point."""

    name = "canonicalize"

    def run(self, module, ctx):
        XdslCanonicalize().apply(ctx, module)
