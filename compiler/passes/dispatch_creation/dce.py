"""Dead-code elimination of side-effect-free host ops left behind by dispatch creation.

An op is erased when none of its results is used and it is known to be free of side effects:
constants and arith/math ops, ``tensor.dim``/``tensor.empty`` and other pure tensor ops,
``hal.buffer_view.dim`` and the pure flow tensor ops. Ops with regions are kept unless they are
``flow.dispatch.region`` / ``linalg`` ops (whose bodies only compute values).

Source followed: MLIR ``isOpTriviallyDead`` / ``-canonicalize`` dead-op removal.
"""
from xdsl.ir import Operation

PURE_PREFIXES = ("arith.", "math.", "linalg.", "tensor.", "affine.apply", "iree_encoding.")
PURE_NAMES = {"hal.buffer_view.dim", "flow.tensor.empty", "flow.tensor.splat", "flow.tensor.reshape",
              "flow.tensor.constant", "flow.tensor.load", "flow.tensor.slice", "flow.tensor.clone",
              "flow.tensor.bitcast", "flow.tensor.tie_shape",
              "flow.dispatch.region", "hal.element_type", "hal.encoding_type"}


def _is_pure(op):
    return op.name in PURE_NAMES or op.name.startswith(PURE_PREFIXES)


def erase_dead_ops(root):
    """Erase unused pure ops nested in ``root`` until none is left; returns how many were erased.

    One walk, users before producers (reverse order); erasing an op revisits the producers of
    the values it (or an op nested in it) used, which may have lost their last use, so the pass
    is linear in the number of ops rather than one walk per round of erasures."""
    erased = 0
    work = list(root.walk())
    while work:
        op = work.pop()
        if op is root or op.parent is None or not op.results or not _is_pure(op):
            continue
        if any(r.first_use is not None for r in op.results):
            continue
        producers = [v.owner for inner in op.walk() for v in inner.operands
                     if isinstance(v.owner, Operation) and not op.is_ancestor(v.owner)]
        op.parent_block().erase_op(op, safe_erase=False)
        erased += 1
        work.extend(producers)
    return erased
