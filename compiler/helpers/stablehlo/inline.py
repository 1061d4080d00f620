"""Inline calls that pass dynamically shaped tensors between a module's functions (not a pass).

``jax.export`` with symbolic dimensions wraps the model in private functions
(``@_wrapped_jax_export_main``, one per ``lax.scan`` body or ``jnp`` helper) whose arguments
and results are tensors with dynamic dims. rt's stream conversion carries dynamic dims across
the public ABI (``hal.tensor.import``/``export`` with their sizes) but not across internal
calls, so :func:`inline_dynamic_calls` replaces each ``func.call`` whose operands or results
include such a tensor with a copy of the callee's body (callees inlined first), and drops
private functions left without callers. IREE runs MLIR's inliner in its input pipeline to the
same effect.

Source followed: MLIR's ``inline`` pass (single-block callees, ``func.return`` values replace
the call's results).
"""
from xdsl.dialects import func
from xdsl.dialects.builtin import DYNAMIC_INDEX, SymbolRefAttr, TensorType

from xdsl.rewriter import Rewriter

from rt.compiler.frontend import error_at_op

_MAX_DEPTH = 64


def _dynamic(values):
    return any(isinstance(v.type, TensorType) and DYNAMIC_INDEX in v.type.get_shape() for v in values)


def inline_dynamic_calls(module):
    """Inline every call that passes or returns a tensor with a dynamic dim (see the module doc)."""
    functions = {op.sym_name.data: op for op in module.walk() if isinstance(op, func.FuncOp)}
    inlined = set()
    for depth in range(_MAX_DEPTH):
        calls = [op for op in module.walk() if isinstance(op, func.CallOp)
                 and (_dynamic(op.arguments) or _dynamic(op.results))
                 and op.callee.root_reference.data in functions]
        if not calls:
            break
        for call in calls:
            callee = functions[call.callee.root_reference.data]
            if len(callee.body.blocks) != 1:
                raise error_at_op(call, f"'func.call' of @{callee.sym_name.data} passes dynamically shaped tensors to "
                                        "a function of several blocks; rt inlines such calls and needs one block")
            _inline(call, callee)
            inlined.add(callee.sym_name.data)
    else:
        raise error_at_op(calls[0], "'func.call' chains deeper than 64 (recursion?) pass dynamically shaped tensors")
    used = {ref.root_reference.data for op in module.walk() for ref in op.attributes.values()
            if isinstance(ref, SymbolRefAttr)} | {op.callee.root_reference.data for op in module.walk()
                                                  if isinstance(op, func.CallOp)}
    for name in inlined - used:
        callee = functions[name]
        if callee.sym_visibility is not None and callee.sym_visibility.data == "private":
            callee.detach()
            callee.erase()


def _inline(call, callee):
    body = callee.body.blocks[0]
    mapping = dict(zip(body.args, call.arguments))
    block = call.parent_block()
    results = None
    for op in body.ops:
        if isinstance(op, func.ReturnOp):
            results = [mapping.get(v, v) for v in op.arguments]
            break
        clone = op.clone(value_mapper=mapping)
        block.insert_op_before(clone, call)
    Rewriter.replace_op(call, [], results or [])
