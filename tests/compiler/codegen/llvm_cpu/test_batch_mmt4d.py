"""batch_mmt4d Generics (kind hint "batch_mmt4d") on the mmt4d tile kernels, vs numpy.

Covers f32, f16 -> f32 and i8 -> i32, a distribution that keeps whole inner tiles (tile
kernels) and one that splits them (the Generic loops at run time), and a body the plan does
not recognize (Generic loops at compile time)."""
import numpy as np
import pytest
from llvmlite import ir

from kernel_helpers import compile_kernels, d, op, run
from rt.compiler.codegen import kernel_ir as kir
from rt.compiler.codegen.llvm_cpu import batch_mmt4d
from rt.compiler.codegen.llvm_cpu.interface import KernelInterface
from rt.compiler.codegen.llvm_cpu.kernel_codegen import KernelContext
from rt.compiler.codegen.llvm_cpu.library import LibraryBuilder
from rt.compiler.codegen.llvm_cpu.target import cpu_target
from rt.devices.llvm_cpu import loader

C = kir.Constant
P, R = "parallel", "reduction"
RNG = np.random.default_rng(17)
NP = {"f32": np.float32, "f16": np.float16, "i8": np.int8, "i32": np.int32}


def _kernel(types, tile, dist, swap_mul=False, body=None):
    in_t, out_t = types
    m0, n0, k0 = tile
    bsz, m1, n1, k1 = C(0), C(1), C(2), C(3)
    lhs = kir.View(0, in_t, (bsz, m1, k1, m0, k0))
    rhs = kir.View(1, in_t, (bsz, n1, k1, n0, k0))
    out = kir.View(2, out_t, (bsz, m1, n1, m0, n0))
    is_float = out_t.startswith("f")
    cast = "arith.extf" if is_float else "arith.extsi"
    zero = op("arith.constant", (), out_t, value=0.0 if is_float else 0)
    fill = kir.Generic((bsz, m1, n1, m0, n0), (P,) * 5, (), (out,), (d(0, 1, 2, 3, 4),), (zero,),
                       (1,), "fill")
    if body is None:
        ops = []
        ids = [0, 1]
        if in_t != out_t:
            ops = [op(cast, (0,), out_t), op(cast, (1,), out_t)]
            ids = [3, 4]
        mul = "arith.mulf" if is_float else "arith.muli"
        add = "arith.addf" if is_float else "arith.addi"
        ops.append(op(mul, tuple(reversed(ids)) if swap_mul else tuple(ids), out_t))
        ops.append(op(add, (3 + len(ops) - 1, 2), out_t))
        body = (tuple(ops), (3 + len(ops) - 1,))
    g = kir.Generic((bsz, m1, n1, k1, m0, n0, k0), (P, P, P, R, P, P, R), (lhs, rhs), (out,),
                    (d(0, 1, 3, 4, 6), d(0, 2, 3, 5, 6), d(0, 1, 2, 4, 5)), body[0], body[1],
                    "batch_mmt4d")
    dims, tiles, fill_dims, mm_dims = dist
    return kir.Kernel("bmmt4d", 3, 4, (fill, g),
                      kir.Distribution(dims, tiles, (fill_dims, mm_dims)))


def _recognized(kernel):
    lb = LibraryBuilder("probe", cpu_target("host"))
    fn = lb.declare_export("probe")
    b = ir.IRBuilder(fn.append_basic_block())
    ctx = KernelContext(b, KernelInterface(b, fn), lb.target, kernel, lb.module)
    return batch_mmt4d.plan(ctx, kernel.ops[1], "probe") is not None


#: (dims, tiles, fill op_dims, batch_mmt4d op_dims): N1 / M1 / B tiles, or N0 split in 4s.
WHOLE = ((2, 1, 0), (2, 2, 1), (2, 1, 0), (2, 1, 0))
SPLIT = ((4, 1), (4, 2), (4, 1), (5, 1))


