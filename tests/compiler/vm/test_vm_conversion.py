"""iree-vm-conversion: scalar programs compiled to .vmfb and run in the VM, values checked."""
import numpy as np
import pytest

from rt.compiler.dialects import make_context
from rt.compiler.frontend import parse_module
from rt.compiler.passes import parse_pass_spec
from rt.compiler.passes.vm.conversion import vmfb_bytes
from rt.runtime.errors import CompileError, VMTrapError
from rt.runtime.vm import Context, Instance, Module


def _load(text, filename="prog.mlir"):
    ctx = make_context()
    module = parse_module(text, filename, ctx)
    parse_pass_spec("iree-vm-conversion").run(module, ctx)
    m = Module.from_bytes(vmfb_bytes(module))
    return m, Context(Instance(), [m])


LOOPS = """
util.global private mutable @counter = 0 : i64
util.func private @square(%x: index) -> index {
  %y = arith.muli %x, %x : index
  util.return %y : index
}
util.func public @sum_squares(%n: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (index) {
    %s = util.call @square(%i) : (index) -> index
    %t = arith.addi %acc, %s : index
    scf.yield %t : index
  }
  %k = util.global.load @counter : i64
  %one = arith.constant 1 : i64
  %k1 = arith.addi %k, %one : i64
  util.global.store %k1, @counter : i64
  util.return %r : index
}
util.func public @calls() -> i64 {
  %k = util.global.load @counter : i64
  util.return %k : i64
}
util.func public @collatz(%x: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %r:2 = scf.while (%v = %x, %steps = %c0) : (i32, i32) -> (i32, i32) {
    %more = arith.cmpi ne, %v, %c1 : i32
    scf.condition(%more) %v, %steps : i32, i32
  } do {
  ^bb0(%v: i32, %steps: i32):
    %odd = arith.remui %v, %c2 : i32
    %is_odd = arith.cmpi eq, %odd, %c1 : i32
    %next = scf.if %is_odd -> (i32) {
      %m = arith.muli %v, %c3 : i32
      %p = arith.addi %m, %c1 : i32
      scf.yield %p : i32
    } else {
      %h = arith.divui %v, %c2 : i32
      scf.yield %h : i32
    }
    %s1 = arith.addi %steps, %c1 : i32
    scf.yield %next, %s1 : i32, i32
  }
  util.return %r#1 : i32
}
util.func public @swap_loop(%a: i32, %b: i32, %n: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c10 = arith.constant 10 : i32
  cf.br ^head(%a, %b, %c0 : i32, i32, i32)
^head(%x: i32, %y: i32, %i: i32):
  %done = arith.cmpi sge, %i, %n : i32
  %i1 = arith.addi %i, %c1 : i32
  cf.cond_br %done, ^exit(%x, %y : i32, i32), ^head(%y, %x, %i1 : i32, i32, i32)
^exit(%p: i32, %q: i32):
  %r = arith.muli %p, %c10 : i32
  %s = arith.addi %r, %q : i32
  util.return %s : i32
}
util.func public @floats(%a: f32, %b: f64) -> (f32, i32) {
  %e = math.exp %a : f32
  %w = arith.extf %e : f32 to f64
  %s = arith.addf %w, %b : f64
  %t = arith.truncf %s : f64 to f32
  %lt = arith.cmpf olt, %t, %a : f32
  %z = arith.extui %lt : i1 to i32
  %i = arith.fptosi %t : f32 to i32
  %sum = arith.addi %i, %z : i32
  util.return %t, %sum : f32, i32
}
util.func public @divide(%a: i32, %b: i32) -> i32 {
  %q = arith.divsi %a, %b : i32
  util.return %q : i32
}
"""


def _line_of(text, needle):
    return next(i for i, line in enumerate(text.split("\n"), 1) if needle in line)


@pytest.fixture(scope="module")
def program():
    return _load(LOOPS)


def test_loops_calls_and_globals(program):
    m, ctx = program
    f = ctx.lookup_function("module.sum_squares")
    assert f(5) == 30 and f(0) == 0 and f(100) == sum(i * i for i in range(100))
    assert ctx.lookup_function("module.calls")() == 3
    assert m.functions[m.exports["sum_squares"]].signature.text == "0I_I"


def test_while_with_nested_if(program):
    _, ctx = program
    assert [ctx.lookup_function("module.collatz")(x) for x in (1, 6, 27)] == [0, 8, 111]


def test_block_arguments_are_swapped_in_parallel(program):
    _, ctx = program
    f = ctx.lookup_function("module.swap_loop")
    assert f(1, 2, 0) == 12 and f(1, 2, 1) == 21 and f(1, 2, 5) == 21 and f(1, 2, 4) == 12


def test_float_ops_and_casts(program):
    _, ctx = program
    t, s = ctx.lookup_function("module.floats")(0.5, 1.25)
    want = np.float32(np.exp(np.float32(0.5)) + 1.25)
    assert t == pytest.approx(float(want), rel=1e-6) and s == int(want)


def test_trap_names_the_source_line(program):
    _, ctx = program
    with pytest.raises(VMTrapError) as info:
        ctx.lookup_function("module.divide")(1, 0)
    line = _line_of(LOOPS, "arith.divsi")
    assert f"prog.mlir:{line}:8 in @divide" in str(info.value)


def test_exported_reflection_carries_the_source():
    m, _ = _load(LOOPS, "refl.mlir")
    f = m.functions[m.exports["collatz"]]
    assert f.reflection["rt.source"] == f"refl.mlir:{_line_of(LOOPS, '@collatz')}:1"
    assert "square" not in m.exports


def test_tensor_values_are_rejected_with_a_location():
    text = 'util.func public @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n  util.return %a : tensor<4xf32>\n}\n'
    with pytest.raises(CompileError, match=r"bad\.mlir:1:1: error: @f has a signature .* the VM cannot pass"):
        _load(text, "bad.mlir")


def test_unknown_op_is_rejected_with_a_location():
    text = ('util.func public @f(%a: index) -> index {\n'
            '  %e = tensor.empty(%a) : tensor<?xf32>\n  util.return %a : index\n}\n')
    with pytest.raises(CompileError, match=r"bad\.mlir:2:\d+: error: .*(cannot be converted|no VM register type)"):
        _load(text, "bad.mlir")
