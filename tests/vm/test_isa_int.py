"""Integer ops: wraparound, signed/unsigned division, traps, shifts, compares, conversions."""
import pytest

from rt.runtime.errors import VMTrapError

from vm_helpers import op_function

I32_MIN, I32_MAX = -(1 << 31), (1 << 31) - 1
I64_MIN, I64_MAX = -(1 << 63), (1 << 63) - 1


def i32(v):
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >> 31 else v


def i64(v):
    v &= (1 << 64) - 1
    return v - (1 << 64) if v >> 63 else v


def binop(name, t):
    return op_function(name, [t, t], t)


@pytest.mark.parametrize("op,py", [("add", lambda a, b: a + b), ("sub", lambda a, b: a - b), ("mul", lambda a, b: a * b)])
def test_wraparound(op, py):
    f32, f64 = binop(f"{op}_i32", "i32"), binop(f"{op}_i64", "i64")
    for a, b in [(I32_MAX, 1), (I32_MIN, -1), (123456789, 987654321), (-7, 5), (I32_MIN, I32_MIN)]:
        assert f32(a, b) == i32(py(a, b))
    for a, b in [(I64_MAX, 1), (I64_MIN, -1), (I64_MAX, I64_MAX), (-(1 << 40), 1 << 30)]:
        assert f64(a, b) == i64(py(a, b))


