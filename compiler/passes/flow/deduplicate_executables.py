"""``iree-flow-deduplicate-executables``: one executable per distinct body; dispatches share it.

Input: a module with ``flow.executable`` (also ``stream.executable`` / ``hal.executable``) ops,
several of which may be structurally identical (a layer repeated N times outlines N copies of
the same dispatch). Output: the first of each group of identical executables is kept, the others
are erased, and every symbol reference to them or to their public nested symbols (exports,
variants) outside the executables is redirected to the kept one.

Two executables are identical when their ops match one to one, in order: op names, operand
and result structure (values numbered by definition order), result and block-argument types,
region/block shape, properties and attributes; symbol names defined inside each executable
(the executable's own name, export and function names) are compared by their first position,
not by their text, and SSA name hints and locations are ignored. Each executable is reduced to
such a key in one walk (attributes as numbers from a per-run table of values), and groups are
found with a dict, so the pass is linear in the number of ops (IREE compares candidates
pairwise within hash buckets).

Example::

    flow.executable private @f_dispatch_0 { flow.executable.export public @f_dispatch_0_elementwise_4_f32 ...
      builtin.module { func.func @f_dispatch_0_elementwise_4_f32(...) { <body> } } }
    flow.executable private @f_dispatch_1 { flow.executable.export public @f_dispatch_1_elementwise_4_f32 ...
      builtin.module { func.func @f_dispatch_1_elementwise_4_f32(...) { <same body> } } }
    %0 = flow.dispatch @f_dispatch_0::@f_dispatch_0_elementwise_4_f32[%c4](%a) ...
    %1 = flow.dispatch @f_dispatch_1::@f_dispatch_1_elementwise_4_f32[%c4](%0) ...
    // ->
    flow.executable private @f_dispatch_0 { ... }
    %0 = flow.dispatch @f_dispatch_0::@f_dispatch_0_elementwise_4_f32[%c4](%a) ...
    %1 = flow.dispatch @f_dispatch_0::@f_dispatch_0_elementwise_4_f32[%c4](%0) ...

Source followed: IREE ``Dialect/Flow/Transforms/DeduplicateExecutables.cpp`` and
``Utils/EquivalenceUtils.cpp`` (structural equivalence).
"""
import dataclasses

from xdsl.dialects.builtin import ArrayAttr, StringAttr, SymbolRefAttr

from rt.compiler.dialects import flow, hal, stream
from rt.compiler.passes.base import Pass

#: top-level ops deduplicated (IREE's ObjectLike trait)
OBJECT_OPS = (flow.ExecutableOp, stream.ExecutableOp, hal.ExecutableOp)


def _symbol_name(op):
    name = op.properties.get("sym_name") or op.attributes.get("sym_name")
    return name.data if isinstance(name, StringAttr) else None


class _Interner:
    """Numbers attributes by value, hashing each attribute object once per run (xDSL's
    attributes hash their whole value, recursively, every time; outlined copies of a dispatch
    share most of their attribute objects), so keys are tuples of small ints."""

    def __init__(self):
        self._by_id, self._by_value = {}, {}

    def __call__(self, attr):
        entry = self._by_id.get(id(attr))
        if entry is None:
            try:
                number = self._by_value.setdefault(attr, len(self._by_value))
            except TypeError:  # an attribute without a value hash
                number = self._by_value.setdefault(("text", str(attr)), len(self._by_value))
            entry = self._by_id[id(attr)] = (attr, number)  # the attribute keeps its id unique
        return entry[1]


def _canonical(value, local, intern):
    """``value`` with symbol names defined inside the executable replaced by their positions,
    other attributes by their interned numbers."""
    if isinstance(value, StringAttr):
        return ("sym", local[value.data]) if value.data in local else intern(value)
    if isinstance(value, SymbolRefAttr):
        parts = [value.root_reference.data, *(r.data for r in value.nested_references.data)]
        return ("ref", *(("sym", local[p]) if p in local else p for p in parts))
    if isinstance(value, ArrayAttr):
        return ("array", *(_canonical(v, local, intern) for v in value.data))
    return intern(value)


