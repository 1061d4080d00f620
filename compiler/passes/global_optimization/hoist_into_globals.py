"""``iree-util-hoist-into-globals``: pack constant weights once, at module initialization.

Input: host functions after ``iree-dispatch-creation-set-encoding``. An
``iree_encoding.set_encoding`` whose source is a constant expression -- built only from
``arith.constant`` (dense or splat), ``util.global.load`` of an immutable global, and pure
arith/math/tensor/linalg/iree_encoding ops over such values -- is hoisted: its whole
const-expr tree is cloned into a new ``util.initializer`` that stores the encoded tensor into
a new immutable global ``@__hoisted_tensor_<shape>x<type>``, and the function loads that
global instead. Dispatch creation then outlines the packing dispatch from the initializer, so
it runs once when the module is loaded and every call uses the packed weights.

Example::

    util.func public @f(%a: !hal.buffer_view) -> !hal.buffer_view {
      %w = arith.constant dense<...> : tensor<4x2xf32>
      %p = iree_encoding.set_encoding %w : tensor<4x2xf32> -> tensor<4x2xf32, #rhs>
      ... linalg.matmul ins(%l, %p : ...) ...
    }
    // ->
    util.global private @__hoisted_tensor_4x2xf32 : tensor<4x2xf32, #rhs>
    util.initializer {
      %w = arith.constant dense<...> : tensor<4x2xf32>
      %p = iree_encoding.set_encoding %w : tensor<4x2xf32> -> tensor<4x2xf32, #rhs>
      util.global.store %p, @__hoisted_tensor_4x2xf32 : tensor<4x2xf32, #rhs>
      util.return
    }
    util.func public @f(%a: !hal.buffer_view) -> !hal.buffer_view {
      %p = util.global.load immutable @__hoisted_tensor_4x2xf32 : tensor<4x2xf32, #rhs>
      ... linalg.matmul ins(%l, %p : ...) ...
    }

Only encoded values are hoisted (IREE also hoists other const-exprs, and const-evaluates them
at compile time; rt evaluates them on the device at load time). ``util.unfoldable_constant``
is never a constant expression. The initializers are appended at the end of the module (after
any initializer that sets a global they read) and inherit the ``stream.affinity`` of the
hoisted op or its function, so the weights are packed on the device that uses them.

Source followed: IREE ``Dialect/Util/Transforms/HoistIntoGlobals.cpp`` and
``Dialect/Util/Analysis/Constant/ConstExpr.cpp`` (const-expr roots and propagation).
"""
import dataclasses

from xdsl.dialects.builtin import StringAttr, SymbolRefAttr, TensorType, UnitAttr
from xdsl.ir import Block, OpResult, Region

from rt.compiler.dialects import util
from rt.compiler.dialects.iree_encoding import SetEncodingOp, tensor_encoding
from rt.compiler.passes.base import Pass

#: dialects whose ops are pure functions of their operands (and captured values).
_PURE_DIALECTS = frozenset({"arith", "math", "tensor", "linalg", "iree_encoding"})


def _captured(op):
    """Values used inside ``op``'s regions but defined outside ``op``."""
    inner = set()
    for nested in op.walk():
        inner.update(nested.results)
        for region in nested.regions:
            for block in region.blocks:
                inner.update(block.args)
    return [v for nested in op.walk() if nested is not op for v in nested.operands if v not in inner]


class ConstExprAnalysis:
    """Which SSA values of a module are constant expressions (memoized)."""

    def __init__(self, module):
        self.immutable = {op.sym_name.data for op in module.body.block.ops
                          if isinstance(op, util.GlobalOp) and op.is_mutable is None}
        self.memo = {}

    def is_const(self, value):
        """Whether ``value`` is a constant expression; an explicit stack, not recursion, so a
        chain of thousands of ops is fine (an op on the stack counts as not const)."""
        if not isinstance(value, OpResult):
            return False
        stack, pending, deps_of = [value.op], set(), {}
        while stack:
            op = stack[-1]
            if op in self.memo:
                stack.pop()
                continue
            leaf = self._leaf(op)
            if leaf is not None:
                self.memo[op] = leaf
                stack.pop()
                continue
            if op not in deps_of:
                deps_of[op] = _dependencies(op)
            deps = deps_of[op]
            if deps is None:
                self.memo[op] = False
                stack.pop()
                continue
            pending.add(op)
            todo = [d for d in deps if d not in self.memo and d not in pending]
            if todo:
                stack.extend(todo)
                continue
            self.memo[op] = all(self.memo.get(d, False) for d in deps)
            pending.discard(op)
            stack.pop()
        return self.memo[value.op]

    def _leaf(self, op):
        """True/False when ``op`` decides alone (a global load, an impure op), else None."""
        if isinstance(op, util.GlobalLoadOp):
            return op.global_name.root_reference.data in self.immutable
        if op.dialect_name() not in _PURE_DIALECTS:  # purity is a property of the whole dialect
            return False
        return None

    def tree(self, value):
        """The ops computing const-expr ``value``, each after the ops it uses (an explicit
        post-order walk, no recursion)."""
        order, seen = [], set()
        stack = [(value.op, False)]
        while stack:
            op, done = stack.pop()
            if done:
                order.append(op)
                continue
            if op in seen:
                continue
            seen.add(op)
            stack.append((op, True))
            deps = _dependencies(op) or []
            stack.extend((d, False) for d in reversed(deps) if d not in seen)
        return order


