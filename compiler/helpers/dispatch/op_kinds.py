"""What each tensor op is to dispatch creation: root, fusable elementwise, clonable, host.

* dispatchable: computes on tensors inside a dispatch -- every linalg op, ``tensor.pad``,
  ``concat``, ``extract_slice``/``insert_slice`` that convert-to-flow left and
  ``iree_encoding.set_encoding``/``unset_encoding``;
* clonable: cheap to recompute in every dispatch that needs it -- ``tensor.empty``,
  ``flow.tensor.empty`` and ``linalg.fill``;
* elementwise: ``linalg.generic``/named elementwise ops with only parallel loops, and
  ``linalg.broadcast`` -- fusable into a producer root or a consumer;
* loop ranges of a structured op (static ints or host index values) give the workload and the
  export name (``matmul_DxDxD_f32``).

Source followed: IREE ``DispatchCreation/FormDispatchRegions.cpp`` (isRootLikeOp,
isClonableIntoDispatchOp) and ``Flow/Transforms/OutlineDispatchRegions.cpp`` /
``AnnotateDispatches.cpp`` (dispatch naming).
"""
from xdsl.dialects import arith
from xdsl.dialects import tensor as xtensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, TensorType
from xdsl.dialects.linalg import ops as xlinalg
from xdsl.ir.affine import AffineDimExpr

from rt.compiler.dialects._linalg_ext_attention import AttentionOp, OnlineAttentionOp
from rt.compiler.dialects.flow_tensor import TensorEmptyOp
from rt.compiler.dialects.iree_encoding import SetEncodingOp, UnsetEncodingOp
from rt.compiler.dialects.linalg import PackOp, UnPackOp
from rt.compiler.dialects.linalg_named import NAMED_OP_CLASSES

#: op classes (tuples, for isinstance); subclasses (rt's versions of xDSL ops) match too
ENCODING_OPS = (SetEncodingOp, UnsetEncodingOp)
DISPATCHABLE_TENSOR_OPS = (xtensor.PadOp, xtensor.ConcatOp, xtensor.ExtractSliceOp, xtensor.InsertSliceOp,
                           *ENCODING_OPS)
CLONABLE = (xtensor.EmptyOp, TensorEmptyOp, xlinalg.FillOp)
NOT_OPS = (xlinalg.YieldOp, xlinalg.IndexOp)
CONTRACTIONS = tuple(NAMED_OP_CLASSES[row] for row in (
    "matmul", "batch_matmul", "matvec", "vecmat", "batch_matvec", "dot", "mmt4d", "batch_mmt4d",
    "matmul_transpose_b", "matmul_transpose_a", "quantized_matmul"))
#: named convolutions (depthwise ones too) and poolings: roots ranked like contractions
CONVOLUTIONS = tuple(cls for row, cls in NAMED_OP_CLASSES.items() if "conv" in row)
POOLINGS = tuple(cls for row, cls in NAMED_OP_CLASSES.items() if "pooling" in row)
_RELAYOUTS_AND_REDUCTIONS = (PackOp, UnPackOp, xlinalg.TransposeOp, xlinalg.ReduceOp)
#: iree_linalg_ext's attention ops: top-ranked roots that take no elementwise producers
ATTENTION_OPS = (AttentionOp, OnlineAttentionOp)
_TOP_RANKED_ROOTS = (*CONTRACTIONS, *CONVOLUTIONS, *POOLINGS, *ATTENTION_OPS)
_NEVER_ELEMENTWISE = (*CLONABLE, *CONTRACTIONS, xlinalg.TransposeOp)
#: body ops that make a reduction generic "matmul_like" in its export name
_MULTIPLIES = (arith.MulfOp, arith.MuliOp, arith.MulSIExtendedOp, arith.MulUIExtendedOp)


def is_dispatchable(op):
    if isinstance(op, NOT_OPS):
        return False
    # every other linalg op computes on tensors inside a dispatch
    return (op.dialect_name() == "linalg" or isinstance(op, DISPATCHABLE_TENSOR_OPS)
            or isinstance(op, ATTENTION_OPS))


def is_clonable(op):
    return isinstance(op, CLONABLE)


def is_structured(op):
    return hasattr(op, "get_indexing_maps") and hasattr(op, "get_iterator_types")


def iterator_types(op):
    return [it.data.value for it in op.get_iterator_types().data]


def indexing_maps(op):
    return [m.data for m in op.get_indexing_maps().data]


def is_elementwise(op):
    """All-parallel structured op whose output maps are identities (or a linalg.broadcast)."""
    if isinstance(op, xlinalg.BroadcastOp):
        return True
    if isinstance(op, _NEVER_ELEMENTWISE) or not is_structured(op):
        return False
    if any(it != "parallel" for it in iterator_types(op)):
        return False
    n_in = len(op.inputs)
    return all(is_identity(m) for m in indexing_maps(op)[n_in:])


