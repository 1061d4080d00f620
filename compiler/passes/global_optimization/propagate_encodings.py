"""``iree-dispatch-creation-propagate-encodings``: keep data-tiled layouts between contractions.

Input: host functions after ``iree-dispatch-creation-set-encoding``, where every data-tiled
matmul unpacks its result (``iree_encoding.unset_encoding``) and the next matmul packs its
operand again (``iree_encoding.set_encoding``), with elementwise epilogues in between on
plain tensors. Output: the packed layout flows from one contraction to the next (oneDNN
Graph Compiler's ``layout_propagation``, IREE's encoding propagation):

1. an ``unset_encoding`` of a matmul RESULT sinks below its elementwise consumers: a
   ``linalg.generic`` with only parallel loops that reads the unpacked result with the
   identity map is rewritten onto the encoded result, so it runs on packed tiles (and fuses
   into the matmul's dispatch as its epilogue); its other operands stay plain and are read
   through the packed indices (a bias ``(i, j) -> (j)``, a residual ``(i, j) -> (i, j)``);
2. ``set_encoding(unset_encoding(%r))`` of a matmul LHS where ``%r`` is another matmul's
   RESULT folds to ``%r``: the next matmul reads the previous one's packed result directly
   (its ``[M1, N1, M0, N0]`` tiles are an LHS ``[M1, K1, M0, K0]`` with ``K0 = N0``).

Example (an MLP layer; ``#res1`` is matmul 1's RESULT encoding, ``#lhs2`` matmul 2's LHS)::

    %u = iree_encoding.unset_encoding %mm1 : tensor<64x512xf32, #res1> -> tensor<64x512xf32>
    %a = linalg.generic {...(i, j) -> (i, j), (i, j) -> (j)...} ins(%u, %bias) outs(%e) {add, relu}
    %l = iree_encoding.set_encoding %a : tensor<64x512xf32> -> tensor<64x512xf32, #lhs2>
    %mm2 = linalg.matmul ins(%l, %rhs2 : ...) outs(...)
    // ->
    %e1 = tensor.empty() : tensor<64x512xf32, #res1>
    %a1 = linalg.generic {...} ins(%mm1, %bias : tensor<64x512xf32, #res1>, tensor<512xf32>)
        outs(%e1 : tensor<64x512xf32, #res1>) {add, relu} -> tensor<64x512xf32, #res1>
    %mm2 = linalg.matmul ins(%a1, %rhs2 : tensor<64x512xf32, #res1>, ...) outs(...)

Both rules apply to f32 matmuls without batch dims whose shapes are static with N a multiple
of 16 (every data-tiling tile divides it, so no packed column is padding that a relu'd bias
would turn into garbage, and the plain operands read through packed indices stay in bounds;
rule 1 also needs M a multiple of 16 for a residual operand, rule 2 equal M tiles on both
sides: M >= 16, or the next matmul not narrower than M). The dispatch lowering materializes
the encoded generic over the packed tiles and runs the next matmul with ``K0 = N0`` of the
producer (``rt.compiler.codegen.lowering.encoding``).

Source followed: IREE ``DispatchCreation/PropagateEncodings.cpp`` (sinking/bubbling encodings
through elementwise ops) and oneDNN Graph Compiler's ``layout_propagation`` pass (seed 002).
"""
import dataclasses

from xdsl.dialects import tensor
from xdsl.dialects.builtin import TensorType
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir.affine import AffineDimExpr
from xdsl.rewriter import InsertPoint, Rewriter

from rt.compiler.dialects.iree_encoding import SetEncodingOp, UnsetEncodingOp, tensor_encoding
from rt.compiler.passes.base import Pass
from rt.compiler.helpers.dispatch import op_kinds as kinds
from rt.compiler.helpers.dispatch.dce import erase_dead_ops
from rt.compiler.targets.encoding import contraction
from rt.runtime.errors import UnimplementedError

#: Every data-tiling tile (M0, N0 on any target) divides this.
TILE_MULTIPLE = 16


def _matmul_encoding(encoding, index):
    """Whether ``encoding`` names operand ``index`` of an f32 matmul without batch dims."""
    if encoding is None or encoding.op_type.data != "matmul" or encoding.index != index:
        return False
    if [str(t) for t in encoding.element_types.data] != ["f32"] * 3:
        return False
    try:
        c = contraction(encoding)
    except UnimplementedError:
        return False
    return c.batch is None and c.m is not None and c.n is not None


def _static_2d(type_):
    shape = type_.get_shape() if isinstance(type_, TensorType) else ()
    return len(shape) == 2 and all(s >= 0 for s in shape)


def _is_identity(m):
    return kinds.is_identity(m) and m.num_dims == 2


