"""Tied (in-place) operands and resource sizes of the async-phase stream ops, plus last-use queries.

An async op *ties* a result to an operand when the result is the operand's storage updated in
place: ``stream.async.fill/update/copy/store`` tie their result to the target,
``stream.async.dispatch`` / ``execute`` / ``concurrent`` tie the results their ``tied_operands``
property names (indices into the op's resource operand list, -1 for a new resource).

* :func:`tied_operand_indices` — per result, the operand index (into ``op.operands``) or -1.
* :func:`is_tied_use` — whether operand ``index`` of ``op`` is mutated in place.
* :func:`operand_size` / :func:`result_size` — the index SSA value holding a resource's byte size.
* :func:`is_last_user` — whether ``user`` is a last use of ``value``: ``user`` sits in the block
  defining ``value`` (not in a nested region, which may run repeatedly), and no use follows it
  there or lives in another block.

Source followed: IREE ``Util/IR/UtilInterfaces`` (TiedOpInterface), ``SizeAwareOpInterface`` and
MLIR ``Liveness::isDeadAfter`` (restricted here to values whose lifetime is one block).
"""
from xdsl.ir import BlockArgument

from rt.compiler.dialects import stream
from rt.compiler.dialects.stream_types import ResourceType, int_list

#: ops whose single result updates their ``target`` in place -> index of ``target`` in op.operands
_TARGET_INDEX = {stream.AsyncFillOp: 1, stream.AsyncUpdateOp: 2, stream.AsyncCopyOp: 4, stream.AsyncStoreOp: 1}
#: ops tying results to entries of ``resource_operands`` through their ``tied_operands`` property
_LIST_TIED = (stream.AsyncDispatchOp, stream.AsyncExecuteOp, stream.AsyncConcurrentOp)
#: ops whose operand 0 is a resource sized by ``source_size``
_SOURCE_SIZED = (stream.AsyncCloneOp, stream.AsyncSliceOp, stream.AsyncTransferOp, stream.AsyncCopyOp,
                 stream.AsyncLoadOp, stream.TensorExportOp)


def _resource_base(op):
    """Index into ``op.operands`` of the first ``resource_operands`` entry of a list-tied op."""
    return len(op.workload) if isinstance(op, stream.AsyncDispatchOp) else 0


def tied_operand_indices(op):
    """Per result of ``op``: the index into ``op.operands`` it is tied to, or -1."""
    target = _TARGET_INDEX.get(type(op))
    if target is not None:
        return [target]
    if isinstance(op, _LIST_TIED):
        base = _resource_base(op)
        ties = int_list(op.tied_operands)
        ties += [-1] * (len(op.results_) - len(ties))
        return [base + t if t >= 0 else -1 for t in ties] + [-1] * (len(op.results) - len(op.results_))
    return [-1] * len(op.results)


def is_tied_use(op, index):
    """True when operand ``index`` of ``op`` is updated in place by one of its results."""
    return index in tied_operand_indices(op)


def has_tied_use(value):
    """True when some op updates ``value`` in place."""
    return any(is_tied_use(use.operation, use.index) for use in value.uses)


def operand_size(op, index):
    """The byte-size SSA value of resource operand ``index`` of ``op`` (None when unknown)."""
    if _TARGET_INDEX.get(type(op)) == index:
        return op.target_size
    if isinstance(op, stream.AsyncUpdateOp) and index == 0:
        return op.update_size
    if isinstance(op, _SOURCE_SIZED) and index == 0:
        return op.source_size
    if isinstance(op, _LIST_TIED):
        position = index - _resource_base(op)
        if 0 <= position < len(op.resource_operands):
            before = sum(1 for v in op.resource_operands[:position] if isinstance(v.type, ResourceType))
            return op.resource_operand_sizes[before]
    return None


def result_size(op, index):
    """The byte-size SSA value of resource result ``index`` of ``op`` (None when unknown)."""
    if type(op) in _TARGET_INDEX:
        return op.target_size
    if isinstance(op, stream.AsyncAllocaOp):
        return op.storage_size
    if isinstance(op, _LIST_TIED):
        return op.result_sizes[index]
    return getattr(op, "result_size", None)


def _ancestor_in(block, op):
    """The ancestor of ``op`` (or ``op``) directly in ``block``; None when ``op`` is not inside it."""
    while op is not None and op.parent_block() is not block:
        op = op.parent_op()
    return op


def _defining_block(value):
    return value.owner if isinstance(value, BlockArgument) else value.owner.parent_block()


def is_last_user(value, user):
    """True when ``user`` is a last use of ``value`` (see the module docstring)."""
    block = _defining_block(value)
    if user.parent_block() is not block:
        return False
    order = {op: i for i, op in enumerate(block.ops)}
    for use in value.uses:
        other = _ancestor_in(block, use.operation)
        if other is None or order[other] > order[user]:
            return False
    return True
