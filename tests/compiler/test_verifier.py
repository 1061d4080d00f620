"""The pass manager's memoizing verifier reports what xDSL's verifier reports, at the op."""
import pytest
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import f32

from rt.compiler.dialects import make_context
from rt.compiler.frontend import parse_module
from rt.compiler.frontend.diagnostics import error_at_op
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


def xdsl_verify_module(module):
    """The reference: xDSL's own verifier, op by op, located like the memoizing one."""
    for op in module.walk():
        try:
            op.verify(verify_nested_ops=False)
        except Exception as exc:
            raise error_at_op(op, f"'{op.name}' op {str(exc).strip() or type(exc).__name__}") from None


def _errors(module, verifier):
    messages = []
    for check in (xdsl_verify_module, verifier.verify_module):
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


GENERIC = """func.func @g(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%y : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %b : f32
  } -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
"""


def test_equal_signatures_of_other_objects_are_checked_once_by_value():
    verifier = Verifier()
    verifier.verify_module(parse_module(GENERIC, "g.mlir", make_context()))
    remembered = set(verifier._passed_values)
    again = parse_module(GENERIC, "g.mlir", make_context())  # equal types, other objects
    verifier.verify_module(again)
    assert verifier._passed_values == remembered


def test_a_linalg_op_whose_signature_changed_is_checked_again():
    verifier = Verifier()
    verifier.verify_module(parse_module(GENERIC, "g.mlir", make_context()))
    # the body no longer takes the operand's element type
    module = parse_module(GENERIC.replace("^bb0(%a: f32", "^bb0(%a: f64"), "g.mlir", make_context(), verify=False)
    plain, memo = _errors(module, verifier)
    assert memo == plain and memo.startswith("'linalg.generic' op expected type of bb argument #0")
