"""mmt4d with a K0-major RHS view (what a matmul reading a propagated packed LHS uses): the
RHS bytes ``[N1, K, N0]`` of a K0 = 1 packing read as ``[N1, K1, N0, K0]`` with strides
``(K*N0, K0*N0, 1, N0)`` take the register-tiled kernel and match numpy."""
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

RNG = np.random.default_rng(29)


def _kernel(m1, n1, k1, tile, rhs_strides):
    m0, n0, k0 = tile
    lhs = kir.View(0, "f32", (m1, k1, m0, k0))
    rhs = kir.View(1, "f32", (n1, k1, n0, k0), strides=rhs_strides)
    out = kir.View(2, "f32", (m1, n1, m0, n0))
    return kir.Kernel("mm", 3, 0, (kir.Mmt4d(lhs, rhs, out, False),), kir.Distribution((1, 0), (2, 2), ((1, 0),)))


def _fast(kernel):
    lb = LibraryBuilder("probe", cpu_target("host"))
    fn = lb.declare_export("probe")
    b = ir.IRBuilder(fn.append_basic_block())
    ctx = KernelContext(b, KernelInterface(b, fn), lb.target, kernel, lb.module)
    return mmt4d.plan(ctx, kernel.ops[0], "probe").fast


@pytest.mark.parametrize("tile", [(16, 16, 16), (8, 8, 8), (16, 16, 4)])
def test_k_major_rhs_matches_numpy(tile):
    m1, n1, k1 = 3, 5, 7
    m0, n0, k0 = tile
    k = _kernel(m1, n1, k1, tile, (k1 * k0 * n0, k0 * n0, 1, n0))
    assert _fast(k)
    a = RNG.standard_normal((m1, k1, m0, k0)).astype(np.float32)
    b = RNG.standard_normal((n1, k1 * k0, n0)).astype(np.float32)  # a K0 = 1 packing
    out = np.zeros((m1, n1, m0, n0), np.float32)
    run(compile_kernels([k]), 0, [a, b, out], workgroups=(3, 2, 1))
    lhs = a.transpose(0, 2, 1, 3).reshape(m1 * m0, k1 * k0).astype(np.float64)
    rhs = b.transpose(1, 0, 2).reshape(k1 * k0, n1 * n0).astype(np.float64)
    want = (lhs @ rhs).reshape(m1, m0, n1, n0).transpose(0, 2, 1, 3)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)


def test_other_rhs_strides_take_the_generic_loops():
    m1, n1, k1 = 2, 2, 3
    k = _kernel(m1, n1, k1, (4, 4, 2), (k1 * 8 + 1, 8, 2, 1))
    assert not _fast(k)
