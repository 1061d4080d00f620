"""Dot-product mmt4d kernels (mmt4d_dot.py): bf16 x bf16 -> f32 with VDPBF16PS (16x16x2) and
i8 x i8 -> i32 with VPDPBUSD (16x16x4), exact against numpy (bf16 inputs whose products and
sums are exact in f32; i8 over the full range, -128 included), accumulating or not; chosen
for targets with the feature, at run time for portable AVX-512 targets (x86-64-v4: both
branches run here, the fallback by faking the host's bits), never for named CPUs without
it. Running the dot kernels needs the host to have the feature."""
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
from rt.compiler.codegen.llvm_cpu.kernel_codegen import emit_kernel
from rt.devices.llvm_cpu import abi, loader
from rt.devices.llvm_cpu.abi import RUNTIME_FEATURES
from rt.devices.llvm_cpu.cpu_features import host_cpu_data, host_cpu_features
from rt.devices.llvm_cpu.testing import emit_empty
from rt.runtime.errors import ModuleFormatError

C = kir.Constant
RNG = np.random.default_rng(22)
#: kind -> (input type, output type, tile, host feature)
KINDS = {"bf16": ("bf16", "f32", (16, 16, 2), "avx512bf16"),
         "i8": ("i8", "i32", (16, 16, 4), "avx512vnni")}


def _kernel(kind, accumulate, tile=None):
    in_type, out_type, default, _ = KINDS[kind]
    m0, n0, k0 = tile or default
    lhs = kir.View(0, in_type, (C(0), C(2), m0, k0))
    rhs = kir.View(1, in_type, (C(1), C(2), n0, k0))
    out = kir.View(2, out_type, (C(0), C(1), m0, n0))
    return kir.Kernel("mmt4d_dot", 3, 3, (kir.Mmt4d(lhs, rhs, out, accumulate),),
                      kir.Distribution((1, 0), (2, 3), ((1, 0),)))


def _dot(kernel, cpu):
    lb = LibraryBuilder("probe", cpu_target(cpu))
    fn = lb.declare_export("probe")
    b = ir.IRBuilder(fn.append_basic_block())
    ctx = KernelContext(b, KernelInterface(b, fn), lb.target, kernel, lb.module)
    return mmt4d.plan(ctx, kernel.ops[0], "probe").dot


def _inputs(kind, shape_a, shape_b, extreme):
    if kind == "bf16":  # small integers: every product and partial sum is exact in f32
        return (RNG.integers(-64, 64, shape_a).astype(ml_dtypes.bfloat16),
                RNG.integers(-64, 64, shape_b).astype(ml_dtypes.bfloat16))
    if extreme:
        return np.full(shape_a, -128, np.int8), np.full(shape_b, -128, np.int8)
    return (RNG.integers(-128, 127, shape_a, endpoint=True).astype(np.int8),
            RNG.integers(-128, 127, shape_b, endpoint=True).astype(np.int8))


def _check(kind, cpu, accumulate=False, extreme=False, sizes=(3, 5, 7), tile=None):
    m1, n1, k1 = sizes
    _, out_type, default, _ = KINDS[kind]
    m0, n0, k0 = tile or default
    kernel = _kernel(kind, accumulate, tile)
    lib = compile_kernels([kernel], cpu=cpu)
    a, b = _inputs(kind, (m1, k1, m0, k0), (n1, k1, n0, k0), extreme)
    dtype = np.int32 if kind == "i8" else np.float32
    start = RNG.integers(-1000, 1000, (m1, n1, m0, n0)).astype(dtype)
    o = start.copy()
    run(lib, 0, [a, b, o], [m1, n1, k1], (-(-n1 // 2), -(-m1 // 3), 1), threads=2)
    want = np.einsum("mkab,nkcb->mnac", a.astype(np.int64), b.astype(np.int64))
    if accumulate:
        want = want + start
    if kind == "i8":
        np.testing.assert_array_equal(o, (want & 0xFFFFFFFF).astype(np.uint32).view(np.int32))
    else:
        np.testing.assert_array_equal(o, want.astype(np.float32))
    return kernel


def _needs(kind):
    feature = KINDS[kind][3]
    if feature not in host_cpu_features():
        pytest.skip(f"host has no {feature}")


@pytest.mark.parametrize("kind", ["bf16", "i8"])
@pytest.mark.parametrize("accumulate", [False, True])
def test_dot_kernel_is_exact(kind, accumulate):
    _needs(kind)
    kernel = _check(kind, "host", accumulate)
    assert _dot(kernel, "host") == kind


def test_vpdpbusd_bias_wraps_like_i32_arithmetic():
    _needs("i8")
    _check("i8", "host", accumulate=True, extreme=True, sizes=(2, 2, 5))
    _check("i8", "host", sizes=(1, 1, 4100), tile=(16, 32, 4))


@pytest.mark.parametrize("kind", ["bf16", "i8"])
def test_named_cpus_without_the_feature_take_the_widening_loops(kind):
    cpu = {"bf16": "cascadelake", "i8": "skylake-avx512"}[kind]
    kernel = _check(kind, cpu)
    assert _dot(kernel, cpu) is None
    assert _dot(kernel, "sapphirerapids") == kind


@pytest.mark.parametrize("kind", ["bf16", "i8"])
@pytest.mark.parametrize("host_bits", [0, None], ids=["fallback", "host"])
def test_portable_target_chooses_the_kernel_at_run_time(kind, host_bits, monkeypatch):
    # x86-64-v4 lacks both features: its object requires neither, carries the dot kernel and
    # the widening loops, and runs the one the host's bits (written by the loader) select
    if host_bits is None:
        _needs(kind)
    else:
        monkeypatch.setattr(loader, "host_cpu_data", lambda: host_bits)
    kernel = _check(kind, "x86-64-v4", accumulate=True)
    assert _dot(kernel, "x86-64-v4") == kind
    lb = LibraryBuilder("probe", cpu_target("x86-64-v4"))
    emit_kernel(lb, kernel)
    obj = lb.build()
    assert KINDS[kind][3] not in obj.metadata["cpu_features"]
    assert abi.HOST_CPU_DATA_SYMBOL.encode() in obj.data


def test_host_cpu_data_names_the_runtime_features():
    have = host_cpu_features()
    assert host_cpu_data() == sum(1 << i for i, f in enumerate(RUNTIME_FEATURES) if f in have)
    assert set(RUNTIME_FEATURES) == {kind[3] for kind in KINDS.values()}


def test_tiles_the_instruction_cannot_take_are_not_dot_kernels():
    assert _dot(_kernel("bf16", False, (16, 8, 2)), "znver4") is None
    assert _dot(_kernel("i8", False, (16, 16, 2)), "znver4") is None
    assert _dot(_kernel("bf16", False, (16, 16, 1)), "znver4") is None


@pytest.mark.parametrize("constant", [False, True])
def test_loader_rejects_a_host_cpu_data_symbol_it_cannot_write(constant):
    lb = LibraryBuilder("bad", cpu_target("x86-64-v4"))
    emit_empty(lb)
    ty = ir.IntType(64 if constant else 32)
    data = ir.GlobalVariable(lb.module, ty, abi.HOST_CPU_DATA_SYMBOL)
    data.initializer, data.global_constant = ty(0), constant
    obj = lb.build()
    with pytest.raises(ModuleFormatError, match="rt_host_cpu_data.*writable section"):
        loader.LOADER.load(obj.format, obj.data, obj.metadata)
