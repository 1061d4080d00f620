"""``verify``: check that the input is IR rt accepts, with located errors.

Input: any module. Output: the same module, unchanged. Fails with CompileError when an op is
not supported by rt (``'tensor.scatter' is not supported by rt; supported ops: ...``), when an
op fails its verifier (``'linalg.matmul' op ...``), or when a public function takes or returns
an unranked tensor.

Example::

    func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> { return %a : tensor<4xf32> }
    // -> unchanged

Source followed: IREE ``iree-stream-verify-input`` / ``VerifyInputLegality`` (input checks).
"""
import dataclasses

from xdsl.dialects import func
from xdsl.dialects.builtin import UnrankedTensorType

from rt.compiler.dialects import util

from rt.compiler.frontend.diagnostics import error_at_op, verify_module
from rt.compiler.passes.base import Pass
from rt.compiler.passes.legality import check_supported_ops


@dataclasses.dataclass(frozen=True)
class VerifyPass(Pass):
    """Legality + verifier check of the input module (no rewrite)."""

    name = "verify"

    def run(self, module, ctx):
        check_supported_ops(module, ctx)
        verify_module(module)
        for op in module.walk():
            function_type = getattr(op, "function_type", None)
            if function_type is None or not isinstance(op, (func.FuncOp, util.FuncOp)):
                continue
            for kind, types in (("argument", function_type.inputs.data), ("result", function_type.outputs.data)):
                for i, type_ in enumerate(types):
                    if isinstance(type_, UnrankedTensorType):
                        raise error_at_op(
                            op, f"{kind} {i} of @{op.sym_name.data} is unranked ({type_}); rt needs ranked tensors like tensor<?xf32>"
                        )
