"""f16 / bf16 mmt4d fast path (mmt4d.emit_tiles with narrow operands): f16 x f16 -> f32 against
a float64 reference, f16 x f16 -> f16 accumulating in f16 (bit for bit), bf16 x bf16 -> f32;
with and without F16C, accumulating or not."""
import ml_dtypes
import numpy as np
import pytest
from llvmlite import ir

from kernel_helpers import compile_kernels, run
from rt.compiler.codegen import kernel_ir as kir
from rt.compiler.codegen.llvm_cpu import mmt4d
from rt.compiler.codegen.llvm_cpu.interface import KernelInterface
from rt.compiler.codegen.llvm_cpu.kernel_codegen import KernelContext
from rt.compiler.codegen.llvm_cpu.library import LibraryBuilder
from rt.compiler.codegen.llvm_cpu.target import cpu_target

C = kir.Constant
RNG = np.random.default_rng(13)
NP = {"f16": np.float16, "f32": np.float32}


def _kernel(out_type, tile, accumulate, in_type="f16"):
    m0, n0, k0 = tile
    lhs = kir.View(0, in_type, (C(0), C(2), m0, k0))
    rhs = kir.View(1, in_type, (C(1), C(2), n0, k0))
    out = kir.View(2, out_type, (C(0), C(1), m0, n0))
    return kir.Kernel("mmt4d_f16", 3, 3, (kir.Mmt4d(lhs, rhs, out, accumulate),),
                      kir.Distribution((1, 0), (2, 2), ((1, 0),)))


def _fast(kernel, cpu):
    lb = LibraryBuilder("probe", cpu_target(cpu))
    fn = lb.declare_export("probe")
    b = ir.IRBuilder(fn.append_basic_block())
    ctx = KernelContext(b, KernelInterface(b, fn), lb.target, kernel, lb.module)
    return mmt4d.plan(ctx, kernel.ops[0], "probe").fast


@pytest.mark.parametrize("out_type", ["f32", "f16"])
@pytest.mark.parametrize("accumulate", [False, True])
@pytest.mark.parametrize("cpu,tile", [("host", (16, 16, 1)), ("x86-64", (8, 4, 1)),
                                      ("x86-64-v3", (8, 8, 1))])
def test_f16_mmt4d_matches_float64(out_type, accumulate, cpu, tile):
    m1, n1, k1 = 3, 4, 37
    m0, n0, k0 = tile
    k = _kernel(out_type, tile, accumulate)
    assert _fast(k, cpu)
    lib = compile_kernels([k], cpu=cpu)
    a = RNG.standard_normal((m1, k1, m0, k0)).astype(np.float16)
    b = RNG.standard_normal((n1, k1, n0, k0)).astype(np.float16)
    start = RNG.standard_normal((m1, n1, m0, n0)).astype(NP[out_type])
    o = start.copy()
    run(lib, 0, [a, b, o], [m1, n1, k1], (2, 2, 1), threads=2)
    want = np.einsum("mkab,nkcb->mnac", a.astype(np.float64), b.astype(np.float64))
    if accumulate:
        want = want + start.astype(np.float64)
    if out_type == "f32":
        np.testing.assert_allclose(o, want, rtol=1e-5, atol=1e-5)
    else:
        # The accumulator is the output's type: the sum rounded to f16 at every step (the
        # product of two f16 is exact in f32), k ascending, as IREE's f16 ukernel; bit for bit.
        acc = start.copy() if accumulate else np.zeros_like(start)
        for kk in range(k1):
            for k0_ in range(k0):
                prod = np.einsum("ma,nc->mnac", a[:, kk, :, k0_].astype(np.float32),
                                 b[:, kk, :, k0_].astype(np.float32))
                acc = (acc.astype(np.float32) + prod).astype(np.float16)
        np.testing.assert_array_equal(o, acc)


def test_f16_special_values_survive_the_conversions():
    k = _kernel("f16", (16, 16, 1), False)
    lib = compile_kernels([k])
    a = np.zeros((1, 1, 16, 1), np.float16)
    b = np.zeros((1, 1, 16, 1), np.float16)
    a[0, 0, :, 0] = [1, -1, np.inf, 0, 6e-8, 65504, 2, 1, 1, 1, 1, 1, 1, 1, 1, np.nan]
    b[0, 0, :, 0] = 1
    b[0, 0, 1, 0] = 1.0684  # 65504 * 1.0684 overflows f16: inf
    o = np.zeros((1, 1, 16, 16), np.float16)
    run(lib, 0, [a, b, o], [1, 1, 1], (1, 1, 1))
    want = (a[0, 0, :, 0].astype(np.float32)[:, None] * b[0, 0, :, 0].astype(np.float32)[None, :])
    with np.errstate(over="ignore"):
        want = want.astype(np.float16)
    assert np.isinf(want[5, 1])
    np.testing.assert_array_equal(o[0, 0], want)


@pytest.mark.parametrize("cpu,tile", [("host", (16, 16, 1)), ("x86-64", (8, 4, 1))])
def test_bf16_mmt4d_widens_exactly_into_f32(cpu, tile):
    m1, n1, k1 = 2, 3, 29
    m0, n0, k0 = tile
    k = _kernel("f32", tile, False, "bf16")
    assert _fast(k, cpu)
    lib = compile_kernels([k], cpu=cpu)
    a = RNG.standard_normal((m1, k1, m0, k0)).astype(ml_dtypes.bfloat16)
    b = RNG.standard_normal((n1, k1, n0, k0)).astype(ml_dtypes.bfloat16)
    o = np.zeros((m1, n1, m0, n0), np.float32)
    run(lib, 0, [a, b, o], [m1, n1, k1], (2, 2, 1), threads=2)
    want = np.einsum("mkab,nkcb->mnac", a.astype(np.float64), b.astype(np.float64))
    np.testing.assert_allclose(o, want, rtol=1e-5, atol=1e-5)


def test_bf16_mmt4d_accumulates_in_bf16():
    """bf16 x bf16 -> bf16: the running sum rounded to bf16 every step, bit for bit."""
    m1, n1, k1 = 2, 2, 33
    k = _kernel("bf16", (16, 16, 1), True, "bf16")
    assert _fast(k, "host")
    lib = compile_kernels([k])
    a = RNG.standard_normal((m1, k1, 16, 1)).astype(ml_dtypes.bfloat16)
    b = RNG.standard_normal((n1, k1, 16, 1)).astype(ml_dtypes.bfloat16)
    start = RNG.standard_normal((m1, n1, 16, 16)).astype(ml_dtypes.bfloat16)
    o = start.copy()
    run(lib, 0, [a, b, o], [m1, n1, k1], (2, 2, 1))
    acc = start.copy()
    for kk in range(k1):
        prod = np.einsum("ma,nc->mnac", a[:, kk, :, 0].astype(np.float32), b[:, kk, :, 0].astype(np.float32))
        acc = (acc.astype(np.float32) + prod).astype(ml_dtypes.bfloat16)
    np.testing.assert_array_equal(o.view(np.uint16), acc.view(np.uint16))
