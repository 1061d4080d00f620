"""Facts about ``stream.async.*`` ops shared by the stream passes: placement, ties, sizes, last uses.

* :data:`STREAMABLE` — ops that may be placed in a ``stream.async.execute`` region (IREE's
  ``StreamableOpInterface``): alloca, constant, splat, clone, slice, fill, update, copy,
  transfer, dispatch, collective.
* :func:`execution_affinity` — where an async op runs; a transfer runs on its result affinity
  unless its result is ``staging`` (then on the source side), as in IREE's
  ``AsyncTransferOp::getAffinityAttr``.
* Ties: an op *ties* a result to an operand when the result is the operand's storage updated in
  place: ``stream.async.fill/update/copy/store/collective`` tie their result to the target,
  ``stream.timepoint.barrier`` its resource, ``stream.async.dispatch`` / ``execute`` /
  ``concurrent`` the results their ``tied_operands`` property names (indices into the resource
  operand list, -1 for a new resource). :func:`tied_operand_indices` gives, per result, the
  index into ``op.operands`` (or -1); :func:`tied_operand` the operand value (or None);
  :func:`is_tied_use` / :func:`has_tied_use` ask whether a use mutates in place;
  :func:`tied_input` follows ties through the ops of a region being formed.
* Sizes (IREE's ``SizeAwareOpInterface``): :func:`known_size` — the index byte size of a resource
  value from the op or region that defines it; :func:`operand_size` — the size an op states for
  one of its resource operands; :func:`size_from_uses` — the first such size among a value's
  users; :func:`size_of` — any of those, else a new ``stream.resource.size``.
* :func:`ancestor_in` / :func:`is_last_user` — the op directly in a block that holds a (nested)
  op; whether ``user`` is a last use of ``value``: ``user`` sits in the block defining ``value``
  (not in a nested region, which may run repeatedly), and no use follows it there or lives in
  another block.

Source followed: IREE ``Dialect/Stream/IR/StreamInterfaces.td``, ``StreamOps.cpp``,
``Util/IR/UtilInterfaces`` (TiedOpInterface) and MLIR ``Liveness::isDeadAfter`` (restricted here
to values whose lifetime is one block).
"""
from xdsl.ir import BlockArgument, OpResult

from rt.compiler.dialects import stream
from rt.compiler.dialects.stream_collective import AsyncCollectiveOp
from rt.compiler.dialects.stream_types import ResourceType, int_list
from rt.compiler.op_handlers import OpTable
from rt.compiler.helpers.stream.resources import affinity_of

STREAMABLE = (
    stream.AsyncAllocaOp, stream.AsyncConstantOp, stream.AsyncSplatOp, stream.AsyncCloneOp,
    stream.AsyncSliceOp, stream.AsyncFillOp, stream.AsyncUpdateOp, stream.AsyncCopyOp,
    stream.AsyncTransferOp, stream.AsyncDispatchOp, AsyncCollectiveOp,
)

#: ops whose first result updates one operand in place -> index of that operand in op.operands
_TARGET_INDEX = OpTable({stream.AsyncFillOp: 1, stream.AsyncUpdateOp: 2, stream.AsyncCopyOp: 4,
                         stream.AsyncStoreOp: 1, stream.TimepointBarrierOp: 0, AsyncCollectiveOp: 0})
#: ops tying results to entries of ``resource_operands`` through their ``tied_operands`` property
_LIST_TIED = (stream.AsyncDispatchOp, stream.AsyncExecuteOp, stream.AsyncConcurrentOp)
#: ops whose block arguments are their resource operands
_RESOURCE_REGIONS = (stream.AsyncExecuteOp, stream.AsyncConcurrentOp, stream.CmdExecuteOp)
#: ops with one size per result in ``result_sizes``
_RESULT_SIZES = (stream.AsyncDispatchOp, stream.AsyncExecuteOp, stream.AsyncConcurrentOp,
                 stream.ResourceConstantsOp)

_SINGLE_SIZE = OpTable({
    stream.AsyncAllocaOp: "storage_size", stream.AsyncConstantOp: "result_size",
    stream.AsyncSplatOp: "result_size", stream.AsyncCloneOp: "result_size",
    stream.AsyncSliceOp: "result_size", stream.AsyncFillOp: "target_size",
    stream.AsyncUpdateOp: "target_size", stream.AsyncCopyOp: "target_size",
    stream.AsyncTransferOp: "result_size", stream.AsyncStoreOp: "target_size",
    stream.TensorImportOp: "result_size", stream.ResourceAllocOp: "storage_size",
    stream.ResourceAllocaOp: "storage_size", stream.ResourceSubviewOp: "result_size",
    stream.ResourceMapOp: "result_size", stream.ResourceTryMapOp: "result_size",
    stream.TimepointBarrierOp: "resource_size", AsyncCollectiveOp: "target_size",
})
_OPERAND_SIZES = (("source", "source_size"), ("target", "target_size"), ("update", "update_size"),
                  ("operand", "operand_size"), ("resource", "resource_size"))


