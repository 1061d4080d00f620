"""Kernel IR features built by hand -> llvm-cpu: vectorized reductions, rodata, scratch,
shifted distribution (op_offsets) and push-constant scalars, all against numpy at odd sizes."""
import numpy as np
import pytest
from llvmlite import ir

from kernel_helpers import compile_kernels, d, grid_of, op, run
from rt.compiler.codegen import kernel_ir as kir
from rt.compiler.codegen.llvm_cpu import reduction
from rt.compiler.codegen.llvm_cpu.buffers import SCRATCH_LIMIT
from rt.compiler.codegen.llvm_cpu.interface import KernelInterface
from rt.compiler.codegen.llvm_cpu.kernel_codegen import KernelContext
from rt.compiler.codegen.llvm_cpu.library import LibraryBuilder
from rt.compiler.codegen.llvm_cpu.target import cpu_target
from rt.runtime.errors import CompileError, DeviceError

C = kir.Constant
P, R = "parallel", "reduction"
RNG = np.random.default_rng(3)


def _uses_reduction_plan(kernel):
    lb = LibraryBuilder("probe", cpu_target("host"))
    fn = lb.declare_export("probe")
    b = ir.IRBuilder(fn.append_basic_block())
    ctx = KernelContext(b, KernelInterface(b, fn), lb.target, kernel, lb.module)
    return isinstance(reduction.plan(ctx, kernel.ops[0], "probe"), reduction.ReductionPlan)


def _row_reduce(combine, etype, init_first=True):
    x, out = kir.View(0, etype, (C(0), C(1))), kir.View(1, etype, (C(0),))
    body = (op(combine, (1, 0) if init_first else (0, 1), etype),)
    g = kir.Generic((C(0), C(1)), (P, R), (x,), (out,), (d(0, 1), d(0)), body, (2,), "reduction")
    return kir.Kernel("rows", 2, 2, (g,), kir.Distribution((0,), (8,), ((0,),), extents=(C(0),)))


@pytest.mark.parametrize("combine,etype,ref,init", [
    ("arith.addf", "f32", lambda a, i: i + a.sum(1, dtype=np.float64), 1.5),
    ("arith.maximumf", "f32", lambda a, i: np.maximum(i, a.max(1)), -np.inf),
    ("arith.minnumf", "f64", lambda a, i: np.minimum(i, a.min(1)), np.inf),
    ("arith.mulf", "f64", lambda a, i: i * np.prod(a, 1), 1.0),
    ("arith.addi", "i32", lambda a, i: (i + a.sum(1, dtype=np.int64)).astype(np.int32), 7),
    ("arith.maxsi", "i16", lambda a, i: np.maximum(i, a.max(1)), -5),
    ("arith.xori", "i8", lambda a, i: np.bitwise_xor.reduce(a, 1) ^ np.int8(i), 3),
])
@pytest.mark.parametrize("m,n", [(13, 1037), (5, 3), (9, 64)])
def test_inner_reductions_are_vectorized_and_match_numpy(combine, etype, ref, init, m, n):
    k = _row_reduce(combine, etype)
    assert _uses_reduction_plan(k)
    dtype = np.dtype({"f32": np.float32, "f64": np.float64, "i32": np.int32, "i16": np.int16,
                      "i8": np.int8}[etype])
    if dtype.kind == "f":
        a = (RNG.standard_normal((m, n)) * (0.01 if combine == "arith.mulf" else 1)).astype(dtype)
        if combine == "arith.mulf":
            a += 1
    else:
        a = RNG.integers(-50, 50, (m, n)).astype(dtype)
    out = np.full(m, init, dtype)
    run(compile_kernels([k]), 0, [a, out], [m, n], grid_of(k, [m, n]), threads=2)
    expect = ref(a, dtype.type(init))
    if dtype.kind == "f":
        # A reordered sum's error is bounded by n * eps * sum|a|, not by the (possibly
        # cancelled) result: the random draws depend on which tests ran first in this worker.
        atol = n * np.finfo(dtype).eps * np.abs(a).sum(1).max() if combine == "arith.addf" else 0
        np.testing.assert_allclose(out, expect, rtol=1e-5 if etype == "f32" else 1e-12, atol=atol)
    else:
        np.testing.assert_array_equal(out, expect)


def test_vectorized_max_propagates_nan_and_matvec_uses_fused_accumulators():
    k = _row_reduce("arith.maximumf", "f32")
    a = RNG.standard_normal((4, 101)).astype(np.float32)
    a[1, 77] = np.nan
    out = np.full(4, -np.inf, np.float32)
    run(compile_kernels([k]), 0, [a, out], [4, 101], grid_of(k, [4, 101]))
    assert np.isnan(out[1]) and np.array_equal(out[[0, 2, 3]], a[[0, 2, 3]].max(1))
    A, x, y = kir.View(0, "f32", (C(0), C(1))), kir.View(1, "f32", (C(1),)), kir.View(2, "f32", (C(0),))
    body = (op("arith.mulf", (0, 1), "f32"), op("arith.addf", (2, 3), "f32"))
    mv = kir.Generic((C(0), C(1)), (P, R), (A, x), (y,), (d(0, 1), d(1), d(0)), body, (4,), "matvec")
    kmv = kir.Kernel("mv", 3, 2, (mv,), kir.Distribution((0,), (16,), ((0,),), extents=(C(0),)))
    assert _uses_reduction_plan(kmv)
    m, n = 45, 1003
    av, xv, yv = (RNG.standard_normal((m, n)).astype(np.float32),
                  RNG.standard_normal(n).astype(np.float32), np.zeros(m, np.float32))
    run(compile_kernels([kmv]), 0, [av, xv, yv], [m, n], grid_of(kmv, [m, n]), threads=2)
    np.testing.assert_allclose(yv, av.astype(np.float64) @ xv, rtol=1e-4, atol=1e-4)


