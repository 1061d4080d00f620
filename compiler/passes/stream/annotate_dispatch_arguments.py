"""``iree-stream-annotate-dispatch-arguments``: potential values and alignments on dispatch args.

Input: ``stream.cmd.dispatch`` ops and the ``stream.executable`` functions they call. Output:
argument attributes derived from every dispatch site of an export (the functions are not
otherwise changed):

* ``stream.values = [v0, v1, ...]`` on an integer/index argument when, at every site, the
  operand's possible values are known (constants, ``arith.select`` of known values, casts of
  them, loads of immutable globals with an integer initial value); sorted, deduplicated;
* ``stream.alignment = N : index`` on an integer/index argument when every site's operand is
  provably a multiple of the power of two N > 1 (from its potential values, or from the
  ``arith.muli``/``addi``/``andi`` with a constant mask, the shape layout-slices emits);
* ``stream.alignment = N : index`` on every ``!stream.binding`` argument: the largest power of
  two dividing the binding's offset at every site, capped by the resource base alignment
  ``min-buffer-offset-alignment`` (64 bytes in rt's allocators), which is also the value for
  offset 0.

Example (seeds 000/003)::

    func.func @fn(%arg0: !stream.binding, %arg1: !stream.binding)
    // ->
    func.func @fn(%arg0: !stream.binding {stream.alignment = 64 : index},
                  %arg1: !stream.binding {stream.alignment = 64 : index})

Source followed: IREE ``Dialect/Stream/Transforms/AnnotateDispatchArguments.cpp`` (ValuePVS,
ValueAlignment, annotateExport). IREE's analysis also crosses calls and mutable globals; this
one looks through the defining ops of each operand in its own function only.
"""
import dataclasses

from xdsl.dialects import arith
from xdsl.dialects.builtin import ArrayAttr, IndexType, IntegerAttr, IntegerType

from rt.compiler.dialects import arith as rt_arith, util
from rt.compiler.passes.base import Pass
from rt.compiler.helpers.stream import dispatch_sites

#: alignment of a value known to be 0 (a multiple of every power of two)
UNBOUNDED = 1 << 32
# rt's arith redefines these ops without subclassing xDSL's: parsed ops are rt's, built ones xDSL's.
_TRUNCS = (arith.TruncIOp, rt_arith.TruncIOp)
_CASTS = (arith.IndexCastOp, rt_arith.IndexCastOp, rt_arith.IndexCastUIOp, arith.ExtUIOp, rt_arith.ExtUIOp,
          *_TRUNCS)
_SELECTS = (arith.SelectOp, rt_arith.SelectOp)
#: ops whose result is as aligned as their least aligned (value) operand
_ALIGNMENT_MIN = (arith.AddiOp, arith.SubiOp, *_SELECTS)


def _power_of_two_divisor(value):
    """Largest power of two dividing ``value`` (UNBOUNDED for 0)."""
    if value == 0:
        return UNBOUNDED
    return min(value & -value, UNBOUNDED)


class ValueFacts:
    """Potential values and alignments of integer/index SSA values of one module."""

    def __init__(self, module):
        self.globals = {op.sym_name.data: op for op in module.body.block.ops if isinstance(op, util.GlobalOp)}

    def potential_values(self, value, depth=0):
        """Set of ints ``value`` may take, or None when unknown."""
        op = value.owner
        if depth > 16 or not hasattr(op, "name"):
            return None
        if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
            return {op.value.value.data}
        if isinstance(op, _SELECTS):
            lhs = self.potential_values(op.operands[1], depth + 1)
            rhs = self.potential_values(op.operands[2], depth + 1)
            return None if lhs is None or rhs is None else lhs | rhs
        if isinstance(op, _CASTS):
            return self._cast_values(op, self.potential_values(op.operands[0], depth + 1))
        if isinstance(op, util.GlobalLoadOp):
            glob = self.globals.get(op.global_name.root_reference.data)
            if glob is not None and glob.is_mutable is None and isinstance(glob.initial_value, IntegerAttr):
                return {glob.initial_value.value.data}
        return None

    @staticmethod
    def _cast_values(op, values):
        if values is None:
            return None
        target = op.results[0].type
        if isinstance(target, IntegerType) and isinstance(op, _TRUNCS):
            mask = (1 << target.width.data) - 1
            return {v & mask for v in values}
        return values

    def alignment(self, value, depth=0):
        """Largest power of two known to divide ``value`` (1 when nothing is known)."""
        values = self.potential_values(value)
        if values is not None:
            return min(_power_of_two_divisor(v) for v in values)
        op = value.owner
        if depth > 16 or not hasattr(op, "name"):
            return 1
        operands = op.operands
        if isinstance(op, arith.MuliOp):
            return min(self.alignment(operands[0], depth + 1) * self.alignment(operands[1], depth + 1), UNBOUNDED)
        if isinstance(op, _ALIGNMENT_MIN):
            tail = operands[1:] if isinstance(op, _SELECTS) else operands
            return min(self.alignment(v, depth + 1) for v in tail)
        if isinstance(op, arith.AndIOp):
            masks = [self.potential_values(v) for v in operands]
            best = max(self.alignment(v, depth + 1) for v in operands)
            for mask in masks:
                if mask is not None and len(mask) == 1 and next(iter(mask)) < 0:
                    best = max(best, _power_of_two_divisor(next(iter(mask))))
            return best
        if isinstance(op, _CASTS):
            return self.alignment(operands[0], depth + 1)
        return 1


@dataclasses.dataclass(frozen=True)
class AnnotateDispatchArgumentsPass(Pass):
    """Annotate dispatch function arguments with stream.values / stream.alignment."""

    name = "iree-stream-annotate-dispatch-arguments"
    min_buffer_offset_alignment: int = 64

    def run(self, module, ctx):
        facts = ValueFacts(module)
        for entry in dispatch_sites.collect(module, self.name):
            if entry.sites:
                self._annotate(entry, facts)

    def _annotate(self, entry, facts):
        func = entry.func
        for idx, arg in enumerate(entry.operand_args()):
            if not isinstance(arg.type, (IntegerType, IndexType)):
                continue
            operands = [site.uniform_operands[idx] for site in entry.sites]
            sets = [facts.potential_values(v) for v in operands]
            if all(s is not None for s in sets):
                values = sorted(set().union(*sets))
                dispatch_sites.set_arg_attr(func, arg.index, "stream.values",
                                            ArrayAttr([IntegerAttr(v, arg.type) for v in values]))
            alignment = min(facts.alignment(v) for v in operands)
            if 1 < alignment < UNBOUNDED:
                dispatch_sites.set_arg_attr(func, arg.index, "stream.alignment", IntegerAttr(alignment, IndexType()))
        for idx, arg in enumerate(entry.binding_args()):
            alignment = min(facts.alignment(site.resource_offsets[idx]) for site in entry.sites)
            alignment = min(alignment, self.min_buffer_offset_alignment)
            dispatch_sites.set_arg_attr(func, arg.index, "stream.alignment", IntegerAttr(alignment, IndexType()))
