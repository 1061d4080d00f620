"""Which timepoints are known reached when a timepoint is reached, and which are immediate.

``covers(t)`` is a set of timepoint values that have certainly been reached once ``t`` has:

* ``t`` itself;
* the awaited timepoints of the timeline op producing ``t`` (``stream.cmd.execute``,
  ``stream.async.execute``, ``stream.resource.alloca/dealloca``, ... ``await(%a, %b) => ...``),
  and transitively what those cover;
* every operand of ``stream.timepoint.join`` (and what they cover);
* for ``arith.select``, ``scf.if`` results and block arguments reached only through forward
  branches: what every incoming value covers (the intersection).

A timepoint is *immediate* when it is ``stream.timepoint.immediate``, a join/select/``scf.if``
/forward block argument of only immediate timepoints, or a load of a private timepoint global
whose initial value and every stored value are immediate. Function arguments, call results and
loop-carried values cover only themselves (the analysis is per function, like IREE's for
calls it cannot see through).

Source followed: IREE ``Dialect/Stream/Transforms/ElideTimepoints.cpp`` (IsImmediate,
TimepointCoverage).
"""
from xdsl.dialects import arith, cf, scf
from xdsl.dialects.builtin import SymbolRefAttr

from rt.compiler.dialects import arith as rt_arith, stream, util
from rt.compiler.dialects.stream_types import TimepointAttr, TimepointType
from rt.compiler.op_handlers import OpTable

_BRANCH_OPERANDS = OpTable({cf.BranchOp: ("arguments",), cf.ConditionalBranchOp: ("then_arguments", "else_arguments")})
# rt's arith.select does not subclass xDSL's: parsed selects are rt's, built ones xDSL's.
_SELECTS = (arith.SelectOp, rt_arith.SelectOp)


def is_timepoint(value):
    """True for SSA values of type ``!stream.timepoint``."""
    return isinstance(value.type, TimepointType)


def await_operands(op):
    """The awaited timepoints of a timeline op (its ``await_timepoint`` group), else None."""
    if not hasattr(type(op), "get_irdl_definition"):
        return None
    names = [name for name, _ in type(op).get_irdl_definition().operands]
    if "await_timepoint" not in names:
        return None
    value = op.await_timepoint
    return list(value) if not hasattr(value, "type") else [value]


class TimepointCoverage:
    """Coverage and immediacy of every timepoint value in the host functions of a module."""

    def __init__(self, module):
        self.covers_map = {}
        self.immediate = set()
        self.immediate_globals = _immediate_globals(module)

    def covers(self, value):
        """Timepoints known reached when ``value`` is (always contains ``value``)."""
        return self.covers_map.get(value, frozenset((value,)))

    def is_immediate(self, value):
        """True when ``value`` is known to be already reached."""
        return value in self.immediate

    def analyze(self, callable_op):
        """Analyze the body of a util.func / func.func / util.initializer."""
        for region in callable_op.regions:
            self._region(region)

    def _set(self, value, covered, immediate):
        self.covers_map[value] = frozenset(covered) | {value}
        if immediate:
            self.immediate.add(value)

    def _merge(self, value, incoming):
        """``value`` reached from one of ``incoming`` (None: from somewhere unknown)."""
        if not incoming or any(v is None for v in incoming):
            self._set(value, (), False)
            return
        common = frozenset.intersection(*[self.covers(v) for v in incoming])
        self._set(value, common, all(self.is_immediate(v) for v in incoming))

    def _region(self, region):
        blocks = list(region.blocks)
        order = {block: i for i, block in enumerate(blocks)}
        edges = {}
        for block in blocks:
            for target, values in _successor_operands(block.last_op):
                edges.setdefault(target, []).append((block, values))
        for n, block in enumerate(blocks):
            if n:
                preds = edges.get(block, [])
                forward = preds and all(order.get(src, n) < n and values is not None for src, values in preds)
                for i, arg in enumerate(block.args):
                    if is_timepoint(arg):
                        self._merge(arg, [values[i] for _, values in preds] if forward else None)
            for op in block.ops:
                self._op(op)

    def _op(self, op):
        for region in op.regions:
            self._region(region)
        results = [r for r in op.results if is_timepoint(r)]
        if not results:
            return
        if isinstance(op, stream.TimepointImmediateOp):
            self._set(results[0], (), True)
        elif isinstance(op, stream.TimepointJoinOp):
            operands = list(op.operands)
            covered = frozenset().union(*[self.covers(v) for v in operands])
            self._set(results[0], covered, all(self.is_immediate(v) for v in operands))
        elif isinstance(op, _SELECTS):
            self._merge(results[0], list(op.operands[1:]))
        elif isinstance(op, util.GlobalLoadOp):
            self._set(results[0], (), op.global_name.root_reference.data in self.immediate_globals)
        elif isinstance(op, scf.IfOp):
            for result in results:
                yields = [region.blocks[0].last_op for region in op.regions if region.blocks]
                incoming = [y.operands[result.index] if y is not None and len(y.operands) > result.index else None
                            for y in yields]
                self._merge(result, incoming if len(incoming) == 2 else None)
        else:
            awaits = await_operands(op) or []
            covered = frozenset().union(*[self.covers(v) for v in awaits]) if awaits else ()
            for result in results:
                self._set(result, covered, False)


def _successor_operands(terminator):
    """``[(target block, [values] or None)]`` for a block terminator's successors."""
    if terminator is None or not terminator.successors:
        return []
    fields = _BRANCH_OPERANDS.get(terminator)
    if fields is None:
        return [(succ, None) for succ in terminator.successors]
    return [(succ, list(getattr(terminator, name))) for succ, name in zip(terminator.successors, fields)]


def _immediate_globals(module):
    """Names of private timepoint globals that only ever hold immediate timepoints."""
    candidates = {}
    for op in module.body.block.ops:
        if not isinstance(op, util.GlobalOp) or not isinstance(op.type, TimepointType):
            continue
        visibility = op.sym_visibility.data if op.sym_visibility is not None else "public"
        initial = op.initial_value
        if visibility == "private" and (initial is None or isinstance(initial, TimepointAttr)):
            candidates[op.sym_name.data] = initial is not None
    for op in module.walk():
        if isinstance(op, util.GlobalOp):
            continue
        for attr in op.properties.values():
            if not isinstance(attr, SymbolRefAttr) or attr.root_reference.data not in candidates:
                continue
            name = attr.root_reference.data
            if isinstance(op, util.GlobalStoreOp) and isinstance(op.value.owner, stream.TimepointImmediateOp):
                candidates[name] = True
            elif not isinstance(op, util.GlobalLoadOp):
                candidates.pop(name, None)
    return {name for name, defined in candidates.items() if defined}
