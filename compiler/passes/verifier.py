"""The verifier the pass manager runs after every pass, with the IRDL checks memoized.

xDSL verifies an IRDL op in three parts: the op definition's constraints (operand/result/
property/attribute constraints, variadic segment sizes, region shapes), its traits, and the
op's own ``verify_``. The first part is a pure function of the op's class, operand and result
types, properties, attributes, region shapes (block counts, entry block argument types) and
successor count, and it is most of the cost (~30 µs an op in xDSL 0.74). ``Verifier`` checks it
once per distinct such key and remembers the keys that passed, first comparing attributes by
identity (attributes are immutable and the table keeps them alive, so an id is never reused while
remembered), then, for a new combination of objects, by value (passes rebuild equal types, and
hashing them is still cheaper than checking them). Traits and custom verifiers
(which may look at parents, uses or nested ops) run on every op, every time, except the
custom verifiers listed in ``SIGNATURE_VERIFIERS``, which read only what the key holds (operand,
result and entry block argument types, properties, attributes) and are memoized with it. The structural
checks ``Operation.verify`` makes (erased operands, successors, terminators) run every time too.
Checks MLIR makes that xDSL's upstream ops lack (``UPSTREAM_GAPS``: tensor.empty's count of
dynamic sizes) run with the traits; SSA dominance within blocks is checked once per module. Any failure is a CompileError at the op: ``'<op name>' op
<reason>``, as mlir-opt prints.

Source followed: MLIR ``OperationVerifier`` (Verifier.cpp); xDSL ``Operation.verify`` and
``OpDef.verify`` (xdsl 0.74.0, whose generated ``verify_`` closure holds ``op_def`` and the
op's ``custom_verify``).
"""
import dataclasses

from xdsl.dialects import tensor as xtensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, StringAttr
from xdsl.dialects.linalg.abstract_ops import LinalgStructuredOperation
from xdsl.dialects.linalg.ops import FillOp
from xdsl.irdl import traits_def
from xdsl.ir import ErasedSSAValue
from xdsl.traits import IsolatedFromAbove, IsTerminator, NoTerminator, OpTrait, SymbolTable
from xdsl.utils.exceptions import VerifyException

from rt.compiler.dialects.linalg_named import NamedStructuredOp
from rt.compiler.frontend.diagnostics import error_at_op, op_location
from rt.runtime.errors import CompileError

#: the "no custom verifier" marker in the per-class table
_NONE = object()

#: custom ``verify_`` functions that are pure functions of the memo key (xDSL 0.74's linalg
#: structured-op verifier: operand kinds, indexing maps vs operand ranks, body argument types
#: vs element types, loop bounds vs static shapes; linalg.fill's scalar input check; rt's
#: named-op verifier: operand counts, strides/dilations/indexing_maps properties, element
#: types, then xDSL's structured-op verifier)
SIGNATURE_VERIFIERS = frozenset({LinalgStructuredOperation.verify_, FillOp.verify_,
                                 NamedStructuredOp.verify_})


def _verify_empty_sizes(op):
    """tensor.empty: one size operand per dynamic dimension of the result (MLIR's EmptyOp::verify)."""
    expected = sum(1 for d in op.tensor.type.get_shape() if d == DYNAMIC_INDEX)
    if len(op.dynamic_sizes) != expected:
        raise VerifyException(f"incorrect number of dynamic sizes, has {len(op.dynamic_sizes)}, expected {expected} "
                              f"(one index operand per '?' of {op.tensor.type}: tensor.empty(%d) : tensor<?xf32>)")


#: checks MLIR's verifiers make that xDSL 0.74.0's upstream ops lack, run like trait checks
UPSTREAM_GAPS = {xtensor.EmptyOp: _verify_empty_sizes}