def structural_key(executable, intern=None):
    """A hashable key equal for two executables exactly when they are structurally identical
    (compare keys made with the same ``intern``, an ``_Interner``)."""
    intern = intern or _Interner()
    ops = list(executable.walk())
    local = {}
    for op in ops:
        name = _symbol_name(op)
        if name is not None and name not in local:
            local[name] = len(local)
    values, blocks, key = {}, {}, []
    for op in ops:
        for region in op.regions:
            for block in region.blocks:
                blocks[block] = len(blocks)
                for arg in block.args:
                    values[arg] = len(values)
    for op in ops:
        operands = tuple(values.get(v, -1) for v in op.operands)
        for result in op.results:
            values[result] = len(values)
        entry = [op.name, operands, tuple(intern(r.type) for r in op.results),
                 tuple((k, _canonical(v, local, intern)) for k, v in sorted(op.properties.items())),
                 tuple((k, _canonical(v, local, intern)) for k, v in sorted(op.attributes.items())),
                 tuple(blocks[b] for b in op.successors)]
        for region in op.regions:
            entry.append(tuple((blocks[b], tuple(intern(a.type) for a in b.args), len(b.ops))
                               for b in region.blocks))
        key.append(tuple(entry))
    return tuple(key)


def _public_symbols(op):
    """The public symbol ops directly nested in ``op``'s regions, in order."""
    found = []
    for region in op.regions:
        for block in region.blocks:
            for child in block.ops:
                name = _symbol_name(child)
                vis = child.properties.get("sym_visibility") or child.attributes.get("sym_visibility")
                if name is not None and (vis is None or vis.data == "public"):
                    found.append(child)
    return found


def _gather(old_op, new_op, old_path, new_path, table):
    """Map every public nested symbol path of ``old_op`` to ``new_op``'s (paired by position)."""
    for old_child, new_child in zip(_public_symbols(old_op), _public_symbols(new_op)):
        old_child_path = old_path + (_symbol_name(old_child),)
        new_child_path = new_path + (_symbol_name(new_child),)
        table[old_child_path] = new_child_path
        _gather(old_child, new_child, old_child_path, new_child_path, table)


def _replace(value, table):
    if isinstance(value, SymbolRefAttr):
        path = (value.root_reference.data, *(r.data for r in value.nested_references.data))
        new = table.get(path)
        if new is None:
            return value
        return SymbolRefAttr(new[0], [StringAttr(p) for p in new[1:]])
    if isinstance(value, ArrayAttr):
        items = [_replace(v, table) for v in value.data]
        return value if all(a is b for a, b in zip(items, value.data)) else ArrayAttr(items)
    return value


def redirect_symbol_uses(ops, table):
    """Rewrite SymbolRefAttr properties/attributes (also inside ArrayAttrs) of ``ops`` and
    everything nested in them by ``table`` (symbol path tuple -> new path tuple)."""
    for top in ops:
        for op in top.walk():
            for store in (op.properties, op.attributes):
                for name, value in list(store.items()):
                    new = _replace(value, table)
                    if new is not value:
                        store[name] = new


@dataclasses.dataclass(frozen=True)
class DeduplicateExecutablesPass(Pass):
    """Erase executables identical to an earlier one and redirect their uses to it."""

    name = "iree-flow-deduplicate-executables"

    def run(self, module, ctx):
        block = module.body.block
        objects = [op for op in block.ops if isinstance(op, OBJECT_OPS)]
        if len(objects) < 2:
            return
        first, table, dead, intern = {}, {}, [], _Interner()
        for op in objects:
            kept = first.setdefault((type(op), structural_key(op, intern)), op)
            if kept is op:
                continue
            old_path, new_path = (_symbol_name(op),), (_symbol_name(kept),)
            table[old_path] = new_path
            _gather(op, kept, old_path, new_path, table)
            dead.append(op)
        if not dead:
            return
        redirect_symbol_uses([op for op in block.ops if not isinstance(op, OBJECT_OPS)], table)
        for op in dead:
            block.erase_op(op)
