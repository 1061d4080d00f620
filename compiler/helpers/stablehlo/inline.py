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


from rt.compiler.frontend import error_at_op

#: nested calls deeper than this are taken as recursion
MAX_DEPTH = 64


def _dynamic(values):
    return any(isinstance(v.type, TensorType) and DYNAMIC_INDEX in v.type.get_shape() for v in values)


def inline_calls(module, wanted, check, what, droppable=None):
    """Inline every ``func.call`` for which ``wanted(call, callee)`` holds (nested calls too,
    outermost first); ``check(call, callee)`` raises the caller's CompileError for a callee it
    cannot inline. Private functions of ``droppable`` (default: those inlined) that no call or
    symbol names any more are dropped. ``what`` completes the recursion error."""
    functions = {op.sym_name.data: op for op in module.walk() if isinstance(op, func.FuncOp)}
    inlined = set()
    for _ in range(MAX_DEPTH):
        calls = [op for op in module.walk() if isinstance(op, func.CallOp)
                 and op.callee.root_reference.data in functions
                 and wanted(op, functions[op.callee.root_reference.data])]
        if not calls:
            break
        for call in calls:
            callee = functions[call.callee.root_reference.data]
            check(call, callee)
            _inline(call, callee)
            inlined.add(callee.sym_name.data)
    else:
        raise error_at_op(calls[0], f"'func.call' @{calls[0].callee.root_reference.data}: calls nested deeper than "
                                    f"{MAX_DEPTH} (recursion?) {what}")
    used = {ref.root_reference.data for op in module.walk() for ref in op.attributes.values()
            if isinstance(ref, SymbolRefAttr)} | {op.callee.root_reference.data for op in module.walk()
                                                  if isinstance(op, func.CallOp)}
    for name in (inlined if droppable is None else droppable) - used:
        callee = functions[name]
        if callee.sym_visibility is not None and callee.sym_visibility.data == "private":
            callee.parent_block().erase_op(callee)


def inline_dynamic_calls(module):
    """Inline every call that passes or returns a tensor with a dynamic dim (see the module doc)."""
    def check(call, callee):
        if len(callee.body.blocks) != 1:
            raise error_at_op(call, f"'func.call' of @{callee.sym_name.data} passes dynamically shaped tensors to "
                                    "a function of several blocks; rt inlines such calls and needs one block")
    inline_calls(module, lambda call, callee: _dynamic(call.arguments) or _dynamic(call.results), check,
                 "passing dynamically shaped tensors")


def _inline(call, callee):
    """``call`` replaced by a copy of ``callee``'s single block (arguments bound to the call's
    operands, the returned values in place of its results)."""
    block = callee.body.blocks[0]
    mapping = dict(zip(block.args, call.arguments))
    target = call.parent_block()
    for op in block.ops:
        if isinstance(op, func.ReturnOp):
            for result, value in zip(call.results, op.arguments):
                result.replace_all_uses_with(mapping.get(value, value))
            break
        target.insert_op_before(op.clone(value_mapper=mapping), call)
    target.erase_op(call)