def _split(cls):
    """``(definition without traits, traits, custom verify_ or None)`` of an IRDL op class, or
    None for a class whose ``verify_`` is not xDSL's generated one (verified as a whole)."""
    function = getattr(cls, "verify_", None)
    code = getattr(function, "__code__", None)
    if code is None or "op_def" not in code.co_freevars:
        return None
    cells = dict(zip(code.co_freevars, (c.cell_contents for c in function.__closure__)))
    op_def = cells["op_def"]
    checks = []
    for trait in op_def.traits:
        if isinstance(trait, IsolatedFromAbove):
            checks.append(_verify_isolated)
        elif isinstance(trait, SymbolTable):
            checks.append(_verify_symbol_table)
        elif type(trait).verify is not OpTrait.verify:  # traits that only mark (Pure, ...) check nothing
            checks.append(trait.verify)
    checks.extend(check for base, check in UPSTREAM_GAPS.items() if issubclass(cls, base))
    return dataclasses.replace(op_def, traits=traits_def()), tuple(checks), cells.get("custom_verify")


class Verifier:
    """Verifies modules op by op; remembers which definition checks passed (see the module docstring)."""

    def __init__(self):
        self._classes = {}
        self._passed = {}
        self._passed_values = set()

    def verify_module(self, module):
        """Verify every op of ``module``; CompileError at the first op that fails."""
        _verify_defined_before_use(module)
        for op in module.walk():
            try:
                self.verify_op(op)
            except CompileError:
                raise
            except Exception as exc:
                reason = str(exc).strip() or type(exc).__name__
                raise error_at_op(op, f"'{op.name}' op {reason}") from None

    def verify_op(self, op):
        """Verify one op (not its nested ops); raises what xDSL's verifiers raise."""
        _verify_structure(op)
        cls = type(op)
        parts = self._classes.get(cls, _NONE)
        if parts is _NONE:
            parts = self._classes[cls] = _split(cls)
        if parts is None:
            op.verify_()
            return
        definition, traits, custom = parts
        # xDSL's plain fields (_operands, _type, _successors): the public accessors build views
        operand_types = [v._type for v in op._operands]
        result_types = [r._type for r in op.results]
        properties, attributes = op.properties, op.attributes
        key = (cls, *map(id, operand_types), None, *map(id, result_types), None,
               *[(k, id(v)) for k, v in properties.items()], None, *[(k, id(v)) for k, v in attributes.items()],
               len(op._successors))
        entries = ()
        if op.regions:
            entries = [r.first_block.arg_types if r.first_block else () for r in op.regions]
            key += tuple((len(r.blocks), *map(id, e)) for r, e in zip(op.regions, entries))
        fresh, missed = False, key not in self._passed
        if missed:
            # an equal signature built of other attribute objects (passes rebuild types) passed too
            try:
                value_key = (cls, tuple(operand_types), tuple(result_types), tuple(properties.items()),
                             tuple(attributes.items()), len(op._successors),
                             tuple(len(r.blocks) for r in op.regions), *map(tuple, entries))
                fresh = value_key not in self._passed_values
            except TypeError:  # an attribute without a value hash
                value_key, fresh = None, True
            if fresh:
                definition.verify(op)
        for check in traits:
            check(op)
        if custom is not None and (fresh or custom not in SIGNATURE_VERIFIERS):
            custom(op)
        if missed:
            if fresh and value_key is not None:
                self._passed_values.add(value_key)
            # the values keep the attributes alive, so their ids in the key cannot be reused
            self._passed[key] = (operand_types, result_types, tuple(properties.values()),
                                 tuple(attributes.values()), entries)


def _verify_isolated(op):
    """IsolatedFromAbove: ops nested in ``op`` (down to nested isolated ops, which check
    themselves) use only values defined inside ``op``; the same check as xDSL's trait, with a
    set of the values defined inside instead of an ancestor walk per operand. A violation is a
    CompileError at the op using the value (MLIR's "using value defined outside the region")."""
    nested, defined, stack = [], set(), [op]
    while stack:
        current = stack.pop()
        for region in current.regions:
            for block in region.blocks:
                defined.update(block.args)
                for child in block.ops:
                    nested.append(child)
                    defined.update(child.results)
                    if child.regions and not child.has_trait(IsolatedFromAbove):
                        stack.append(child)
    for child in nested:
        for operand in child._operands:
            if operand not in defined:
                name = f" %{operand.name_hint}" if operand.name_hint else ""
                where = op_location(op)
                at = f" at {where[0]}:{where[1]}:{where[2]}" if where else ""
                raise error_at_op(child, f"'{child.name}' op using value{name} defined outside the region of its "
                                         f"isolated parent '{op.name}'{at}; define it inside or pass it in")


