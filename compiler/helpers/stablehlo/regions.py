"""StableHLO region bodies made self-contained before conversion (not a pass).

StableHLO regions are not isolated from above: JAX's ``jnp.sort`` comparator uses the NaN and
zero constants of its enclosing function, and a reduction body may too. The input conversion
turns a ``sort``/``reduce``/``reduce_window``/``scatter`` body into scalar code inside another
op, where only the body's own values exist; :func:`localize_captured_values` clones each outer
``stablehlo.constant`` a body uses into that body. A captured value that is not a constant is a
located CompileError (rt converts these bodies as pure functions of their arguments).

Source followed: the StableHLO spec (regions may capture values defined above them).
"""
from rt.compiler.dialects import stablehlo as hlo
from rt.compiler.frontend import error_at_op

#: ops whose body the input conversion emits as scalar code elsewhere
_SCALAR_BODY_OPS = (hlo.SortOp, hlo.ReduceOp, hlo.ReduceWindowOp, hlo.ScatterOp)


def localize_captured_values(module):
    """Clone into each scalar-converted body the outer constants it uses (see the module doc)."""
    for op in [op for op in module.walk() if isinstance(op, _SCALAR_BODY_OPS)]:
        for region in op.regions:
            _localize(op, region)


def _localize(op, region):
    inside = {id(o) for o in region.walk()} | {id(b) for o in region.walk() for r in o.regions for b in r.blocks}
    inside |= {id(b) for b in region.blocks}
    block = region.blocks[0]
    clones = {}
    for inner in list(region.walk()):
        for i, value in enumerate(inner.operands):
            owner = value.owner
            if id(owner) in inside:  # an op of the body, or a block argument of it
                continue
            if not isinstance(owner, hlo.ConstantOp):
                raise error_at_op(inner, f"'{inner.name}' in the body of '{op.name}' uses a value defined outside "
                                         "the body; rt converts these bodies from their own arguments and constants")
            if owner not in clones:
                clone = owner.clone()
                block.insert_op_before(clone, block.first_op)
                clones[owner] = clone
            inner.operands[i] = clones[owner].results[0]
