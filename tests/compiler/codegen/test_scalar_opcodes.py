"""The dispatch lowering's op-class -> kernel_ir.Opcode table covers both classes of an op.

rt's arith/math dialects replace some xDSL ops with classes of their own; parsed IR holds
rt's class while passes may build xDSL's (materialize-interfaces builds arith.IndexCastOp).
Both must lower to the same opcode, and every opcode but tensor.extract (lowered from the
body's tensor.extract by structured.py) must be reachable from its MLIR op.
"""
import pytest
from xdsl.dialects import arith, math

from rt.compiler.codegen import kernel_ir as kir
from rt.compiler.codegen.lowering.scalars import OPCODES
from rt.compiler.dialects import make_context
from rt.runtime.errors import CompileError

_XDSL = {op.name: op for dialect in (arith.Arith, math.Math) for op in dialect.operations}
_CONTEXT = make_context()


@pytest.mark.parametrize("opcode", [o for o in kir.Opcode if o is not kir.Opcode.EXTRACT], ids=str)
def test_parsed_and_built_classes_map_to_the_opcode(opcode):
    registered = _CONTEXT.get_optional_op(opcode.value)
    assert OPCODES.get(registered) is opcode
    built = _XDSL.get(opcode.value)
    if built is not None:
        assert OPCODES.get(built) is opcode


def test_scalar_op_takes_the_spelling_and_rejects_unknown_opcodes():
    assert kir.ScalarOp("arith.addf", (0, 1), "f32").opcode is kir.Opcode.ADDF
    assert kir.ScalarOp("arith.addf", (0, 1), "f32") == kir.ScalarOp(kir.Opcode.ADDF, (0, 1), "f32")
    with pytest.raises(CompileError, match="Kernel IR scalar op 'math.ipowi' is not an Opcode"):
        kir.ScalarOp("math.ipowi", (0,), "i32")
