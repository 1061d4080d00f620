"""``cse``: common subexpression elimination of side-effect-free ops.

Input: any verified module. Output: equal pure ops with equal operands and attributes merged
(the first one dominates and is kept); ops that only read memory are merged within one block
when no op between the two may write; trivially dead ops are erased. Constant handles compare
by value (see rt.compiler.frontend.elements), so two equal large constants are merged too.

Example::

    %0 = arith.addf %a, %b : tensor<4xf32>
    %1 = arith.addf %a, %b : tensor<4xf32>   // -> uses of %1 now use %0
    %2 = arith.mulf %0, %1 : tensor<4xf32>   // -> arith.mulf %0, %0

How: one walk in program order with a scoped table of the ops seen (MLIR's ``ScopedHashTable``:
a nested single-block region sees the ops of its ancestors' regions, an ``IsolatedFromAbove``
op starts an empty table, and what a region adds is removed when the walk leaves it). An op's
key hashes its name, operand identities, result types, attributes and properties; each
attribute object's hash is computed once per run (xDSL's attributes hash their whole value,
recursively, each time), and keys are compared by value only when hashes match, with regions
compared structurally. Linear in the number of ops, like MLIR's; xDSL's own CSE copies the
whole table into every nested region, quadratic in the number of regions.

Source followed: MLIR ``-cse`` (``mlir/lib/Transforms/CSE.cpp``: ``SimpleOperationInfo``,
``ScopedHashTable``, read-only ops merged when no write lies between them) and the same rules
as xDSL 0.74's ``CommonSubexpressionElimination`` (terminators and multi-block regions are left
alone; uses are replaced only where the user is not in the table).
"""
import dataclasses

from xdsl.dialects.builtin import UnregisteredOp
from xdsl.rewriter import Rewriter
from xdsl.traits import IsolatedFromAbove, IsTerminator, MemoryEffectKind, get_effects
from xdsl.transforms.common_subexpression_elimination import has_other_side_effecting_op_in_between
from xdsl.transforms.dead_code_elimination import is_trivially_dead

from rt.compiler.passes.base import Pass


@dataclasses.dataclass(frozen=True)
class CSEPass(Pass):
    """Merges equal side-effect-free ops (see the module docstring)."""

    name = "cse"

    def run(self, module, ctx):
        _CSE().simplify(module)


class _Key:
    """An op as a table key: its precomputed hash, compared by value on a hash match."""

    __slots__ = ("op", "name", "hash")

    def __init__(self, op, name, hash_):
        self.op, self.name, self.hash = op, name, hash_

    def __hash__(self):
        return self.hash

    def __eq__(self, other):
        a, b = self.op, other.op
        return (self.name == other.name and a._operands == b._operands
                and _same_types(a.result_types, b.result_types)
                and _same_dict(a.attributes, b.attributes) and _same_dict(a.properties, b.properties)
                and len(a.regions) == len(b.regions)
                and all(r.is_structurally_equivalent(s) for r, s in zip(a.regions, b.regions)))


def _same_types(xs, ys):
    return len(xs) == len(ys) and all(x is y or x == y for x, y in zip(xs, ys))


def _same_dict(x, y):
    if len(x) != len(y):
        return False
    for k, v in x.items():
        w = y.get(k)
        if w is None or not (v is w or v == w):
            return False
    return True


class _CSE:
    """The state of one run: the scoped table, the attribute-hash cache, the ops to erase."""

    def __init__(self):
        self._table = {}  # _Key -> op
        self._members = set()  # the ops in the table (users whose operands must not change)
        self._scopes = []  # per open region: the (key, op it shadowed or None) it added
        self._hashes = {}  # id(attribute) -> (attribute, hash); the attribute keeps its id unique
        self._erase = []

    def simplify(self, module):
        for region in module.regions:
            self._region(region)
        for op in reversed(self._erase):
            if op.parent is not None:
                Rewriter.erase_op(op)

    def _region(self, region):
        if len(region.blocks) != 1:
            return
        added = []
        self._scopes.append(added)
        try:
            self._block(region.blocks.first)
        finally:
            self._scopes.pop()
            for key, previous in reversed(added):
                self._members.discard(self._table[key])
                if previous is None:
                    del self._table[key]
                else:
                    self._table[key] = previous
                    self._members.add(previous)

    def _block(self, block):
        for op in block.ops:
            if op.regions:
                if op.has_trait(IsolatedFromAbove, value_if_unregistered=True):
                    saved = self._table, self._members
                    self._table, self._members = {}, set()
                    try:
                        for region in op.regions:
                            self._region(region)
                    finally:
                        self._table, self._members = saved
                else:
                    for region in op.regions:
                        self._region(region)
            self._operation(op)

    def _operation(self, op):
        if op.has_trait(IsTerminator):
            return
        if is_trivially_dead(op):
            self._erase.append(op)
            return
        if any(len(region.blocks) > 1 for region in op.regions):
            return
        effects = get_effects(op)
        if effects is None:
            return
        read_only = len(effects) > 0
        if read_only and not all(e.kind == MemoryEffectKind.READ for e in effects):
            return
        key = self._key(op)
        existing = self._table.get(key)
        if existing is not None:
            if not read_only or (op.parent is existing.parent
                                 and not has_other_side_effecting_op_in_between(existing, op)):
                self._replace(op, existing)
                return
        # a read-only op that could not be merged shadows the earlier one for the ops after it
        self._table[key] = op
        self._members.discard(existing)
        self._members.add(op)
        self._scopes[-1].append((key, existing))

    def _key(self, op):
        name = op.op_name.data if isinstance(op, UnregisteredOp) else op.name
        h = self._hash
        return _Key(op, name, hash((
            name,
            sum(hash((k, h(v))) for k, v in op.attributes.items()),
            sum(hash((k, h(v))) for k, v in op.properties.items()),
            tuple(h(t) for t in op.result_types),
            tuple(map(id, op._operands)),
        )))

    def _hash(self, attr):
        entry = self._hashes.get(id(attr))
        if entry is None:
            try:
                value = hash(attr)
            except TypeError:  # an attribute without a value hash: equality alone decides
                value = hash(type(attr))
            entry = self._hashes[id(attr)] = (attr, value)
        return entry[1]

    def _replace(self, op, existing):
        """Uses of ``op`` now use ``existing`` (where the user is not in the table, whose keys
        hash its operands); ``op`` is erased when no use is left."""
        for old, new in zip(op.results, existing.results, strict=True):
            if all(use.operation not in self._members for use in old.uses):
                old.replace_all_uses_with(new)
        if all(r.first_use is None for r in op.results):
            self._erase.append(op)
