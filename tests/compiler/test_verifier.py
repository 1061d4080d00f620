"""The pass manager's memoizing verifier reports what xDSL's verifier reports, at the op."""
import pytest
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import f32

from rt.compiler.dialects import make_context
from rt.compiler.frontend import parse_module
from rt.compiler.frontend.diagnostics import verify_module
from rt.compiler.passes.verifier import Verifier
from rt.runtime.errors import CompileError

SOURCE = """func.func @f(%a: i32) -> i32 {
  %0 = arith.addi %a, %a : i32
  %1 = arith.muli %0, %a : i32
  return %1 : i32
}
"""


def _module():
    return parse_module(SOURCE, "v.mlir", make_context())


def _errors(module, verifier):
    messages = []
    for check in (verify_module, verifier.verify_module):
        with pytest.raises(CompileError) as info:
            check(module)
        messages.append(info.value.message)
    return messages


def test_a_bad_op_of_an_already_verified_class_is_still_caught():
    module = _module()
    verifier = Verifier()
    verifier.verify_module(module)
    verifier.verify_module(module)
    addi = next(op for op in module.walk() if op.name == "arith.addi")
    bad = arith.AddiOp.create(operands=list(addi.operands), result_types=[f32])
    addi.parent.insert_op_before(bad, addi)
    plain, memo = _errors(module, verifier)
    assert memo == plain and memo.startswith("'arith.addi' op ")


def test_custom_verifiers_and_terminators_run_every_time():
    module = _module()
    verifier = Verifier()
    verifier.verify_module(module)
    ret = next(op for op in module.walk() if op.name == "func.return")
    block = ret.parent
    block.insert_op_before(func.ReturnOp(), ret)
    block.erase_op(ret)
    plain, memo = _errors(module, verifier)
    assert memo == plain and "'func.return' op" in memo
    module = _module()
    verifier.verify_module(module)
    ret = next(op for op in module.walk() if op.name == "func.return")
    ret.parent.erase_op(ret)
    with pytest.raises(CompileError, match=r"v\.mlir:3:\d+: error: 'arith.muli' op .*not a terminator"):
        verifier.verify_module(module)