def has_reduction(op):
    return is_structured(op) and any(it == "reduction" for it in iterator_types(op))


def is_identity(m):
    return len(m.results) == m.num_dims and all(
        isinstance(r, AffineDimExpr) and r.position == i for i, r in enumerate(m.results))


def operand_map(op, value):
    """The indexing map of ``value`` as an operand of structured ``op`` (None when not an operand)."""
    operands = list(op.inputs) + list(op.outputs)
    for v, m in zip(operands, indexing_maps(op)):
        if v is value:
            return m
    return None


def output_is_parallel_projection(op):
    """True when each output of structured ``op`` is indexed by its parallel loops in order."""
    its = iterator_types(op)
    parallel = [d for d, it in enumerate(its) if it == "parallel"]
    for m in indexing_maps(op)[len(op.inputs):]:
        dims = [r.position if isinstance(r, AffineDimExpr) else None for r in m.results]
        if dims != parallel:
            return False
    return True


def loop_ranges(op, dims_of):
    """Loop ranges of structured ``op``: an int or an index SSA value per loop (None if unknown).

    ``dims_of(value)`` returns the index values of the dynamic dims of a tensor value.
    """
    n = len(iterator_types(op))
    ranges = [None] * n
    operands = list(op.inputs) + list(op.outputs)
    for value, m in zip(operands, indexing_maps(op)):
        if not isinstance(value.type, TensorType):
            continue
        shape = value.type.get_shape()
        dyn = None
        for j, r in enumerate(m.results):
            if not isinstance(r, AffineDimExpr) or ranges[r.position] is not None:
                continue
            if shape[j] != DYNAMIC_INDEX:
                ranges[r.position] = shape[j]
            else:
                dyn = dims_of(value) if dyn is None else dyn
                ranges[r.position] = dyn[sum(1 for s in shape[:j] if s == DYNAMIC_INDEX)]
    return ranges


def _rank(op):
    """Root preference: contractions/convs > reductions/pack/unpack/transpose > other > clonable."""
    if isinstance(op, _TOP_RANKED_ROOTS):
        return 4
    if has_reduction(op) or isinstance(op, _RELAYOUTS_AND_REDUCTIONS):
        return 3
    if isinstance(op, DISPATCHABLE_TENSOR_OPS):
        return 2
    if isinstance(op, CLONABLE):
        return 0
    return 1


def pick_root(ops):
    """The op a dispatch is named and sized after: highest rank, last one on ties."""
    best = None
    for op in ops:
        if is_dispatchable(op) or isinstance(op, CLONABLE):
            if best is None or _rank(op) >= _rank(best):
                best = op
    return best


def _unknown_dims(value):
    """Stand-in dims (None) for naming, where only static sizes matter."""
    return [None] * len(value.type.get_shape())


def _kind(op):
    if not isinstance(op, xlinalg.GenericOp):
        return op.name.split(".", 1)[1]
    its = iterator_types(op)
    if all(it == "parallel" for it in its):
        maps = indexing_maps(op)
        if all(is_identity(m) for m in maps):
            return "elementwise"
        if all(all(isinstance(r, AffineDimExpr) for r in m.results) and len(m.results) <= m.num_dims for m in maps):
            if all(len(m.results) == m.num_dims for m in maps):
                return "transpose"
            return "elementwise_broadcast"
        return "generic"
    if sum(1 for it in its if it == "reduction") and len(op.inputs) >= 2 and _multiplies(op):
        return "matmul_like"
    return "reduction"


def _multiplies(op):
    """Whether ``op``'s body multiplies."""
    if not (op.regions and op.regions[0].blocks):
        return False
    return any(isinstance(o, _MULTIPLIES) for o in op.regions[0].block.ops)


def _element_types(op):
    types = []
    for v in list(op.operands) + list(op.results):
        if isinstance(v.type, TensorType) and str(v.type.element_type) not in types:
            types.append(str(v.type.element_type))
    return types


def summary(op):
    """IREE-style export suffix for root ``op``: ``matmul_DxDxD_f32``, ``elementwise_10_f32``."""
    if op is None:
        return "slow_memcpy"
    if is_structured(op):
        shape = [s if isinstance(s, int) else None for s in loop_ranges(op, _unknown_dims)]
    else:
        result = op.results[0].type if op.results else None
        shape = list(result.get_shape()) if isinstance(result, TensorType) else []
        shape = [None if s == DYNAMIC_INDEX else s for s in shape]
    text = "x".join("D" if s is None else str(s) for s in shape)
    parts = [_kind(op).replace(".", "_")] + ([text] if text else []) + ["x".join(_element_types(op))]
    return "_".join(p for p in parts if p)