def _plain_operand_ok(value, amap, shape):
    """Whether a plain operand of the epilogue may be read through packed indices."""
    dims = [r.position if isinstance(r, AffineDimExpr) else None for r in amap.results]
    if None in dims or not isinstance(value.type, TensorType):
        return not isinstance(value.type, TensorType) and not amap.results
    return all(shape[d] % TILE_MULTIPLE == 0 for d in dims)


def _sinkable(user, unset):
    """Whether elementwise ``user`` of ``unset``'s result can run on the encoded tensor."""
    if not isinstance(user, linalg.GenericOp) or len(user.outputs) != 1 or not kinds.is_elementwise(user):
        return False
    if len(kinds.iterator_types(user)) != 2:
        return False
    out = user.outputs[0]
    if not isinstance(getattr(out, "op", None), tensor.EmptyOp) or out.type != unset.result.type:
        return False
    if user.results[0].type != unset.result.type:
        return False
    shape = unset.result.type.get_shape()
    for value, amap in zip(user.inputs, kinds.indexing_maps(user)):
        if value is unset.result:
            if not _is_identity(amap):
                return False
        elif not _plain_operand_ok(value, amap, shape):
            return False
    return True


def _located(op, like):
    op.location = like.location
    return op


def _in_block_order(unset, users):
    """``users`` (ops of ``unset``'s block, which all follow it) in block order, found by
    walking forward from ``unset`` to the last of them (an index scan of the whole block per
    user made the pass quadratic in the block's length)."""
    if len(users) < 2:
        return list(users)
    ordered, op = [], unset.next_op
    while op is not None and len(ordered) < len(users):
        if op in users:
            ordered.append(op)
        op = op.next_op
    return ordered


def sink_unset_encoding(unset):
    """Rule 1 for one unset_encoding; returns the new unset_encodings (to visit next)."""
    source = unset.source
    if not _matmul_encoding(tensor_encoding(source.type), 2) or not _static_2d(source.type):
        return []
    if source.type.get_shape()[1] % TILE_MULTIPLE:
        return []
    created = []
    block = unset.parent_block()
    users = {use.operation for use in unset.result.uses if use.operation.parent_block() is block}
    for user in _in_block_order(unset, users):
        if not _sinkable(user, unset):
            continue
        empty = _located(tensor.EmptyOp([], source.type), user)
        inputs = [source if v is unset.result else v for v in user.inputs]
        generic = _located(type(user).build(
            operands=[inputs, [empty.tensor]], result_types=[[source.type]],
            properties=dict(user.properties), attributes=dict(user.attributes),
            regions=[user.regions[0].clone()]), user)
        new_unset = _located(UnsetEncodingOp.build(operands=[generic.results[0], []],
                                                   result_types=[user.results[0].type]), user)
        Rewriter.insert_op([empty, generic, new_unset], InsertPoint.before(user))
        user.results[0].replace_all_uses_with(new_unset.result)
        user.parent_block().erase_op(user)
        created.append(new_unset)
    return created


def _narrow_mismatch(lhs_encoding, m):
    """Whether the consumer matmul may pick a different M tile than its producer: narrow M
    (< 16) with a static N below M makes the resolvers swap the narrow tile onto N."""
    from rt.compiler.targets.encoding import matmul_sizes

    _, n, _ = matmul_sizes(lhs_encoding)
    return m < TILE_MULTIPLE and n is not None and n < m


def fold_set_of_unset(set_op):
    """Rule 2 for one set_encoding; returns whether it folded."""
    unset = getattr(set_op.source, "op", None)
    if not isinstance(unset, UnsetEncodingOp):
        return False
    result = unset.source
    lhs = tensor_encoding(set_op.result.type)
    if not (_matmul_encoding(tensor_encoding(result.type), 2) and _matmul_encoding(lhs, 0)):
        return False
    if not _static_2d(result.type) or result.type.get_shape() != set_op.result.type.get_shape():
        return False
    m, n = result.type.get_shape()
    if n % TILE_MULTIPLE or _narrow_mismatch(lhs, m):
        return False
    set_op.result.replace_all_uses_with(result)
    set_op.parent_block().erase_op(set_op)
    return True


@dataclasses.dataclass(frozen=True)
class PropagateEncodingsPass(Pass):
    """Sink unset_encodings through elementwise epilogues and fold them into the next
    contraction's set_encoding (see the module docstring)."""

    name = "iree-dispatch-creation-propagate-encodings"

    def run(self, module, ctx):
        work = [op for op in module.walk() if isinstance(op, UnsetEncodingOp)]
        changed = False
        while work:
            unset = work.pop()
            if unset.parent is None:
                continue
            created = sink_unset_encoding(unset)
            changed |= bool(created)
            work.extend(created)
        for op in [op for op in module.walk() if isinstance(op, SetEncodingOp)]:
            changed |= fold_set_of_unset(op)
        if changed:
            erase_dead_ops(module)
