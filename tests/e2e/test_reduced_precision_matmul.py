"""bf16 x bf16 -> f32 and i8 x i8 -> i32 matmuls end to end, exact against numpy.

The forms JAX and PyTorch emit: ``linalg.matmul`` with bf16 (i8) operands and an f32 (i32)
result, and ``arith.extf`` of bf16 operands feeding an f32 matmul. Compiled for the host
(AVX512-BF16 / VNNI dot-product kernels where the host has them, ``mmt4d_dot``), for
x86-64-v4 (the dot-product layouts; each object picks the dot kernel or the widening loops
from the host's features at run time: the fallback branch is exercised in
tests/compiler/codegen/llvm_cpu/test_mmt4d_dot.py), for x86-64-v3 (the AVX2 widening
kernels, which run on this host whatever it has) and for vmvx. bf16 inputs are small integers, so every product and partial sum is exact in f32
and every path must give numpy's result bit for bit; i8 inputs span the full range with
rows and columns of -128. Sizes are not multiples of the tiles (padding is exercised).
"""
import ml_dtypes
import numpy as np
import pytest

import rt

pytestmark = pytest.mark.slow
TARGETS = [("llvm-cpu", "local-task://llvm-cpu"), ("llvm-cpu:x86-64-v4", "local-task://llvm-cpu"),
           ("llvm-cpu:x86-64-v3", "local-sync://llvm-cpu"), ("vmvx", "local-sync://vmvx")]
M, K, N = 37, 70, 45


def _source(m, k, n):
    def t(rows, cols, ty):
        return f"tensor<{rows}x{cols}x{ty}>"

    def matmul(name, lhs, rhs, out, zero, body=""):
        a, b = ("%ae", "%be") if body else ("%a", "%b")
        ins_ty = "f32" if body else lhs
        return f"""
func.func @{name}(%a: {t(m, k, lhs)}, %b: {t(k, n, rhs)}) -> {t(m, n, out)} {{{body}
  %z = arith.constant {zero} : {out}
  %e = tensor.empty() : {t(m, n, out)}
  %i = linalg.fill ins(%z : {out}) outs(%e : {t(m, n, out)}) -> {t(m, n, out)}
  %c = linalg.matmul ins({a}, {b} : {t(m, k, ins_ty)}, {t(k, n, ins_ty)}) outs(%i : {t(m, n, out)}) -> {t(m, n, out)}
  return %c : {t(m, n, out)}
}}"""
    extf = f"""
  %ae = arith.extf %a : {t(m, k, "bf16")} to {t(m, k, "f32")}
  %be = arith.extf %b : {t(k, n, "bf16")} to {t(k, n, "f32")}"""
    return (matmul("bf16_f32", "bf16", "bf16", "f32", "0.0")
            + matmul("bf16_extf_f32", "bf16", "bf16", "f32", "0.0", extf)
            + matmul("i8_i32", "i8", "i8", "i32", "0"))


@pytest.fixture(scope="module", params=TARGETS, ids=[t for t, _ in TARGETS])
def module(request):
    target, uri = request.param
    return rt.load(rt.compile(_source(M, K, N), devices=[target]), devices=[uri])


def _bf16_inputs(seed):
    rng = np.random.default_rng(seed)
    return (rng.integers(-64, 64, (M, K)).astype(ml_dtypes.bfloat16),
            rng.integers(-64, 64, (K, N)).astype(ml_dtypes.bfloat16))


@pytest.mark.parametrize("fn", ["bf16_f32", "bf16_extf_f32"])
def test_bf16_matmul_accumulates_exactly_in_f32(module, fn):
    a, b = _bf16_inputs(1)
    got = np.asarray(getattr(module, fn)(a, b))
    want = a.astype(np.float64) @ b.astype(np.float64)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, want.astype(np.float32))


def test_bf16_matmul_rounds_nothing_but_the_inputs(module):
    # products of 8-bit mantissas and sums of 70 of them below 2**24: exact in f32
    a = np.full((M, K), 255.0, np.float32).astype(ml_dtypes.bfloat16)
    b = np.full((K, N), -1.0 / 128, np.float32).astype(ml_dtypes.bfloat16)
    got = np.asarray(module.bf16_f32(a, b))
    np.testing.assert_array_equal(got, np.full((M, N), -255.0 * K / 128, np.float32))


def test_i8_matmul_covers_the_full_range(module):
    rng = np.random.default_rng(2)
    a = rng.integers(-128, 127, (M, K), endpoint=True).astype(np.int8)
    b = rng.integers(-128, 127, (K, N), endpoint=True).astype(np.int8)
    a[0], b[:, 0], a[1], b[:, 1] = -128, -128, 127, -128
    got = np.asarray(module.i8_i32(a, b))
    want = a.astype(np.int64) @ b.astype(np.int64)
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, want.astype(np.int32))
    assert got[0, 0] == 128 * 128 * K and got[1, 1] == -127 * 128 * K
