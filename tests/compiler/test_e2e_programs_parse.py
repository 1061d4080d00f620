"""Every e2e program (tests/e2e/programs) parses, verifies and goes through the input phase.

For each program: ``parse_module`` verifies it; the input passes (verify, canonicalize, cse,
convert-elementwise-to-linalg, linalg-normalize-named-ops) run with verification after each;
then no arith/math op on tensors is left outside a linalg body, every
``util.unfoldable_constant`` (a complex one as two) and every public function is still there, no elementwise named
linalg op survives, and the printed result parses and verifies again.
"""
import pathlib

import pytest
from xdsl.dialects.builtin import TensorType

from rt.compiler.dialects import make_context
from rt.compiler.frontend import parse_module
from rt.compiler.helpers.stablehlo.complex import is_complex
from rt.compiler.passes.input.normalize_named_ops import GENERALIZED
from rt.compiler.passes import PassPipeline, pipeline

PROGRAMS = sorted((pathlib.Path(__file__).resolve().parents[1] / "e2e" / "programs").glob("*.mlir"))


def _public_functions(module):
    return sorted(op.sym_name.data for op in module.walk()
                  if op.name == "func.func" and op.sym_visibility is None)


def _tensor_elementwise_ops(module):
    """arith/math ops with a tensor operand or result that are not inside a linalg op."""
    found = []
    for op in module.walk():
        if op.name.split(".")[0] not in ("arith", "math") or op.name == "arith.constant":
            continue
        parent = op.parent_op()
        if parent is not None and parent.name.startswith("linalg."):
            continue
        if any(isinstance(v.type, TensorType) for v in (*op.operands, *op.results)):
            found.append(op.name)
    return found


def test_the_suite_is_there():
    assert len(PROGRAMS) >= 53


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.stem)
def test_program_parses_verifies_and_passes_the_input_phase(path):
    ctx = make_context()
    module = parse_module(path.read_text(), str(path), ctx)
    publics = _public_functions(module)
    # a complex unfoldable constant becomes two, its real and imaginary parts (lower-complex)
    unfoldable = sum(1 + is_complex(op.results[0].type) for op in module.walk()
                     if op.name == "util.unfoldable_constant")
    assert publics

    PassPipeline(pipeline.build_passes({"compile_to": "input"})).run(module, ctx)

    assert _tensor_elementwise_ops(module) == []
    assert not [op.name for op in module.walk() if isinstance(op, GENERALIZED)]
    assert sum(op.name == "util.unfoldable_constant" for op in module.walk()) == unfoldable
    assert _public_functions(module) == publics
    again = parse_module(str(module), f"{path.stem}.input.mlir")
    assert _public_functions(again) == publics
