"""``iree-stream-elide-async-copies``: drop clones and slices that copy nothing anyone can observe.

Input: host code in the async form, typically right after materialize-copy-on-write. Output:

* ``stream.async.clone`` is replaced by its source when it keeps the lifetime (``*`` -> ``*``,
  never a lifetime cast) and the source is not observed after it: the clone is the source's
  only user, or its last user in the defining block (a clone inside a nested region, which may
  run repeatedly, is kept). A block-argument source qualifies only when it is *moved* in: the
  argument of a private function every caller of which passes a value at its last use (public
  functions and branch arguments are by-reference: the caller may still hold the value).
* ``stream.async.slice`` whose users only read it (non-tied ``stream.async.dispatch`` operands,
  ``stream.async.copy`` sources) is folded into those readers as a sub-range of its source, when
  the source is not itself an in-place result and no other user of the source writes it.

Repeats until nothing changes (at most 30 rounds, as IREE).

Example::

    %1 = stream.async.dispatch @ex::@a(%0[%c0 to %c40 for %c40]) : (!stream.resource<*>{%c40}) -> !stream.resource<*>{%c40}
    %2 = stream.async.clone %1 : !stream.resource<*>{%c40} -> !stream.resource<*>{%c40}
    %3 = stream.async.fill %c0_i32, %2[%c0 to %c4 for %c4] : i32 -> %2 as !stream.resource<*>{%c40}
    // -> %1 is not used after the clone: the fill updates it in place
    %3 = stream.async.fill %c0_i32, %1[%c0 to %c4 for %c4] : i32 -> %1 as !stream.resource<*>{%c40}

Errors: none. Source followed: IREE ``Stream/Transforms/ElideAsyncCopies.cpp`` (clone elision
with last-user and argument-semantics analysis, slice folding into consumers).
"""
import dataclasses

from xdsl.dialects import arith, func
from xdsl.ir import BlockArgument
from xdsl.rewriter import InsertPoint, Rewriter

from rt.compiler.dialects import stream, util
from rt.compiler.passes.base import Pass
from rt.compiler.helpers.stream.resources import host_callables
from rt.compiler.helpers.stream.async_ops import is_last_user, is_tied_use, tied_operand_indices

MAX_ITERATIONS = 30
_CALL_OPS = (util.CallOp, func.CallOp)
_FUNCTIONS = (util.FuncOp, func.FuncOp)
#: ops whose use of a resource operand only reads it (unless that operand is tied)
_READERS = (stream.AsyncDispatchOp, stream.AsyncCopyOp, stream.AsyncSliceOp, stream.AsyncCloneOp,
            stream.AsyncTransferOp, stream.AsyncLoadOp, stream.AsyncUpdateOp, stream.TensorExportOp)


@dataclasses.dataclass(frozen=True)
class ElideAsyncCopiesPass(Pass):
    """Remove stream.async.clone/slice ops whose copies are unobservable."""

    name = "iree-stream-elide-async-copies"

    def run(self, module, ctx):
        for _ in range(MAX_ITERATIONS):
            changed = False
            for callable_op in host_callables(module):
                for op in list(callable_op.walk()):
                    if isinstance(op, stream.AsyncCloneOp) and _is_safe_to_elide_clone(module, op):
                        op.result.replace_all_uses_with(op.source)
                        Rewriter.erase_op(op)
                        changed = True
                    elif isinstance(op, stream.AsyncSliceOp) and _is_safe_to_elide_slice(op):
                        _fold_slice(op)
                        changed = True
            if not changed:
                return


def _is_safe_to_elide_clone(module, clone):
    if clone.source.type != clone.result.type:
        return False
    source = clone.source
    if isinstance(source, BlockArgument) and not _is_arg_moved(module, source, set()):
        return False
    return is_last_user(source, clone)


def _is_arg_moved(module, arg, visiting):
    """True when every caller passes ``arg``'s value at its last use (entry args of private functions)."""
    block = arg.owner
    callable_op = block.parent_op()
    if not isinstance(callable_op, _FUNCTIONS):
        return False
    if block is not callable_op.regions[0].blocks[0]:
        return False
    visibility = callable_op.properties.get("sym_visibility")
    if visibility is None or visibility.data != "private" or callable_op in visiting:
        return False
    visiting = visiting | {callable_op}
    calls = [op for op in module.walk() if isinstance(op, _CALL_OPS)
             and op.properties["callee"].root_reference.data == callable_op.sym_name.data]
    if not calls:
        return False
    for call in calls:
        value = call.operands[arg.index]
        if isinstance(value, BlockArgument) and not _is_arg_moved(module, value, visiting):
            return False
        if not is_last_user(value, call):
            return False
    return True


def _is_safe_to_elide_slice(slice_op):
    for use in slice_op.result.uses:
        user = use.operation
        if isinstance(user, stream.AsyncDispatchOp):
            if is_tied_use(user, use.index):
                return False
        elif isinstance(user, stream.AsyncCopyOp):
            if use.index != 0:
                return False
        else:
            return False
    source = slice_op.source
    owner = source.owner
    if not isinstance(source, BlockArgument) and tied_operand_indices(owner)[source.index] >= 0:
        return False
    for use in source.uses:
        if use.operation is slice_op:
            continue
        if not isinstance(use.operation, _READERS) or is_tied_use(use.operation, use.index):
            return False
    return True


def _add(anchor, a, b):
    """``a + b`` as an index value before ``anchor`` (an addend that is constant 0 folds away)."""
    for x, y in ((a, b), (b, a)):
        op = getattr(x, "owner", None)
        if isinstance(op, arith.ConstantOp) and op.value.value.data == 0:
            return y
    add = arith.AddiOp(a, b)
    Rewriter.insert_op(add, InsertPoint.before(anchor))
    return add.result


def _fold_slice(slice_op):
    offset = slice_op.source_offset
    for use in list(slice_op.result.uses):
        user, index = use.operation, use.index
        if isinstance(user, stream.AsyncCopyOp):
            user.operands[0] = slice_op.source
            user.operands[1] = slice_op.source_size
            user.operands[2] = _add(user, offset, user.source_offset)
            user.operands[3] = _add(user, offset, user.source_end)
            continue
        position = index - len(user.workload)
        resource = sum(1 for v in user.resource_operands[:position] if isinstance(v.type, stream.ResourceType))
        base = len(user.workload) + len(user.resource_operands)
        sizes = base
        offsets = sizes + len(user.resource_operand_sizes)
        ends = offsets + len(user.resource_operand_offsets)
        user.operands[index] = slice_op.source
        user.operands[sizes + resource] = slice_op.source_size
        user.operands[offsets + resource] = _add(user, offset, user.resource_operand_offsets[resource])
        user.operands[ends + resource] = _add(user, offset, user.resource_operand_ends[resource])
    Rewriter.erase_op(slice_op)