def _verify_symbol_table(op):
    """SymbolTable: one single-block region whose symbols have distinct names; a duplicate is a
    CompileError at the second definition naming where the first is (MLIR's
    ``verifySymbolTable``; xDSL's trait reports it at the table, which has no location)."""
    if len(op.regions) != 1 or len(op.regions[0].blocks) != 1:
        raise VerifyException("Operations with a 'SymbolTable' must have exactly one region with one block")
    seen = {}
    for child in op.regions[0].blocks[0].ops:
        name = child.get_attr_or_prop("sym_name")
        if not isinstance(name, StringAttr):
            continue
        first = seen.setdefault(name.data, child)
        if first is not child:
            where = op_location(first)
            at = f" at {where[0]}:{where[1]}:{where[2]}" if where else ""
            raise error_at_op(child, f"'{child.name}' op redefinition of symbol named '{name.data}' (first defined"
                                     f"{at} by '{first.name}'); give each symbol of a module its own name")


def _verify_defined_before_use(module):
    """SSA dominance within a block: an operand defined by an op of the user's block (or of a
    block enclosing it) must be defined by an earlier op there; xDSL's verifier does not check
    this, and a value used before (or inside) its own definition sends passes that follow
    use-def chains round a cycle forever. Uses across the blocks of a multi-block region are
    left to the region's own rules. CompileError at the use, naming the definition's location
    (MLIR's "operand #0 does not dominate this use")."""
    positions = {}
    for op in module.walk():
        block = op.parent
        if block is None or block.parent is None or block.parent.parent is module:
            continue  # module level is a graph region (and holds isolated symbols only)
        for index, operand in enumerate(op._operands):
            definer = getattr(operand, "op", None)
            if definer is None or definer.parent is None:
                continue
            user = op
            while user is not None and user.parent is not definer.parent:
                user = user.parent_op()
            if user is None:
                continue
            order = positions.get(id(definer.parent))
            if order is None:
                order = positions[id(definer.parent)] = {id(o): i for i, o in enumerate(definer.parent.ops)}
            if order[id(definer)] >= order[id(user)]:
                name = f" %{operand.name_hint}" if operand.name_hint else ""
                where = op_location(definer)
                at = f" (defined at {where[0]}:{where[1]}:{where[2]})" if where else ""
                raise error_at_op(op, f"'{op.name}' op operand #{index}{name}{at} does not dominate this use: "
                                      f"define a value before using it")


def _verify_structure(op):
    """The checks of xDSL ``Operation.verify`` besides the op's own verifier."""
    for operand in op._operands:
        if isinstance(operand, ErasedSSAValue):
            raise ValueError("Erased SSA value is used by the operation")
    block = op.parent
    if block is None or op._next_op is not None and not op._successors:
        return  # only a block's last op and branches have more to check
    region = block.parent
    if op._successors:
        if block is None or region is None:
            raise ValueError(f"Operation {op.name} with block successors does not belong to a block or a region")
        if block.last_op is not op:
            raise ValueError(f"Operation {op.name} with block successors must terminate its parent block")
        for successor in op._successors:
            if successor.parent != region:
                raise ValueError(f"Operation {op.name} is branching to a block of a different region")
    if block is not None and region is not None and block.last_op is op:
        blocks = len(region.blocks)
        if blocks == 1:
            parent = region.parent
            if parent is not None and not parent.has_trait(NoTerminator) and not op.has_trait(IsTerminator):
                raise ValueError(f"Operation {op.name} terminates block in single-block region but is not a terminator")
        elif blocks > 1 and not op.has_trait(IsTerminator):
            raise ValueError(f"Operation {op.name} terminates block in multi-block region but is not a terminator")
