"""``rt-global-opt-sink-row-division``: divide a contraction's result rows instead of its LHS rows.

Input: host functions after ``iree-dispatch-creation-elementwise-op-fusion``. A softmax
feeding a matmul (attention's ``softmax(Q K^T) V``) ends in a normalization generic
``p[.., m, k] = e[.., m, k] / s[.., m]`` that reads and writes the whole ``M x K`` scores
tensor (4x512x512 f32 = 4 MiB for a 512-token encoder layer) only for the next contraction to
pack it again. Each row ``m`` of the LHS divided by ``s[m]`` divides row ``m`` of the product
by it: ``(e / s) V = (e V) / s``. Output: the contraction reads ``e`` and a new generic divides
its ``M x N`` result by ``s`` (``N`` = 64 head columns instead of ``K`` = 512 scores); where
that generic's only consumer takes it (``elementwise-op-fusion``'s rule: the heads' transpose
back), it is inlined there.

Applies to an f32 ``linalg.matmul`` / ``linalg.batch_matmul`` whose init is a fill of +0.0 (an
accumulating init would be divided too) and whose LHS is the only use of a ``linalg.generic``
with all-parallel loops, static shapes, body ``divf(x, s)``, ``x`` read with the identity map
and ``s`` with the map dropping the last (the contraction's K) dim. The rounding differs from
the division before the sum (one division per output instead of per term; both within an f32
ulp or two of the exact result), as the flash-attention kernels' deferred normalization does.

Example::

    %p = linalg.generic {(b, m, k) -> (b, m, k), (b, m, k) -> (b, m), (b, m, k) -> (b, m, k)}
           ins(%e, %s) outs(%x) { divf }                          // 4x512x512
    %o = linalg.batch_matmul ins(%p, %v) outs(%zero)              // 4x512x64
    // ->
    %o0 = linalg.batch_matmul ins(%e, %v) outs(%zero)
    %o = linalg.generic {(b, m, n) -> (b, m, n), (b, m, n) -> (b, m), (b, m, n) -> (b, m, n)}
           ins(%o0, %s) outs(%y) { divf }                         // 4x512x64

Source followed: the deferred softmax normalization of FlashAttention (Dao et al., 2022,
Algorithm 1: the output block is scaled by the inverse row sum after the ``P V`` product) and
XLA's algebraic simplifier moving divisions by broadcasts (``A / broadcast(B)``).
"""
import dataclasses

from xdsl.builder import Builder
from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import AffineMapAttr, Float32Type, FloatAttr, TensorType
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.dialects.linalg.ops import YieldOp
from xdsl.ir import OpResult
from xdsl.ir.affine import AffineDimExpr, AffineMap

from rt.compiler.dialects.linalg import BatchMatmulOp, FillOp, GenericOp, MatmulOp
from rt.compiler.helpers.dispatch import op_kinds as kinds
from rt.compiler.passes.base import Pass
from rt.compiler.passes.global_optimization import elementwise_op_fusion as fusion

_CONTRACTIONS = (MatmulOp, BatchMatmulOp)


def _owner(value, kind):
    return value.op if isinstance(value, OpResult) and isinstance(value.op, kind) else None


def _drop_last(rank):
    return AffineMap(rank, 0, tuple(AffineDimExpr(d) for d in range(rank - 1)))


def _zero_filled(value):
    """Whether ``value`` is a ``linalg.fill`` of the constant +0.0."""
    fill = _owner(value, FillOp)
    constant = fill and _owner(fill.inputs[0], arith.ConstantOp)
    return (constant is not None and isinstance(constant.value, FloatAttr)
            and str(constant.value.value.data) == "0.0")


def _static_f32(value):
    t = value.type
    return (isinstance(t, TensorType) and isinstance(t.element_type, Float32Type)
            and all(s >= 0 for s in t.get_shape()))


def row_division(contraction):
    """``(e, s)`` when ``contraction``'s LHS is ``e / s`` divided per row as the module
    docstring requires, else None."""
    lhs, init = contraction.inputs[0], contraction.outputs[0]
    div = _owner(lhs, GenericOp)
    if div is None or len(list(lhs.uses)) != 1 or not _zero_filled(init):
        return None
    if not all(_static_f32(v) for v in (*contraction.inputs, init)):
        return None
    if len(div.inputs) != 2 or len(div.results) != 1 or not kinds.is_elementwise(div):
        return None
    ops = list(div.body.block.ops)
    args = div.body.block.args
    if not (len(ops) == 2 and isinstance(ops[0], arith.DivfOp) and isinstance(ops[1], YieldOp)
            and ops[1].operands[0] is ops[0].result and ops[0].lhs is args[0] and ops[0].rhs is args[1]):
        return None
    rank = len(lhs.type.get_shape())
    maps = kinds.indexing_maps(div)
    if not (kinds.is_identity(maps[0]) and kinds.is_identity(maps[2]) and maps[1] == _drop_last(rank)):
        return None
    return div.inputs[0], div.inputs[1]


def sink(contraction):
    """Rewrite ``contraction`` as the module docstring shows (it must match ``row_division``);
    returns the new division generic."""
    numerator, sums = row_division(contraction)
    uses = list(contraction.results[0].uses)
    div = contraction.inputs[0].op
    contraction.operands[0] = numerator
    div.parent_block().erase_op(div)
    out_type = contraction.results[0].type
    rank = len(out_type.get_shape())
    empty = tensor.EmptyOp([], out_type)
    f32 = out_type.element_type

    @Builder.implicit_region([f32, f32, f32])
    def body(a):
        YieldOp(arith.DivfOp(a[0], a[1]).result)

    identity = AffineMap.identity(rank)
    divided = GenericOp([contraction.results[0], sums], [empty.tensor], body,
                        [AffineMapAttr(m) for m in (identity, _drop_last(rank), identity)],
                        [IteratorTypeAttr.parallel()] * rank, [out_type])
    for op in (empty, divided):
        op.location = contraction.location
    block = contraction.parent_block()
    block.insert_ops_after([empty, divided], contraction)
    for use in uses:
        use.operation.operands[use.index] = divided.results[0]
    return divided


def _inline_into_consumer(divided):
    """Inline ``divided`` into its consumer generic where elementwise-op-fusion would."""
    if fusion.fusable_producer(divided) and fusion.all_uses_fuse(divided):
        consumers = {id(u.operation): u.operation for u in divided.results[0].uses}
        for consumer in consumers.values():
            fusion.fuse(divided, consumer)
        empty = divided.outputs[0].op
        divided.parent_block().erase_op(divided)
        empty.parent_block().erase_op(empty)


@dataclasses.dataclass(frozen=True)
class SinkRowDivisionPass(Pass):
    """Move a per-row division of a contraction's LHS onto its result (see the module docstring)."""

    name = "rt-global-opt-sink-row-division"

    def run(self, module, ctx):
        for contraction in [op for op in module.walk() if isinstance(op, _CONTRACTIONS)]:
            if row_division(contraction) is not None:
                _inline_into_consumer(sink(contraction))