def test_rodata_scratch_offsets_and_push_constant_scalars_together():
    # out[i, j] = (rows[i] + table[j]) * s, rows = sum_k x[i, k] in a tiled scratch, written
    # into a shifted sub-view of the output (offset c along dim 0); s is push constant 2. The
    # final op reads rows shifted by c, so the row sums cannot be tiled: every workgroup
    # computes them all into its private scratch.
    m, n, kk, c = C(0), 5, C(1), 3
    table = np.array([1.0, -2.0, 0.5, 4.0, 8.0], np.float32)
    x = kir.View(0, "f32", (m, kk))
    out = kir.View(1, "f32", (kir.Expr("add", (m, c)), n))
    part = kir.View(1, "f32", (m, n), offset=c * n, strides=(n, 1))
    rows = kir.View(3, "f32", (m,))
    tab = kir.View(2, "f32", (n,))
    fill0 = kir.Generic((kir.Expr("add", (m, c)), n), (P, P), (), (out,), (d(0, 1),),
                        (op("arith.constant", (), "f32", value=-1.0),), (1,), "fill")
    zero = kir.Generic((m,), (P,), (), (rows,), (d(0),), (op("arith.constant", (), "f32", value=0.0),),
                       (1,), "fill")
    red = kir.Generic((m, kk), (P, R), (x,), (rows,), (d(0, 1), d(0)),
                      (op("arith.addf", (0, 1), "f32"),), (2,), "reduction")
    body = (op("arith.addf", (0, 1), "f32"), op("hal.interface.constant.load", (), "i32", ordinal=2),
            op("arith.bitcast", (4,), "f32"), op("arith.mulf", (3, 5), "f32"))
    final = kir.Generic((m, n), (P, P), (rows, tab), (part,), (d(0), d(1), d(0, 1)), body, (6,),
                        "elementwise")
    dist = kir.Distribution((0,), (4,), ((0,), (None,), (None,), (0,)), ((0,), (0,), (0,), (c,)),
                            (kir.Expr("add", (m, c)),))
    k = kir.Kernel("features", 2, 3, (fill0, zero, red, final), dist, (),
                   (kir.Rodata("f32", table.tobytes()),), (kir.Scratch("f32", (m,)),))
    assert k.rodata_binding(0) == 2 and k.scratch_binding(0) == 3
    M, K = 23, 37
    xs = RNG.standard_normal((M, K)).astype(np.float32)
    o = np.zeros((M + c, n), np.float32)
    s = np.float32(0.5)
    consts = [M, K, int(np.array([s]).view(np.uint32)[0])]
    run(compile_kernels([k]), 0, [xs, o], consts, grid_of(k, consts), threads=2)
    expect = np.full((M + c, n), -1.0, np.float32)
    expect[c:] = (xs.sum(1, keepdims=True) + table) * s
    np.testing.assert_allclose(o, expect, rtol=1e-5, atol=1e-5)


def _scratch_kernel(extent, tiled=(), name="scratch"):
    v = kir.View(1, "f32", (extent,))
    s = kir.View(2, "f32", (extent,))
    fill = kir.Generic((extent,), (P,), (), (s,), (d(0),), (op("arith.constant", (), "f32", value=2.0),),
                       (1,), "fill")
    copy = kir.Generic((extent,), (P,), (s,), (v,), (d(0), d(0)), (), (0,), "copy")
    dist = kir.Distribution((0,), (64,), ((0,), (0,)), extents=(extent,)) if tiled else kir.Distribution()
    return kir.Kernel(name, 2, 1, (fill, copy), dist, (), (), (kir.Scratch("f32", (extent,), tiled),))


def test_scratch_limits_are_compile_errors_or_dispatch_failures():
    with pytest.raises(CompileError, match="bytes of workgroup scratch"):
        compile_kernels([_scratch_kernel(SCRATCH_LIMIT)])
    lib = compile_kernels([_scratch_kernel(C(0)), _scratch_kernel(C(0), (0,), "tiled")])
    out = np.zeros(1000, np.float32)
    run(lib, 0, [out, out], [1000])
    np.testing.assert_array_equal(out, 2.0)
    with pytest.raises(DeviceError):
        big = np.zeros(SCRATCH_LIMIT // 4 + 1, np.float32)
        run(lib, 0, [big, big], [big.size])
    tiled = np.zeros(SCRATCH_LIMIT, np.float32)
    run(lib, 1, [tiled, tiled], [tiled.size], (tiled.size // 64, 1, 1), threads=2)
    assert np.all(tiled == 2.0)


@pytest.mark.parametrize("mutate,message", [
    (lambda k: kir.Kernel(k.name, 2, 1, k.ops[:1] + (kir.Generic(
        (C(0),), (P,), (k.ops[1].inputs[0],), (k.ops[1].outputs[0],), (d(0), d(0)), (), (0,),
        "copy"),), kir.Distribution((0,), (64,), ((0,), (None,)), extents=(C(0),)), (), (),
        k.scratch), "tiled along axis 0"),
    (lambda k: kir.Kernel(k.name, 2, 1, (kir.Generic((4,), (P,), (), (kir.View(2, "f32", (4,)),),
                                                     (d(0),), (op("arith.constant", (), "f32", value=1.0),),
                                                     (1,), "fill"),), kir.Distribution(), (),
                          (kir.Rodata("f32", b"\0" * 16),)), "writes rodata"),
])
def test_malformed_buffer_uses_are_compile_errors(mutate, message):
    with pytest.raises(CompileError, match=message):
        compile_kernels([mutate(_scratch_kernel(C(0), (0,)))])
