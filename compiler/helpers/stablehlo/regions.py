"""StableHLO region bodies: made self-contained before conversion, and emitted as scalar code (not a pass).

StableHLO regions are not isolated from above: JAX's ``jnp.sort`` comparator uses the NaN and
zero constants of its enclosing function, and a reduction body may too. The input conversion
turns a ``sort``/``reduce``/``reduce_window``/``scatter`` body into scalar code inside another
op, where only the body's own values exist; :func:`localize_captured_values` clones each outer
``stablehlo.constant`` a body uses into that body. A captured value that is not a constant is a
located CompileError (rt converts these bodies as pure functions of their arguments).

:func:`region_function` turns such a body (or a reducer function's, for JAX's
``@stablehlo.dynamic_reduce_window``) into a Python function emitting its ops on scalars inside
the ``linalg.generic`` or linalg_ext op that replaces the owner.

Source followed: the StableHLO spec (regions may capture values defined above them).
"""
from xdsl.dialects import func

from rt.compiler.dialects import stablehlo as hlo
from rt.compiler.frontend import error_at_op
from rt.compiler.helpers.stablehlo.elementwise import constant, element_type, emit_elementwise, is_elementwise

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


def region_function(op, block=None):
    """``fn(sink, scalars)``: the values ``op``'s region (or ``block``, a reducer function's body
    ending in ``func.return``) returns for block arguments ``scalars``, its 0-d tensor ops
    emitted as scalar arith/math ops; errors are located at the body's ops or at ``op``."""
    block = block if block is not None else op.body.block

    def body(s, args):
        mapping = dict(zip(block.args, args))
        for inner in block.ops:
            if isinstance(inner, (hlo.ReturnOp, func.ReturnOp)):
                return [mapping[v] for v in inner.operands]
            values = [mapping[v] for v in inner.operands]
            if isinstance(inner, hlo.ConstantOp):
                dense = inner.attributes["value"]
                mapping[inner.outputs[0]] = constant(s, dense.get_values()[0], element_type(inner.outputs[0].type))
                continue
            if not is_elementwise(inner):
                raise error_at_op(inner, f"'{inner.name}' inside a {op.name} body is not supported by rt; "
                                         "the body may hold elementwise ops, constants and stablehlo.return")
            mapping[inner.results[0]] = emit_elementwise(s, inner, values, element_type(inner.results[0].type))
        raise error_at_op(op, f"'{op.name}' body has no stablehlo.return")
    return body