def _run(types, tile, dist, sizes=(3, 2, 3, 5), cpu="host", **kw):
    k = _kernel(types, tile, dist, **kw)
    bsz, m1, n1, k1 = sizes
    m0, n0, k0 = tile
    lib = compile_kernels([k], cpu=cpu)
    in_np, out_np = NP[types[0]], NP[types[1]]
    if types[0] == "i8":
        a = RNG.integers(-128, 128, (bsz, m1, k1, m0, k0)).astype(in_np)
        b = RNG.integers(-128, 128, (bsz, n1, k1, n0, k0)).astype(in_np)
    else:
        a = RNG.standard_normal((bsz, m1, k1, m0, k0)).astype(in_np)
        b = RNG.standard_normal((bsz, n1, k1, n0, k0)).astype(in_np)
    o = np.full((bsz, m1, n1, m0, n0), 99, out_np)
    dims, tiles = dist[0], dist[1]
    extent = {0: bsz, 1: m1, 2: n1, 3: m0, 4: n0}
    grid = [-(-extent[x] // t) for x, t in zip(dims, tiles)]
    run(lib, 0, [a, b, o], sizes, tuple(grid + [1] * (3 - len(grid))), threads=2)
    want = np.einsum("zmkab,znkcb->zmnac", a.astype(np.float64), b.astype(np.float64))
    if types[1] == "i32":
        np.testing.assert_array_equal(o, want.astype(np.int64).astype(np.int32))
    else:
        np.testing.assert_allclose(o, want, rtol=1e-5, atol=1e-4)
    return k


@pytest.mark.parametrize("types,tile", [(("f32", "f32"), (16, 16, 1)),
                                        (("f16", "f32"), (8, 16, 1)), (("i8", "i32"), (16, 16, 2))])
@pytest.mark.parametrize("dist", [WHOLE, SPLIT], ids=["whole_tiles", "split_tiles"])
def test_batch_mmt4d_matches_numpy(types, tile, dist):
    assert _recognized(_run(types, tile, dist))


def test_operand_order_of_the_multiply_does_not_matter():
    assert _recognized(_run(("f32", "f32"), (16, 16, 1), WHOLE, swap_mul=True))


def test_other_bodies_stay_on_the_generic_loops():
    # out + a - b is not a multiply-add: the Generic loops compute it.
    body = ((op("arith.subf", (0, 1), "f32"), op("arith.addf", (3, 2), "f32")), (4,))
    k = _kernel(("f32", "f32"), (4, 4, 1), WHOLE, body=body)
    assert not _recognized(k)
    lib = compile_kernels([k])
    a = RNG.standard_normal((2, 2, 3, 4, 1)).astype(np.float32)
    b = RNG.standard_normal((2, 2, 3, 4, 1)).astype(np.float32)
    o = np.zeros((2, 2, 2, 4, 4), np.float32)
    run(lib, 0, [a, b, o], (2, 2, 2, 3), (1, 1, 2), threads=2)
    want = (a[..., 0].sum(2)[:, :, None, :, None] - b[..., 0].sum(2)[:, None, :, None, :])
    np.testing.assert_allclose(o, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dist", [WHOLE, SPLIT], ids=["whole_tiles", "split_tiles"])
def test_batch_mmt4d_runs_the_vnni_dot_kernel(dist):
    if "avx512vnni" not in cpu_target("host").features:
        pytest.skip("host has no AVX512-VNNI")
    k = _kernel(("i8", "i32"), (16, 16, 4), dist)
    assert _recognized(k)
    _run(("i8", "i32"), (16, 16, 4), dist)


@pytest.mark.parametrize("host_bits", [0, None], ids=["fallback", "host"])
def test_batch_mmt4d_on_a_portable_target_chooses_at_run_time(host_bits, monkeypatch):
    if host_bits is None and "avx512vnni" not in cpu_target("host").features:
        pytest.skip("host has no AVX512-VNNI")
    if host_bits is not None:
        monkeypatch.setattr(loader, "host_cpu_data", lambda: host_bits)
    _run(("i8", "i32"), (16, 16, 4), WHOLE, cpu="x86-64-v4")
