"""Inlining of the private functions that take or return complex tensors (helper of
``iree-stablehlo-preprocessing-lower-complex``).

JAX outlines ``jnp.fft.*`` and padding into private functions (``call @fft(%x) : (tensor<8xf32>)
-> tensor<5xcomplex<f32>>``). rt splits complex values only inside one function body, so each
call to a private function whose signature holds a complex tensor is replaced by a copy of the
callee's body (one block ending in ``func.return``), and such functions are dropped once no
call is left. A public function with a complex signature stays: the pass reports it.

Source followed: MLIR's inliner (``mlir/lib/Transforms/InlinerPass.cpp``) for a single-block
callee: arguments bound to the call operands, the returned values replace the call results.
"""
from xdsl.dialects import func

from rt.compiler.frontend.diagnostics import error_at_op
from rt.compiler.helpers.stablehlo.complex import is_complex

#: nested calls deeper than this are taken as recursion
MAX_DEPTH = 64


def has_complex_signature(fn):
    return any(is_complex(t) for t in (*fn.function_type.inputs.data, *fn.function_type.outputs.data))


def inline_complex_calls(module):
    """Inline every call to a private function with a complex signature, then drop those functions
    that no call names any more. CompileError for a callee that is public, external, has more than
    one block, or calls itself."""
    functions = {op.sym_name.data: op for op in module.walk() if isinstance(op, func.FuncOp)}
    complex_functions = {name for name, fn in functions.items() if has_complex_signature(fn)}
    if not complex_functions:
        return
    for _ in range(MAX_DEPTH):
        calls = [op for op in module.walk()
                 if isinstance(op, func.CallOp) and op.callee.root_reference.data in complex_functions]
        if not calls:
            break
        for call in calls:
            _inline(call, functions[call.callee.root_reference.data])
    else:
        raise error_at_op(calls[0], f"'func.call' @{calls[0].callee.root_reference.data}: calls nested deeper than "
                                    f"{MAX_DEPTH} (recursion?) through functions with complex signatures")
    called = {op.callee.root_reference.data for op in module.walk() if isinstance(op, func.CallOp)}
    for name in complex_functions - called:
        fn = functions[name]
        if fn.sym_visibility is not None and fn.sym_visibility.data == "private":
            fn.parent_block().erase_op(fn)


def _inline(call, callee):
    name = callee.sym_name.data
    if callee.sym_visibility is None or callee.sym_visibility.data != "private" or len(callee.body.blocks) != 1:
        raise error_at_op(call, f"'func.call' @{name} passes complex tensors; rt inlines such calls only into "
                                "private single-block functions (as JAX writes them)")
    block = callee.body.blocks[0]
    mapping = dict(zip(block.args, call.operands))
    target = call.parent_block()
    for op in block.ops:
        if isinstance(op, func.ReturnOp):
            for result, value in zip(call.results, op.operands):
                result.replace_all_uses_with(mapping.get(value, value))
            break
        target.insert_op_before(op.clone(value_mapper=mapping), call)
    target.erase_op(call)
