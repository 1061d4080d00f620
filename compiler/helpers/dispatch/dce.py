"""Dead-code elimination of side-effect-free host ops left behind by dispatch creation.

An op is erased when none of its results is used and it is known to be free of side effects:
constants and arith/math ops, ``tensor.dim``/``tensor.empty`` and other pure tensor ops,
``hal.buffer_view.dim`` and the pure flow tensor ops. Ops with regions are kept unless they are
``flow.dispatch.region`` / ``linalg`` ops (whose bodies only compute values).

Source followed: MLIR ``isOpTriviallyDead`` / ``-canonicalize`` dead-op removal.
"""
from xdsl.dialects import affine
from xdsl.ir import Operation

from rt.compiler.dialects import flow_tensor, flow_tensor_shape
from rt.compiler.dialects.flow_dispatch import DispatchRegionOp
from rt.compiler.dialects.hal import BufferViewDimOp, ElementTypeOp, EncodingTypeOp

#: dialects all of whose ops are pure (value computations on scalars and tensors)
PURE_DIALECTS = frozenset({"arith", "math", "linalg", "tensor", "iree_encoding"})
PURE_OPS = (affine.ApplyOp, BufferViewDimOp, ElementTypeOp, EncodingTypeOp, DispatchRegionOp,
            flow_tensor.TensorEmptyOp, flow_tensor.TensorSplatOp, flow_tensor.TensorLoadOp,
            flow_tensor.TensorSliceOp, flow_tensor.TensorCloneOp, flow_tensor_shape.TensorReshapeOp,
            flow_tensor_shape.TensorConstantOp, flow_tensor_shape.TensorBitCastOp,
            flow_tensor_shape.TensorTieShapeOp)


def _is_pure(op):
    # a whole dialect is pure when every op of it only computes values
    return isinstance(op, PURE_OPS) or op.dialect_name() in PURE_DIALECTS


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
