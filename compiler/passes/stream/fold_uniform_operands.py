"""``iree-stream-fold-uniform-operands``: drop dispatch operands that are the same everywhere.

Input: ``stream.cmd.dispatch`` ops and the ``stream.executable`` functions they call (after
iree-stream-pack-dispatch-operands the operands are i32 words, but any scalar type works).
Output, per export, looking at all of its dispatch sites:

1. duplicates: an operand that is the same SSA value as an earlier operand at every site is
   removed; the function uses the earlier argument instead;
2. uniform constants: an operand that is an integer/index ``arith.constant`` with the same value
   at every site is removed; the function starts with that ``arith.constant`` instead, and
   the conversions iree-stream-pack-dispatch-operands put after the argument fold into it
   (``bitcast(constant 1073741824 : i32)`` -> ``arith.constant 2.0 : f32``).

Host-side ops that only fed removed operands (casts, constants) are erased. Exports with no
dispatch site are left alone.

Example (seeds 000/003)::

    stream.cmd.dispatch @ex::@foo(%c1, %c100 : index, index)
    stream.cmd.dispatch @ex::@foo(%c1, %c101 : index, index)
    stream.cmd.dispatch @ex::@foo2(%c1, %c101 : index, index)
    // ->
    stream.cmd.dispatch @ex::@foo(%c100 : index)    // @foo starts with %c1 = arith.constant 1
    stream.cmd.dispatch @ex::@foo(%c101 : index)
    stream.cmd.dispatch @ex::@foo2()                 // @foo2 inlines 1 and 101

Source followed: IREE ``Dialect/Stream/Transforms/FoldUniformOperands.cpp``
(deduplicateOperands, inlineUniformConstants).
"""
import dataclasses

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType
from xdsl.rewriter import Rewriter

from rt.compiler.dialects import arith as rt_arith
from rt.compiler.passes.base import Pass
from rt.compiler.helpers.stream import dispatch_sites
from rt.compiler.helpers.stream.constant_folding import fold_constant_users
from rt.compiler.helpers.stream.operand_segments import set_operand_groups

# rt's arith redefines the casts and shrui without subclassing xDSL's: both classes are listed.
_HOST_CLEANUP = (arith.ConstantOp, arith.IndexCastOp, rt_arith.IndexCastOp, rt_arith.IndexCastUIOp, arith.BitcastOp,
                 arith.ExtUIOp, rt_arith.ExtUIOp, arith.TruncIOp, rt_arith.TruncIOp, arith.ShRUIOp, rt_arith.ShRUIOp)


@dataclasses.dataclass(frozen=True)
class FoldUniformOperandsPass(Pass):
    """Remove duplicated and uniformly-constant dispatch operands."""

    name = "iree-stream-fold-uniform-operands"

    def run(self, module, ctx):
        for entry in dispatch_sites.collect(module, self.name):
            if not entry.sites:
                continue
            removed = []
            removed += _deduplicate(entry)
            removed += _inline_constants(entry)
            _erase_dead(removed)


def _deduplicate(entry):
    """Drop operands equal (same value) to an earlier operand at every site; returns the dropped values."""
    args = entry.operand_args()
    operands = [list(site.uniform_operands) for site in entry.sites]
    dead = {}
    for j in range(len(args)):
        for i in range(j):
            if i not in dead and all(ops[i] is ops[j] for ops in operands):
                dead[j] = i
                break
    if not dead:
        return []
    for j, i in dead.items():
        args[j].replace_all_uses_with(args[i])
    return _drop(entry, args, set(dead))


def _constant_value(value):
    op = value.owner
    if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr) \
            and isinstance(value.type, (IntegerType, IndexType)):
        return op.value.value.data
    return None


def _inline_constants(entry):
    """Replace operands with one constant value at every site by constants in the function."""
    args = entry.operand_args()
    uniform = {}
    for idx in range(len(args)):
        values = {_constant_value(site.uniform_operands[idx]) for site in entry.sites}
        if len(values) == 1 and None not in values:
            uniform[idx] = values.pop()
    if not uniform:
        return []
    block = entry.func.body.blocks[0]
    first = block.first_op
    constants = {}
    for idx, value in uniform.items():
        constants[idx] = arith.ConstantOp(IntegerAttr(value, args[idx].type))
        block.insert_op_before(constants[idx], first)
    for idx, constant in constants.items():
        args[idx].replace_all_uses_with(constant.result)
        fold_constant_users(constant)
    return _drop(entry, args, set(uniform))


def _drop(entry, args, indices):
    removed = []
    for site in entry.sites:
        operands = list(site.uniform_operands)
        removed += [operands[i] for i in indices]
        set_operand_groups(site, uniform_operands=[v for i, v in enumerate(operands) if i not in indices])
    dispatch_sites.erase_arguments(entry.func, [args[i] for i in indices])
    return removed


def _erase_dead(values):
    """Erase host ops (constants and casts) left without uses by removed operands."""
    work = list(values)
    while work:
        value = work.pop()
        op = value.owner
        if not isinstance(op, _HOST_CLEANUP) or op.parent is None \
                or any(r.uses for r in op.results):
            continue
        work += list(op.operands)
        Rewriter.erase_op(op)