def _dependencies(op):
    """The ops defining ``op``'s operands and captured values, or None when one of them is a
    block argument (never a constant expression)."""
    deps = []
    for v in (*op.operands, *_captured(op)):
        if not isinstance(v, OpResult):
            return None
        deps.append(v.op)
    return deps


def _global_name(type_, taken):
    shape = "x".join("D" if d < 0 else str(d) for d in type_.get_shape())
    base = f"__hoisted_tensor_{shape}x{type_.element_type}" if shape else f"__hoisted_tensor_{type_.element_type}"
    name, n = base, 0
    while name in taken:
        n += 1
        name = f"{base}_{n}"
    taken.add(name)
    return name


def _affinity(op):
    while op is not None:
        attr = op.attributes.get("stream.affinity")
        if attr is not None:
            return attr
        op = op.parent_op()
    return None


def hoist(module, root, analysis, taken):
    """Move const-expr ``root`` (a set_encoding) into a global set by a new initializer."""
    value = root.result
    name = _global_name(value.type, taken)
    mapping = {}
    body = Block()
    for op in analysis.tree(value):
        clone = op.clone(value_mapper=mapping)
        body.add_op(clone)
        mapping.update(zip(op.results, clone.results))
    store = util.GlobalStoreOp.build(operands=[mapping[value]], properties={"global": SymbolRefAttr(name)})
    body.add_ops([store, util.ReturnOp.build(operands=[[]])])
    glob = util.GlobalOp.build(properties={"sym_name": StringAttr(name), "sym_visibility": StringAttr("private"),
                                           "type": value.type})
    affinity = _affinity(root)
    init = util.InitializerOp.build(regions=[Region(body)],
                                    attributes={"stream.affinity": affinity} if affinity is not None else {})
    for op in (glob, init, store, body.last_op):
        op.location = root.location
    module.body.block.add_ops([glob, init])
    load = util.GlobalLoadOp.build(result_types=[value.type],
                                   properties={"global": SymbolRefAttr(name), "is_immutable": UnitAttr()})
    load.location = root.location
    root.parent_block().insert_op_before(load, root)
    value.replace_all_uses_with(load.result)
    for op in reversed(analysis.tree(value)):
        if not any(r.uses for r in op.results):
            op.parent_block().erase_op(op)


def hoistable_roots(module, analysis):
    """The set_encoding ops of host functions whose sources are constant expressions."""
    roots = []
    for fn in module.body.block.ops:
        if not isinstance(fn, util.FuncOp):
            continue
        for op in fn.walk():
            if (isinstance(op, SetEncodingOp) and isinstance(op.result.type, TensorType)
                    and tensor_encoding(op.result.type) is not None and analysis.is_const(op.result)
                    and not _in_structured_body(op, fn)):
                roots.append(op)
    return roots


def _in_structured_body(op, fn):
    parent = op.parent_op()
    while parent is not None and parent is not fn:
        if parent.dialect_name() in ("linalg", "tensor", "flow"):  # any op of these holds payload IR
            return True
        parent = parent.parent_op()
    return False


@dataclasses.dataclass(frozen=True)
class HoistIntoGlobalsPass(Pass):
    """Hoist constant set_encoding trees into globals packed by initializers (see the module
    docstring)."""

    name = "iree-util-hoist-into-globals"

    def run(self, module, ctx):
        analysis = ConstExprAnalysis(module)
        roots = hoistable_roots(module, analysis)
        if not roots:
            return
        taken = {op.sym_name.data for op in module.walk()
                 if isinstance(getattr(op, "sym_name", None), StringAttr)}
        for root in roots:
            hoist(module, root, analysis, taken)
