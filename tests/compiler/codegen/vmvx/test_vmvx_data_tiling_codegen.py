"""vmvx codegen of pack, unpack and mmt4d, plus errors for malformed kernels and bad bindings."""
import numpy as np
import pytest

from rt.compiler.codegen import kernel_ir as kir
from rt.runtime.errors import CompileError, DeviceError
from vmvx_kernel_helpers import CONFIGS, compile_kernels, d, dispatch, op, run, view

RNG = np.random.default_rng(2)


def _pack_ref(src, t0, t1, pad, transpose_inner, transpose_outer):
    s0, s1 = src.shape
    o0, o1 = -(-s0 // t0), -(-s1 // t1)
    full = np.full((o0 * t0, o1 * t1), pad, src.dtype)
    full[:s0, :s1] = src
    packed = full.reshape(o0, t0, o1, t1).transpose(0, 2, 1, 3)
    if transpose_outer:
        packed = packed.transpose(1, 0, 2, 3)
    if transpose_inner:
        packed = packed.transpose(0, 1, 3, 2)
    return np.ascontiguousarray(packed)


@pytest.mark.parametrize("inner,outer", [((0, 1), None), ((1, 0), (1, 0)), ((0, 1), (1, 0))])
def test_pack_then_unpack_round_trips_with_padding(inner, outer):
    s0, s1, t0, t1 = 13, 10, 4, 3
    src = RNG.standard_normal((s0, s1)).astype(np.float32)
    want = _pack_ref(src, t0, t1, -7.0, inner == (1, 0), outer == (1, 0))
    tiles = (t0, t1) if inner == (0, 1) else (t1, t0)
    pack = kir.Pack(view(0, "f32", (s0, s1)), view(1, "f32", want.shape), inner, tiles, outer, -7.0)
    unpack = kir.Unpack(view(1, "f32", want.shape), view(2, "f32", (s0, s1)), inner, tiles, outer)
    packed = np.zeros(want.shape, np.float32)
    back = np.zeros((s0, s1), np.float32)
    exe = compile_kernels([kir.Kernel("pack", 2, 0, (pack,), kir.Distribution((1, 0), (2, 3), ((1, 0),))),
                           kir.Kernel("unpack", 3, 0, (unpack,), kir.Distribution((1, 0), (5, 6), ((1, 0),)))])
    run(exe, 0, [src, packed], workgroups=(-(-want.shape[1] // 2), -(-want.shape[0] // 3), 1))
    np.testing.assert_array_equal(packed, want)
    run(exe, 1, [np.zeros(1, np.float32), packed, back], workgroups=(2, 3, 1))
    np.testing.assert_array_equal(back, src)


def test_pack_single_inner_dim_i8():
    src = RNG.integers(-100, 100, (5, 9), dtype=np.int64).astype(np.int8)
    pack = kir.Pack(view(0, "i8", (5, 9)), view(1, "i8", (5, 3, 4)), (1,), (4,), None, 0)
    out = np.full((5, 3, 4), 99, np.int8)
    dispatch(kir.Kernel("p", 2, 0, (pack,)), [src, out])
    want = np.zeros((5, 12), np.int8)
    want[:, :9] = src
    np.testing.assert_array_equal(out, want.reshape(5, 3, 4))


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("types,accumulate", [(("f32", "f32", "f32"), False), (("f32", "f32", "f32"), True),
                                              (("i8", "i8", "i32"), False)])
def test_mmt4d(config, types, accumulate):
    m1, n1, k1, m0, n0, k0 = 3, 5, 4, 4, 2, 3
    if types[0] == "f32":
        lhs = RNG.standard_normal((m1, k1, m0, k0)).astype(np.float32)
        rhs = RNG.standard_normal((n1, k1, n0, k0)).astype(np.float32)
        out = RNG.standard_normal((m1, n1, m0, n0)).astype(np.float32)
    else:
        lhs = RNG.integers(-128, 128, (m1, k1, m0, k0), dtype=np.int64).astype(np.int8)
        rhs = RNG.integers(-128, 128, (n1, k1, n0, k0), dtype=np.int64).astype(np.int8)
        out = np.full((m1, n1, m0, n0), 5, np.int32)
    want = np.einsum("mkac,nkbc->mnab", lhs.astype(np.float64), rhs.astype(np.float64))
    if accumulate:
        want += out
    mm = kir.Mmt4d(view(0, types[0], lhs.shape), view(1, types[1], rhs.shape), view(2, types[2], out.shape),
                   accumulate)
    dispatch(kir.Kernel("mmt4d", 3, 0, (mm,), kir.Distribution((1, 0), (2, 2), ((1, 0),)), ("ro", "ro", "rw")),
             [lhs, rhs, out], (n1, m1), config=config)
    if types[2] == "i32":
        np.testing.assert_array_equal(out, want.astype(np.int32))
    else:
        np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)


def _add_kernel(body=None, bindings=3, access=("ro", "ro", "wo")):
    g = kir.Generic((8,), ("parallel",), (view(0, "f32", (8,)), view(1, "f32", (8,))), (view(2, "f32", (8,)),),
                    (d(0),) * 3, body or (op("arith.addf", (0, 1), "f32"),), (3,), "elementwise")
    return kir.Kernel("add", bindings, 0, (g,), binding_access=access)


def test_malformed_kernels_raise_compile_errors_naming_the_kernel():
    with pytest.raises(CompileError, match=r"kernel 'add' has no buffer 2: 2 bindings, 0 rodata, 0 scratch"):
        compile_kernels([_add_kernel(bindings=2, access=("ro", "ro"))])
    with pytest.raises(CompileError, match=r"math.copysign has result type i32; expected a float type"):
        compile_kernels([_add_kernel((op("math.copysign", (0, 1), "i32"),))], "no-ukernels")
    with pytest.raises(CompileError, match=r"body op 0 \(arith.addf\) uses value\(s\) \[5\]"):
        compile_kernels([_add_kernel((op("arith.addf", (0, 5), "f32"),))])
    with pytest.raises(CompileError, match="writes binding 2, which the kernel declares read-only"):
        compile_kernels([_add_kernel(access=("ro", "ro", "ro"))])
    with pytest.raises(CompileError, match="arith.addf has result type i32; expected a float type"):
        compile_kernels([_add_kernel((op("arith.addf", (0, 1), "i32"),))], "no-ukernels")
    with pytest.raises(CompileError, match=r"op 0 \(Generic\) does not type-check: .*select.f32"):
        compile_kernels([_add_kernel((op("arith.select", (0, 0, 1), "f32"),))], "no-ukernels")


@pytest.mark.parametrize("config", CONFIGS)
def test_too_small_binding_fails_the_dispatch_instead_of_writing_past_it(config):
    exe = compile_kernels([_add_kernel()], config)
    a, b, out = np.ones(8, np.float32), np.ones(8, np.float32), np.zeros(9, np.float32)
    with pytest.raises(DeviceError, match="out of bounds"):
        run(exe, 0, [a, b, out[:7]])
    assert out[7] == 0 and out[8] == 0
