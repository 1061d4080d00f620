"""Parse errors point at the offending token with its source line and a caret, as MLIR's parser
does (``emitWrongTokenError``, undeclared SSA names), on every path: ``parse_module``,
``rt.compile``, ``rt compile`` and ``rt opt``."""
import subprocess
import sys

import pytest

import rt
from rt.compiler.frontend import parse_module
from rt.runtime.errors import CompileError

UNDEFINED = """func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %x, %y : tensor<4xf32>
  %1 = arith.addf %0, %w : tensor<4xf32>
  return %1 : tensor<4xf32>
}
"""

MISSING_GT = """func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %x, %x : tensor<4xf32  // the sum

  // the result
  return %0 : tensor<4xf32>
}
"""

UNCLOSED = """func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
"""


def _error(text, name="t.mlir"):
    with pytest.raises(CompileError) as info:
        parse_module(text, name)
    return info.value


def _caret_column(err):
    lines = str(err).splitlines()
    return lines[2].index("^") + 1, lines[1]


def test_an_undefined_value_is_reported_at_its_first_use():
    err = _error(UNDEFINED)
    assert (err.file, err.line, err.col) == ("t.mlir", 2, 23)
    assert "use of undeclared SSA value name '%y'" in err.message
    assert _caret_column(err) == (23, "  %0 = arith.addf %x, %y : tensor<4xf32>")


def test_an_undefined_value_in_a_nested_region_is_located():
    text = (
        "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
        "  %0 = scf.execute_region -> tensor<4xf32> {\n"
        "    scf.yield %z : tensor<4xf32>\n"
        "  }\n"
        "  return %0 : tensor<4xf32>\n"
        "}\n"
    )
    err = _error(text)
    assert (err.line, err.col) == (3, 15)
    assert "'%z'" in err.message


def test_a_missing_token_at_a_line_end_is_reported_on_that_line():
    err = _error(MISSING_GT)
    assert (err.line, err.col) == (2, 40)
    assert "Expected '>'" in err.message
    assert _caret_column(err) == (40, "  %0 = arith.addf %x, %x : tensor<4xf32  // the sum")


def test_a_missing_token_inside_a_line_is_reported_at_the_wrong_token():
    err = _error("func.func @main(%x: tensor<4xf32) -> tensor<4xf32> {\n  return %x : tensor<4xf32>\n}\n")
    assert (err.line, err.col) == (1, 33)


def test_an_unclosed_region_is_reported_after_its_last_token():
    err = _error(UNCLOSED)
    assert (err.line, err.col) == (2, 28)
    assert "expected '}'" in err.message


def test_rt_compile_api_carries_the_location():
    with pytest.raises(CompileError) as info:
        rt.compile(UNDEFINED)
    assert (info.value.line, info.value.col) == (2, 23)


@pytest.mark.parametrize("command", [["compile", "-o", "out.vmfb"], ["opt"]])
def test_cli_prints_line_and_caret(tmp_path, command):
    path = tmp_path / "undef.mlir"
    path.write_text(UNDEFINED)
    args = [sys.executable, "-m", "rt", command[0], str(path), *command[1:]]
    result = subprocess.run(args, capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert f"{path}:2:23: error: use of undeclared SSA value name '%y'" in lines[0]
    assert lines[-2] == "  %0 = arith.addf %x, %y : tensor<4xf32>"
    assert lines[-1] == " " * 22 + "^"
