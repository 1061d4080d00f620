"""StableHLO ``while``, ``if``, ``case`` as ``scf.while`` / ``scf.if`` (helper).

Called by ``iree-stablehlo-to-iree-input`` (``stablehlo_to_iree_input.py``) with the op and an
:class:`OpSink`; each returns the result values. The op's regions are moved into the scf op and
converted in place by the pass (their ``stablehlo.return`` becomes ``scf.condition`` /
``scf.yield``); ``case`` becomes nested ``scf.if``s, the last branch taken for an out-of-range
index. A region that does not end in ``stablehlo.return`` is a located CompileError.

Source followed: IREE ``compiler/plugins/input/StableHLO/Conversion/LegalizeControlFlow.cpp``
(same mapping of each op), the StableHLO spec for semantics.
"""
from xdsl.dialects import scf, tensor
from xdsl.ir import Block, Region

from rt.compiler.dialects import arith, stablehlo as hlo
from rt.compiler.frontend.diagnostics import error_at_op
from rt.compiler.helpers.stablehlo.elementwise import OpSink, constant, element_type


def convert_while(op, b):
    """``stablehlo.while`` -> ``scf.while`` (cond region -> before, body -> after)."""
    types = [v.type for v in op.inputs]
    before, after = [op.detach_region(r) for r in (op.cond, op.body)]
    terminate(before, lambda s, values: scf.ConditionOp(
        s.add(tensor.ExtractOp(values[0], [], element_type(values[0].type))), *before.block.args))
    terminate(after, lambda s, values: scf.YieldOp(*values))
    loop = scf.WhileOp(list(op.inputs), types, before, after)
    b.add(loop)
    return loop.results


def convert_if(op, b):
    """``stablehlo.if`` -> ``scf.if`` on the 0-d predicate."""
    pred = b.add(tensor.ExtractOp(op.pred, [], element_type(op.pred.type)))
    regions = [op.detach_region(r) for r in (op.true_branch, op.false_branch)]
    for region in regions:
        terminate(region, lambda s, values: scf.YieldOp(*values))
    branch = scf.IfOp(pred, [r.type for r in op.outputs], *regions)
    b.add(branch)
    return branch.results


def convert_case(op, b):
    """Nested scf.if: branch k when index == k, the last branch otherwise (out of range too)."""
    index = b.add(tensor.ExtractOp(op.index, [], element_type(op.index.type)))
    types = [r.type for r in op.outputs]
    regions = [op.detach_region(r) for r in list(op.branches)]
    for region in regions:
        terminate(region, lambda s, values: scf.YieldOp(*values))
    if len(regions) == 1:
        block = regions[0].block
        yielded = list(block.last_op.operands)
        for inner in list(block.ops)[:-1]:
            block.detach_op(inner)
            b.add(inner)
        return yielded
    hits = [b.add(arith.CmpIOp(index, constant(b, k, index.type), "eq")) for k in range(len(regions) - 1)]
    otherwise = regions[-1]
    for k in range(len(regions) - 2, 0, -1):
        nested = scf.IfOp(hits[k], types, regions[k], otherwise)
        nested.location = op.location
        otherwise = Region(Block([nested, scf.YieldOp(*nested.results)]))
    outer = scf.IfOp(hits[0], types, regions[0], otherwise)
    b.add(outer)
    return outer.results


def terminate(region, make):
    """Replace the ``stablehlo.return`` ending ``region`` by ``make(sink, values)``."""
    block = region.block
    ret = block.last_op
    if not isinstance(ret, hlo.ReturnOp):
        raise error_at_op(region.parent_op(), "a stablehlo region must end in stablehlo.return")
    sink = OpSink(ret.location)
    term = make(sink, list(ret.values))
    term.location = ret.location
    for new in sink.ops + [term]:
        block.insert_op_before(new, ret)
    block.erase_op(ret)
