"""Control flow and calls: branches, switch, recursion, stack overflow, fail, VM stack traces."""
import pytest

from rt.runtime.errors import InvalidArgumentError, VMTrapError
from rt.runtime.vm import ModuleBuilder

from vm_helpers import load


def fib_module():
    mb = ModuleBuilder("mymod")
    fb = mb.function("fib", "0i_i", export=True, reflection={"iree.abi.declaration": "func @fib(%n: i32) -> i32"})
    (n,) = fb.args
    two, c, a, b, one = (fb.reg("i32") for _ in range(5))
    small, big = fb.label(), fb.label()
    fb.loc("fib.mlir", 2, 3)
    fb.const_i32(two, 2)
    fb.cmp_lt_i32_s(c, n, two)
    fb.cond_br(c, small, big)
    fb.bind(small)
    fb.return_([n])
    fb.bind(big)
    fb.const_i32(one, 1)
    fb.sub_i32(a, n, one)
    fb.call("fib", [a], [a])
    fb.sub_i32(b, n, two)
    fb.call("fib", [b], [b])
    fb.add_i32(a, a, b)
    fb.return_([a])
    return mb


def test_fib_recursion():
    f = load(fib_module()).lookup_function("mymod.fib")
    assert [f(k) for k in range(10)] == [0, 1, 1, 2, 3, 5, 8, 13, 21, 34]
    assert f(25) == 75025


def test_argument_checks():
    f = load(fib_module()).lookup_function("mymod.fib")
    with pytest.raises(InvalidArgumentError, match=r"@fib takes 1 argument"):
        f()
    with pytest.raises(InvalidArgumentError, match=r"argument 0 of @fib: expected i32"):
        f("3")
    with pytest.raises(InvalidArgumentError, match=r"does not fit i32"):
        f(1 << 40)


def test_switch_and_loop():
    mb = ModuleBuilder("sw")
    fb = mb.function("pick", "0i_i", export=True)
    (i,) = fb.args
    r = fb.reg("i32")
    labels = [fb.label() for _ in range(3)]
    dflt, done = fb.label(), fb.label()
    fb.switch(i, dflt, labels)
    for k, lab in enumerate(labels):
        fb.bind(lab)
        fb.const_i32(r, 10 * (k + 1))
        fb.br(done)
    fb.bind(dflt)
    fb.const_i32(r, -1)
    fb.bind(done)
    fb.return_([r])
    sb = mb.function("sum", "0I_I", export=True)  # sum of 0..n-1 with a loop
    (n,) = sb.args
    acc, k, one, c = sb.reg("i64"), sb.reg("i64"), sb.reg("i64"), sb.reg("i32")
    head, body, out = sb.label(), sb.label(), sb.label()
    sb.const_i64_zero(acc)
    sb.const_i64_zero(k)
    sb.const_i64(one, 1)
    sb.bind(head)
    sb.cmp_lt_i64_s(c, k, n)
    sb.cond_br(c, body, out)
    sb.bind(body)
    sb.add_i64(acc, acc, k)
    sb.add_i64(k, k, one)
    sb.br(head)
    sb.bind(out)
    sb.return_([acc])
    ctx = load(mb)
    pick = ctx.lookup_function("sw.pick")
    assert [pick(k) for k in (-1, 0, 1, 2, 3, 1 << 31)] == [-1, 10, 20, 30, -1, -1]
    assert ctx.lookup_function("sw.sum")(100000) == 100000 * 99999 // 2


def test_multiple_results_and_mixed_banks():
    mb = ModuleBuilder("mix")
    inner = mb.function("swap", "0fIr_rIf")
    x, y, z = inner.args
    inner.return_([z, y, x])
    fb = mb.function("f", "0fIr_rIf", export=True)
    a, b, c = fb.args
    ra, rb, rc = fb.reg("ref"), fb.reg("i64"), fb.reg("f32")
    fb.call("swap", [a, b, c], [ra, rb, rc])
    fb.return_([ra, rb, rc])
    f = load(mb).lookup_function("mix.f")
    token = object()
    assert f(1.5, -(1 << 50), token) == (token, -(1 << 50), 1.5)


def test_stack_overflow_trap_names_function():
    mb = ModuleBuilder("deep")
    fb = mb.function("down", "0i_i", export=True)
    (n,) = fb.args
    fb.loc("deep.mlir", 7, 1)
    fb.call("down", [n], [n])
    fb.return_([n])
    f = load(mb).lookup_function("deep.down")
    with pytest.raises(VMTrapError, match=r"stack overflow in @down") as info:
        f(1)
    assert len(info.value.vm_stack) == 1024
    assert info.value.vm_stack[0] == "deep.mlir:7:1 in @down"


def test_fail_trap_with_locations():
    mb = ModuleBuilder("m")
    inner = mb.function("check", "0i_v")
    (x,) = inner.args
    code = inner.reg("i32")
    inner.const_i32(code, 3)
    inner.loc("matmul_f32.mlir", 9, 9)
    inner.cond_fail(x, code, "value must be zero")
    inner.return_([])
    fb = mb.function("foo", "0i_v", export=True)
    fb.loc("matmul_f32.mlir", 4, 3)
    fb.call("check", list(fb.args), [])
    fb.return_([])
    f = load(mb).lookup_function("m.foo")
    assert f(0) is None
    with pytest.raises(VMTrapError) as info:
        f(1)
    err = info.value
    assert "vm.fail (status 3): value must be zero" in err.message
    assert err.vm_stack == ("matmul_f32.mlir:9:9 in @check", "matmul_f32.mlir:4:3 in @foo")
    assert "matmul_f32.mlir:9:9 in @check" in str(err)


def test_builder_rejects_bad_operands():
    mb = ModuleBuilder("bad")
    fb = mb.function("f", "0i_f", export=True)
    (n,) = fb.args
    x = fb.reg("f32")
    with pytest.raises(InvalidArgumentError, match=r"add.i32: operand 'a' must be a integer"):
        fb.add_i32(n, x, n)
    with pytest.raises(InvalidArgumentError, match=r"registers of banks f"):
        fb.return_([n])
    fb.const_f32(x, 1.0)
    with pytest.raises(InvalidArgumentError, match="terminator"):
        mb.build()
    fb.call("g", [n], [])
    fb.return_([x])
    with pytest.raises(InvalidArgumentError, match="unknown function @g"):
        mb.build()
