"""Integer mmt4d fast path (mmt4d_int.py): i8/i16 x -> i32 with K0 = 2 via pmaddwd, exact
against numpy for every pmaddwd width (AVX-512BW, AVX2, SSE2 targets), extreme values and
accumulation; tiles it does not take stay on the generic path and are exact too."""
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
RNG = np.random.default_rng(5)
NP = {"i8": np.int8, "i16": np.int16}


def _kernel(etype, m0, n0, k0, accumulate):
    lhs = kir.View(0, etype, (C(0), C(2), m0, k0))
    rhs = kir.View(1, etype, (C(1), C(2), n0, k0))
    out = kir.View(2, "i32", (C(0), C(1), m0, n0))
    return kir.Kernel("mmt4d_int", 3, 3, (kir.Mmt4d(lhs, rhs, out, accumulate),),
                      kir.Distribution((1, 0), (2, 3), ((1, 0),)))


def _int_lanes(kernel, cpu):
    lb = LibraryBuilder("probe", cpu_target(cpu))
    fn = lb.declare_export("probe")
    b = ir.IRBuilder(fn.append_basic_block())
    ctx = KernelContext(b, KernelInterface(b, fn), lb.target, kernel, lb.module)
    return mmt4d.plan(ctx, kernel.ops[0], "probe").int_lanes


def _check(etype, tile, cpu, accumulate=False, extreme=False, sizes=(3, 5, 7)):
    m1, n1, k1 = sizes
    m0, n0, k0 = tile
    k = _kernel(etype, m0, n0, k0, accumulate)
    lib = compile_kernels([k], cpu=cpu)
    info = np.iinfo(NP[etype])
    if extreme:
        a = np.full((m1, k1, m0, k0), info.min, NP[etype])
        b = np.full((n1, k1, n0, k0), info.min, NP[etype])
    else:
        a = RNG.integers(info.min, info.max, (m1, k1, m0, k0), endpoint=True).astype(NP[etype])
        b = RNG.integers(info.min, info.max, (n1, k1, n0, k0), endpoint=True).astype(NP[etype])
    start = RNG.integers(-1000, 1000, (m1, n1, m0, n0)).astype(np.int32)
    o = start.copy()
    run(lib, 0, [a, b, o], [m1, n1, k1], (-(-n1 // 2), -(-m1 // 3), 1), threads=2)
    want = np.einsum("mkab,nkcb->mnac", a.astype(np.int64), b.astype(np.int64))
    if accumulate:
        want = want + start
    np.testing.assert_array_equal(o, (want & 0xFFFFFFFF).astype(np.uint32).view(np.int32))
    return k


@pytest.mark.parametrize("etype", ["i8", "i16"])
@pytest.mark.parametrize("cpu,tile,lanes", [("host", (16, 16, 2), 16), ("x86-64-v3", (8, 8, 2), 8),
                                            ("x86-64", (8, 4, 2), 4)])
def test_pmaddwd_tiles_match_numpy(etype, cpu, tile, lanes):
    if cpu == "host" and "avx512bw" not in cpu_target("host").features:
        pytest.skip("host has no AVX-512BW")
    k = _check(etype, tile, cpu)
    assert _int_lanes(k, cpu) == lanes


@pytest.mark.parametrize("etype", ["i8", "i16"])
def test_extreme_values_wrap_like_i32_arithmetic_and_accumulate(etype):
    _check(etype, (4, 16, 2), "host", accumulate=True, extreme=True, sizes=(2, 2, 5))
    _check(etype, (16, 8, 2), "host", accumulate=True)


def test_narrow_n_or_other_k0_stays_on_the_generic_path():
    k = _check("i8", (16, 2, 2), "host")
    assert _int_lanes(k, "host") is None
    k = _check("i8", (8, 8, 3), "host")
    assert _int_lanes(k, "host") is None


@pytest.mark.parametrize("etype", ["i8", "i16"])
@pytest.mark.parametrize("cpu,tile,lanes", [("x86-64-v4", (16, 16, 4), 16), ("x86-64-v3", (8, 8, 4), 8)])
def test_k0_4_takes_two_pmaddwd_per_row(etype, cpu, tile, lanes):
    k = _check(etype, tile, cpu, accumulate=True)
    assert _int_lanes(k, cpu) == lanes
    _check(etype, tile, cpu, extreme=True, sizes=(1, 1, 3))
