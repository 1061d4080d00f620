"""Facts about ``stream.async.*`` ops shared by the scheduling passes.

* :data:`STREAMABLE` — ops that may be placed in a ``stream.async.execute`` region (IREE's
  ``StreamableOpInterface``): alloca, constant, splat, clone, slice, fill, update, copy,
  transfer, dispatch.
* :func:`execution_affinity` — where an async op runs; a transfer runs on its result affinity
  unless its result is ``staging`` (then on the source side), as in IREE's
  ``AsyncTransferOp::getAffinityAttr``.
* :func:`tied_operand` — the operand an in-place result aliases (fill/update/copy targets,
  ``tied_operands`` of dispatch/execute/concurrent), or None for a new resource;
  :func:`tied_input` follows such ties through the ops of a region being formed.
* :func:`known_size` / :func:`size_of` — the index byte size of a resource value, from the
  size-aware op that defines it (IREE's ``SizeAwareOpInterface``) or a new
  ``stream.resource.size``.

Source followed: IREE ``Dialect/Stream/IR/StreamInterfaces.td`` and ``StreamOps.cpp``.
"""
from xdsl.ir import BlockArgument, OpResult

from rt.compiler.dialects import stream
from rt.compiler.dialects.stream_types import ResourceType, int_list
from rt.compiler.passes.stream.resources import affinity_of

STREAMABLE = frozenset({
    "stream.async.alloca", "stream.async.constant", "stream.async.splat", "stream.async.clone",
    "stream.async.slice", "stream.async.fill", "stream.async.update", "stream.async.copy",
    "stream.async.transfer", "stream.async.dispatch",
})

_SINGLE_SIZE = {
    "stream.async.alloca": "storage_size", "stream.async.constant": "result_size",
    "stream.async.splat": "result_size", "stream.async.clone": "result_size",
    "stream.async.slice": "result_size", "stream.async.fill": "target_size",
    "stream.async.update": "target_size", "stream.async.copy": "target_size",
    "stream.async.transfer": "result_size", "stream.async.store": "target_size",
    "stream.tensor.import": "result_size", "stream.resource.alloc": "storage_size",
    "stream.resource.alloca": "storage_size", "stream.resource.subview": "result_size",
    "stream.resource.map": "result_size", "stream.resource.try_map": "result_size",
    "stream.timepoint.barrier": "resource_size",
}
_IN_PLACE = {"stream.async.fill": "target", "stream.async.update": "target", "stream.async.copy": "target",
             "stream.async.store": "target", "stream.timepoint.barrier": "resource"}


def execution_affinity(op):
    """The affinity attribute ``op`` executes on (None: the default device)."""
    if op.name == "stream.async.transfer" and op.properties.get("affinity") is None:
        if op.result_affinity is not None and op.result.type.lifetime.data != "staging":
            return op.result_affinity
        if op.source_affinity is not None:
            return op.source_affinity
    return affinity_of(op)


def tied_operand(op, index):
    """The operand value result ``index`` of ``op`` is tied to (updates in place), else None."""
    field = _IN_PLACE.get(op.name)
    if field is not None:
        return getattr(op, field) if index == 0 else None
    tied = int_list(op.properties.get("tied_operands"))
    if index < len(tied) and tied[index] >= 0:
        return op.resource_operands[tied[index]]
    return None


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
        if owner is not None and owner.name in ("stream.async.execute", "stream.async.concurrent",
                                                "stream.cmd.execute"):
            return owner.resource_operand_sizes[value.index]
        return None
    if not isinstance(value, OpResult):
        return None
    op = value.op
    field = _SINGLE_SIZE.get(op.name)
    if field is not None:
        return getattr(op, field)
    if op.name in ("stream.async.dispatch", "stream.async.execute", "stream.async.concurrent",
                   "stream.resource.constants"):
        return op.result_sizes[value.index]
    if op.name == "stream.timepoint.await":
        resources = [v for v in op.results if isinstance(v.type, ResourceType)]
        return op.resource_operand_sizes[resources.index(value)]
    return None


_OPERAND_SIZES = (("source", "source_size"), ("target", "target_size"), ("update", "update_size"),
                  ("operand", "operand_size"), ("resource", "resource_size"))


def size_from_uses(value):
    """The size operand that a size-aware user states for ``value``, or None."""
    for use in value.uses:
        op = use.operation
        if not op.name.startswith("stream."):
            continue
        for field, size_field in _OPERAND_SIZES:
            if getattr(op, field, None) is value and hasattr(op, size_field):
                return getattr(op, size_field)
        if hasattr(op, "resource_operand_sizes") and value in op.resource_operands:
            resources = [v for v in op.resource_operands if isinstance(v.type, ResourceType)]
            return op.resource_operand_sizes[resources.index(value)]
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