def test_signed_and_unsigned_division():
    assert binop("div_i32_s", "i32")(-7, 2) == -3
    assert binop("rem_i32_s", "i32")(-7, 2) == -1
    assert binop("div_i32_u", "i32")(-2, 2) == 0x7FFFFFFF
    assert binop("rem_i32_u", "i32")(-1, 10) == 0xFFFFFFFF % 10
    assert binop("div_i64_s", "i64")(I64_MIN, 2) == I64_MIN // 2
    assert binop("div_i64_u", "i64")(-1, 3) == i64(((1 << 64) - 1) // 3)
    assert binop("rem_i64_u", "i64")(-1, 10) == ((1 << 64) - 1) % 10


def test_ceildiv():
    cs, cu = binop("ceildiv_i32_s", "i32"), binop("ceildiv_i32_u", "i32")
    assert [cs(7, 2), cs(-7, 2), cs(7, -2), cs(-7, -2), cs(6, 3), cs(0, 5)] == [4, -3, -3, 4, 2, 0]
    assert [cu(7, 2), cu(6, 3), cu(-1, 2)] == [4, 2, i32(0x80000000)]
    assert binop("ceildiv_i64_s", "i64")(I64_MAX, 2) == (1 << 62)
    assert binop("ceildiv_i64_u", "i64")(-1, 1 << 32) == i64(1 << 32)


@pytest.mark.parametrize("name,t,a,b", [
    ("div_i32_s", "i32", 5, 0), ("rem_i32_s", "i32", 5, 0), ("div_i32_u", "i32", 5, 0), ("rem_i32_u", "i32", 5, 0),
    ("div_i64_s", "i64", 5, 0), ("rem_i64_u", "i64", 5, 0), ("ceildiv_i32_s", "i32", 1, 0), ("ceildiv_i64_u", "i64", 1, 0),
    ("div_i32_s", "i32", I32_MIN, -1), ("rem_i32_s", "i32", I32_MIN, -1), ("div_i64_s", "i64", I64_MIN, -1),
    ("rem_i64_s", "i64", I64_MIN, -1), ("ceildiv_i32_s", "i32", I32_MIN, -1),
])
def test_division_traps(name, t, a, b):
    with pytest.raises(VMTrapError) as info:
        binop(name, t)(a, b)
    assert ("division by zero" if b == 0 else "overflow") in str(info.value)
    assert name.replace("_", ".") in str(info.value)


def test_min_max_bitwise():
    assert binop("min_i32_s", "i32")(-1, 1) == -1
    assert binop("min_i32_u", "i32")(-1, 1) == 1
    assert binop("max_i32_u", "i32")(-1, 1) == -1
    assert binop("max_i64_s", "i64")(I64_MIN, 0) == 0
    assert binop("and_i32", "i32")(0b1100, 0b1010) == 0b1000
    assert binop("or_i64", "i64")(1 << 40, 1) == (1 << 40) + 1
    assert binop("xor_i32", "i32")(-1, 0x0F) == ~0x0F
    assert op_function("not_i32", ["i32"], "i32")(0) == -1


def test_shifts_mask_amount():
    shl, sra, srl = binop("shl_i32", "i32"), binop("shr_i32_s", "i32"), binop("shr_i32_u", "i32")
    assert shl(1, 31) == I32_MIN and shl(1, 32) == 1 and shl(3, 33) == 6
    assert sra(-8, 1) == -4 and srl(-8, 1) == 0x7FFFFFFC
    assert binop("shl_i64", "i64")(1, 63) == I64_MIN
    assert binop("shr_i64_u", "i64")(-1, 60) == 15
    assert binop("shr_i64_s", "i64")(-1, 60) == -1


def test_abs_neg():
    assert op_function("abs_i32", ["i32"], "i32")(I32_MIN) == I32_MIN
    assert op_function("abs_i32", ["i32"], "i32")(-5) == 5
    assert op_function("neg_i32", ["i32"], "i32")(I32_MIN) == I32_MIN
    assert op_function("neg_i64", ["i64"], "i64")(5) == -5
    assert op_function("abs_i64", ["i64"], "i64")(I64_MIN) == I64_MIN


def test_compares():
    assert binop("cmp_lt_i32_s", "i32")(-1, 0) == 1
    assert binop("cmp_lt_i32_u", "i32")(-1, 0) == 0
    assert binop("cmp_gte_i64_u", "i64")(-1, 5) == 1
    assert binop("cmp_lte_i32_s", "i32")(3, 3) == 1
    assert binop("cmp_gt_i64_s", "i64")(I64_MIN, I64_MAX) == 0
    assert binop("cmp_ne_i32", "i32")(1, 2) == 1
    assert op_function("cmp_nz_i64", ["i64"], "i32")(1 << 40) == 1


def test_int_conversions():
    assert op_function("trunc_i64_i32", ["i64"], "i32")((1 << 32) + 5) == 5
    assert op_function("trunc_i64_i32", ["i64"], "i32")(0xFFFFFFFF) == -1
    assert op_function("ext_i32_i64_s", ["i32"], "i64")(-1) == -1
    assert op_function("ext_i32_i64_u", ["i32"], "i64")(-1) == 0xFFFFFFFF
    assert op_function("trunc_i32_i8", ["i32"], "i32")(0x1FF) == 0xFF
    assert op_function("ext_i8_i32_s", ["i32"], "i32")(0xFF) == -1
    assert op_function("ext_i16_i32_u", ["i32"], "i32")(-1) == 0xFFFF


def test_select_and_constants():
    from rt.runtime.vm import ModuleBuilder
    from vm_helpers import load

    mb = ModuleBuilder("c")
    fb = mb.function("f", "0i_iIfF", export=True)
    (c,) = fb.args
    a, b, x, y = fb.reg("i32"), fb.reg("i64"), fb.reg("f32"), fb.reg("f64")
    z = fb.reg("i64")
    fb.const_i32(a, 0xFFFFFFFF)
    fb.const_i64(b, I64_MIN + 3)
    fb.const_i64_zero(z)
    fb.select_i64(b, c, b, z)
    fb.const_f32(x, 0.1)
    fb.const_f64(y, 0.1)
    fb.return_([a, b, x, y])
    f = load(mb).lookup_function("c.f")
    import numpy as np

    assert f(1) == (-1, I64_MIN + 3, float(np.float32(0.1)), 0.1)
    assert f(0)[1] == 0
