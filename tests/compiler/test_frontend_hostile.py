"""Hostile compiler input (issue 25, item 4): no hang, no internal exception, no unlocated error.

Each case failed before: an unterminated string literal hung the lexer (exponential
backtracking in xDSL 0.74.0's string regex), a zero-element splat and ``tensor.empty`` of a
dynamic type without its size raised ``IndexError``, and an op at module level, a duplicated
symbol or a value used across an isolated region gave errors without ``file:line:col`` (or
compiled, the op silently dropped)."""
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import rt
from rt.compiler.frontend import parse_module
from rt.runtime.errors import CompileError

HANG_SCRIPT = textwrap.dedent("""
    import sys
    from rt.compiler.frontend import parse_module
    from rt.runtime.errors import CompileError
    try:
        parse_module(sys.argv[1], "s.mlir")
    except CompileError as e:
        print(e)
""")


@pytest.mark.parametrize("text, where, why", [
    ('func.func @f() {\n  %0 = "abc def ghi jkl mno pqr stu vwx yz0123\n}\n', "s.mlir:2:47",
     "starting at column 8: the line ends before its closing '\"' (a string literal stays on one line)"),
    ('"abc def ghi jkl mno pqr stu vwx yz0123456789 abcdefgh', "s.mlir:1:55",
     "starting at column 1: the file ends before its closing '\"'"),
    ('func.func @f() {\n  %0 = "abc def ghi jkl mno pqr stu vwx\\q yz0123"\n}\n', "s.mlir:2:40",
     "starting at column 8: invalid escape '\\q' (valid: \\n, \\t, \\\\, \\\" or two hex digits)"),
])
def test_unterminated_string_is_a_located_error_not_a_hang(text, where, why):
    """In a child process with a timeout: before the fix each of these never returned."""
    out = subprocess.run([sys.executable, "-c", HANG_SCRIPT, text], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr[-2000:]
    first = out.stdout.splitlines()[0]
    assert first == f"{where}: error: unterminated string literal {why}"


def test_valid_strings_still_lex():
    module = parse_module('func.func @f() attributes {s = "a\\"b\\\\c\\n\\t\\41", u = "ключ"} {\n  return\n}\n',
                          "s.mlir")
    func = next(iter(module.body.ops))
    assert func.attributes["s"].data == 'a"b\\c\n\tA' and func.attributes["u"].data == "ключ"


def _error(text):
    with pytest.raises(CompileError) as e:
        rt.compile(text, devices=["vmvx"])
    return str(e.value).splitlines()[0]


def test_op_at_module_level_is_located():
    text = ("%c = arith.constant 1 : i32\n"
            "func.func @f() -> i32 {\n  %c1 = arith.constant 1 : i32\n  return %c1 : i32\n}\n")
    assert _error(text) == ("<input>:1:6: error: 'arith.constant' cannot be at module level; module level holds "
                            "func.func, util.func, util.global and util.initializer: move it into a function")


def test_duplicate_symbol_is_located_at_the_second_definition():
    text = "func.func @f() {\n  return\n}\nutil.global private @f : i32\n"
    assert _error(text) == ("<input>:4:1: error: 'util.global' op redefinition of symbol named 'f' (first defined "
                            "at <input>:1:1 by 'func.func'); give each symbol of a module its own name")


def test_value_used_across_isolated_region_is_located():
    text = ("func.func @g() -> i32 {\n  %c1 = arith.constant 1 : i32\n"
            "  func.func @inner() -> i32 {\n    return %c1 : i32\n  }\n  return %c1 : i32\n}\n")
    assert _error(text) == ("<input>:4:5: error: 'func.return' op using value %c1 defined outside the region of "
                            "its isolated parent 'func.func' at <input>:3:3; define it inside or pass it in")


def test_tensor_empty_without_its_dynamic_size_is_located():
    text = "func.func @f() -> tensor<?x4xf32> {\n  %e = tensor.empty() : tensor<?x4xf32>\n  return %e : tensor<?x4xf32>\n}\n"
    assert _error(text) == ("<input>:2:8: error: 'tensor.empty' op incorrect number of dynamic sizes, has 0, "
                            "expected 1 (one index operand per '?' of tensor<?x4xf32>: tensor.empty(%d) : "
                            "tensor<?xf32>)")


@pytest.mark.parametrize("target, device", [("vmvx", "local-sync://vmvx"), ("llvm-cpu", "local-task://llvm-cpu")])
def test_splat_of_an_empty_tensor_compiles_and_runs(target, device):
    text = ("func.func @f(%x: tensor<4x0xf32>) -> (tensor<4x0xf32>, tensor<0xi32>) {\n"
            "  %c = arith.constant dense<1.0> : tensor<4x0xf32>\n"
            "  %i = arith.constant dense<7> : tensor<0xi32>\n"
            "  %r = arith.addf %x, %c : tensor<4x0xf32>\n"
            "  return %r, %i : tensor<4x0xf32>, tensor<0xi32>\n}\n")
    with rt.load(rt.compile(text, devices=[target]), devices=[device]) as m:
        r, i = m.f(np.zeros((4, 0), np.float32))
    assert r.shape == (4, 0) and r.dtype == np.float32 and i.shape == (0,) and i.dtype == np.int32


def test_value_used_before_its_definition_is_located_not_a_hang():
    """Found by compiler_fuzz (seed 7): a use-def cycle sent dispatch creation round it forever."""
    text = ("func.func @f(%n: index) -> tensor<?xf32> {\n  %c = arith.constant 0.0 : f32\n"
            "  %f = linalg.fill ins(%c : f32) outs(%f : tensor<?xf32>) -> tensor<?xf32>\n"
            "  return %f : tensor<?xf32>\n}\n")
    assert _error(text) == ("<input>:3:8: error: 'linalg.fill' op operand #1 %f (defined at <input>:3:8) does not "
                            "dominate this use: define a value before using it")
    text = ("func.func @g() -> i32 {\n  %s = arith.addi %a, %a : i32\n  %a = arith.constant 1 : i32\n"
            "  return %s : i32\n}\n")
    assert _error(text) == ("<input>:2:8: error: 'arith.addi' op operand #0 %a (defined at <input>:3:8) does not "
                            "dominate this use: define a value before using it")


def test_tensor_global_not_declared_is_located_at_its_use():
    """Found by compiler_fuzz (seed 20261128 case 505, the ml_program.global line deleted): the
    error named no location."""
    text = ("func.func @f() -> tensor<f32> {\n  %0 = ml_program.global_load @counter : tensor<f32>\n"
            "  return %0 : tensor<f32>\n}\n")
    assert _error(text) == ("<input>:2:8: error: 'util.global.load' names @counter, which is not a util.global of "
                            "this module (declare it at module level: util.global or ml_program.global)")
    text = ("func.func @g(%a: tensor<2xf32>) {\n  ml_program.global_store @counter = %a : tensor<2xf32>\n"
            "  return\n}\n")
    assert _error(text).startswith("<input>:2:3: error: 'util.global.store' names @counter, which is not")