def execution_affinity(op):
    """The affinity attribute ``op`` executes on (None: the default device)."""
    if isinstance(op, stream.AsyncTransferOp) and op.properties.get("affinity") is None:
        if op.result_affinity is not None and op.result.type.lifetime.data != "staging":
            return op.result_affinity
        if op.source_affinity is not None:
            return op.source_affinity
    return affinity_of(op)


def tied_operand_indices(op):
    """Per result of ``op``: the index into ``op.operands`` it is tied to, or -1."""
    target = _TARGET_INDEX.get(op)
    if target is not None:
        return [target] + [-1] * (len(op.results) - 1)
    if isinstance(op, _LIST_TIED):
        base = len(op.workload) if isinstance(op, stream.AsyncDispatchOp) else 0
        ties = int_list(op.tied_operands)
        ties += [-1] * (len(op.results_) - len(ties))
        return [base + t if t >= 0 else -1 for t in ties] + [-1] * (len(op.results) - len(op.results_))
    return [-1] * len(op.results)


def tied_operand(op, index):
    """The operand value result ``index`` of ``op`` is tied to (updates in place), else None."""
    position = tied_operand_indices(op)[index]
    return op.operands[position] if position >= 0 else None


def is_tied_use(op, index):
    """True when operand ``index`` of ``op`` is updated in place by one of its results."""
    return index in tied_operand_indices(op)


def has_tied_use(value):
    """True when some op updates ``value`` in place."""
    return any(is_tied_use(use.operation, use.index) for use in value.uses)


def tied_input(value, members, ins):
    """Index in ``ins`` that result ``value`` updates in place, following ties through the ops
    ``members`` (a region being formed); -1 when it is a new resource."""
    while True:
        source = tied_operand(value.op, value.index)
        if source is None:
            return -1
        if source in ins:
            return ins.index(source)
        if getattr(source, "op", None) not in members:
            return -1
        value = source


def known_size(value):
    """The index SSA value holding the byte size of resource ``value``, or None if unknown."""
    if isinstance(value, BlockArgument):
        owner = value.block.parent_op()
        if isinstance(owner, _RESOURCE_REGIONS):
            return owner.resource_operand_sizes[value.index]
        return None
    if not isinstance(value, OpResult):
        return None
    op = value.op
    field = _SINGLE_SIZE.get(op)
    if field is not None:
        return getattr(op, field)
    if isinstance(op, _RESULT_SIZES):
        return op.result_sizes[value.index]
    if isinstance(op, stream.TimepointAwaitOp):
        resources = [v for v in op.results if isinstance(v.type, ResourceType)]
        return op.resource_operand_sizes[resources.index(value)]
    return getattr(op, "result_size", None)


def operand_size(op, index):
    """The byte-size SSA value ``op`` states for its resource operand ``index`` (None when unknown)."""
    value = op.operands[index]
    for field, size_field in _OPERAND_SIZES:
        if getattr(op, field, None) is value and hasattr(op, size_field):
            return getattr(op, size_field)
    if hasattr(op, "resource_operand_sizes") and value in op.resource_operands:
        resources = [v for v in op.resource_operands if isinstance(v.type, ResourceType)]
        return op.resource_operand_sizes[resources.index(value)]
    return None


def size_from_uses(value):
    """The size operand that a size-aware ``stream.*`` user states for ``value``, or None."""
    for use in value.uses:
        if use.operation.dialect_name() == "stream":  # any stream op may state its operands' sizes
            size = operand_size(use.operation, use.index)
            if size is not None:
                return size
    return None


def size_of(value, anchor):
    """Byte size of resource ``value``: :func:`known_size`, a user's stated size (:func:`size_from_uses`)
    or a new ``stream.resource.size`` before ``anchor``."""
    size = known_size(value)
    if size is None:
        size = size_from_uses(value)
    if size is not None:
        return size
    op = stream.ResourceSizeOp.build(operands=[value], result_types=[stream.INDEX])
    anchor.parent_block().insert_op_before(op, anchor)
    return op.result


def ancestor_in(block, op):
    """The ancestor of ``op`` (or ``op``) directly in ``block``; None when ``op`` is not inside it."""
    while op is not None and op.parent_block() is not block:
        op = op.parent_op()
    return op


def is_last_user(value, user):
    """True when ``user`` is a last use of ``value`` (see the module docstring)."""
    block = value.owner if isinstance(value, BlockArgument) else value.owner.parent_block()
    if user.parent_block() is not block:
        return False
    order = {op: i for i, op in enumerate(block.ops)}
    for use in value.uses:
        other = ancestor_in(block, use.operation)
        if other is None or order[other] > order[user]:
            return False
    return True
