"""A tiny insertion helper for the hal conversion: build ops before an anchor op.

``b = Inserter(anchor)``; ``b.const_index(4)``, ``b.add(op)`` (returns the op), ``b.global_load``
... keep lowering code short. Every op built takes the anchor's location, so later errors and
VM traps point at the stream op that produced it.
"""
from xdsl.dialects import arith
from xdsl.dialects.builtin import BoolAttr, IndexType, IntegerAttr, IntegerType, StringAttr, SymbolRefAttr, i32, i64

from rt.compiler.dialects.hal_ops import FenceCreateOp, FenceJoinOp, FenceSignalOp
from rt.compiler.dialects.hal_types import FenceType
from rt.compiler.dialects.util import GlobalLoadOp, NullOp

INDEX = IndexType()


class Inserter:
    """Inserts new ops before ``anchor`` (in its block) with the anchor's location."""

    def __init__(self, anchor):
        self.anchor = anchor
        self.block = anchor.parent_block()

    def add(self, op):
        op.location = self.anchor.location
        self.block.insert_op_before(op, self.anchor)
        return op

    def value(self, op):
        return self.add(op).results[0]

    def const(self, value, type_):
        if isinstance(type_, IntegerType) and type_.width.data == 1:
            return self.value(arith.ConstantOp(BoolAttr.from_bool(bool(value))))
        return self.value(arith.ConstantOp(IntegerAttr(value, type_)))

    def const_index(self, value):
        return self.const(value, INDEX)

    def const_i32(self, value):
        return self.const(value, i32)

    def const_i64(self, value):
        return self.const(value, i64)

    def named(self, cls, operands, result_types=(), properties=None):
        """Build ``cls`` from ``{operand field: value}`` in the op's definition order; returns the op."""
        ordered = [operands[name] for name, _ in cls.get_irdl_definition().operands]
        return self.add(cls.build(operands=ordered, result_types=list(result_types), properties=properties or {}))

    def global_load(self, name, type_):
        return self.value(GlobalLoadOp.build(result_types=[type_], properties={"global": SymbolRefAttr(name)}))

    def fence(self, device):
        return self.value(FenceCreateOp.build(operands=[device], result_types=[FenceType()]))

    def immediate_fence(self, device):
        """A fence that is already signaled (IREE passes a null fence; rt signals a fresh one)."""
        fence = self.fence(device)
        self.add(FenceSignalOp.build(operands=[fence]))
        return fence

    def wait_fence(self, device, timepoints):
        """The fence a queue operation waits on for ``timepoints`` (already converted to fences).

        None -> a null fence (``util.null``: the operation waits for nothing, as in IREE's
        StreamToHAL); one -> itself; several -> ``hal.fence.join`` of all of them (IREE joins
        an await list the same way).
        """
        timepoints = list(timepoints)
        if not timepoints:
            return self.value(NullOp.build(result_types=[FenceType()]))
        if len(timepoints) == 1:
            return timepoints[0]
        return self.value(FenceJoinOp.build(operands=[timepoints], result_types=[FenceType()],
                                            properties={"flags": StringAttr("None")}))
