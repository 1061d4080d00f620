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
from rt.compiler.helpers.stablehlo.inline import inline_calls


def has_complex_signature(fn):
    return any(is_complex(t) for t in (*fn.function_type.inputs.data, *fn.function_type.outputs.data))


def inline_complex_calls(module):
    """Inline every call to a private function with a complex signature, then drop those functions
    that no call names any more. CompileError for a callee that is public, external, has more than
    one block, or calls itself."""
    complex_functions = {op.sym_name.data for op in module.walk()
                         if isinstance(op, func.FuncOp) and has_complex_signature(op)}
    if complex_functions:
        inline_calls(module, lambda call, callee: callee.sym_name.data in complex_functions, _check,
                     "through functions with complex signatures", droppable=complex_functions)


def _check(call, callee):
    if callee.sym_visibility is None or callee.sym_visibility.data != "private" or len(callee.body.blocks) != 1:
        raise error_at_op(call, f"'func.call' @{callee.sym_name.data} passes complex tensors; rt inlines such calls "
                                "only into private single-block functions (as JAX writes them)")
