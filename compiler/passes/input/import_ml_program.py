"""``iree-import-ml-program``: ``ml_program`` globals -> ``util`` globals.

Input: ``ml_program.global [private] [mutable] @g(value) : type``, ``ml_program.global_load @g``,
``ml_program.global_load_const @g`` and ``ml_program.global_store @g = %v``. Output:
``util.global [private] [mutable] @g = value : type``, ``util.global.load @g``,
``util.global.store %v, @g``. A global without an initial value (or with
``#ml_program.extern``) is a located CompileError: rt has no external storage to bind it to.

Example::

    ml_program.global private mutable @counter(dense<2.0> : tensor<f32>) : tensor<f32>
    %0 = ml_program.global_load @counter : tensor<f32>
    // ->
    util.global private mutable @counter = dense<2.0> : tensor<f32>
    %0 = util.global.load @counter : tensor<f32>

Source followed: IREE ``compiler/src/iree/compiler/InputConversion/Common/ImportMLProgram.cpp``.
"""
import dataclasses

from xdsl.dialects.builtin import StringAttr, TypedAttribute, UnitAttr
from xdsl.rewriter import Rewriter

from rt.compiler.dialects import ml_program, util
from rt.compiler.frontend.diagnostics import error_at_op
from rt.compiler.passes.base import Pass

_ML_PROGRAM_OPS = (ml_program.GlobalOp, ml_program.GlobalLoadOp, ml_program.GlobalLoadConstantOp,
                   ml_program.GlobalStoreOp)


@dataclasses.dataclass(frozen=True)
class ImportMLProgramPass(Pass):
    """Replace every ml_program global op by its util counterpart (a no-op without them)."""

    name = "iree-import-ml-program"

    def run(self, module, ctx):
        for op in [o for o in module.walk() if isinstance(o, _ML_PROGRAM_OPS)]:
            Rewriter.replace_op(op, [_converted(op)])


def _converted(op):
    if isinstance(op, ml_program.GlobalOp):
        if not isinstance(op.value, TypedAttribute):
            raise error_at_op(op, f"ml_program.global @{op.sym_name.data} has no initial value; rt needs one "
                                  "(dense<...> : type) since it binds no external storage")
        props = {"sym_name": op.sym_name, "type": op.type, "initial_value": op.value,
                 "sym_visibility": op.sym_visibility or StringAttr("private")}
        if op.is_mutable is not None:
            props["is_mutable"] = UnitAttr()
        new = util.GlobalOp.build(properties=props)
    elif isinstance(op, ml_program.GlobalStoreOp):
        new = util.GlobalStoreOp.build(operands=[op.value], properties={"global": op.global_})
    else:
        symbol = op.global_ if isinstance(op, ml_program.GlobalLoadOp) else op.global_attr
        new = util.GlobalLoadOp.build(properties={"global": symbol}, result_types=[op.result.type])
    new.location = op.location
    return new
