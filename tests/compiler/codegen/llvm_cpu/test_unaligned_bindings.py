"""llvm-cpu kernels assume only element alignment of binding pointers.

Every vector path (elementwise with the polynomial exp, the register-tiled matmul, f32 and
integer mmt4d, pack row copies and tile transposes, unpack) runs on bindings whose addresses
are 4 bytes past a 64-byte boundary and gives the same bytes as on 64-byte aligned ones, so a
runtime may hand such host memory (numpy's default 16-byte alignment) to a dispatch as is.
"""
import numpy as np
import pytest

from kernel_helpers import compile_kernels, d, op, run
from rt.compiler.codegen import kernel_ir as kir

C = kir.Constant
P, R = "parallel", "reduction"
RNG = np.random.default_rng(9)


def _placed(array, skew):
    """A copy of ``array`` whose data starts ``skew`` bytes past a 64-byte boundary."""
    raw = np.empty(array.nbytes + 128, np.uint8)
    start = (-raw.ctypes.data) % 64 + skew
    out = raw[start:start + array.nbytes].view(array.dtype).reshape(array.shape)
    out[...] = array
    assert out.ctypes.data % 64 == skew
    return out


def _elementwise():
    v = [kir.View(i, "f32", (C(0),)) for i in range(3)]
    body = (op("arith.mulf", (0, 0), "f32"), op("math.exp", (3,), "f32"),
            op("arith.addf", (4, 1), "f32"))
    g = kir.Generic((C(0),), (P,), (v[0], v[1]), (v[2],), (d(0),) * 3, body, (5,), "elementwise")
    k = kir.Kernel("ew", 3, 1, (g,), kir.Distribution((0,), (256,), ((0,),)))
    n = 1000
    arrays = [RNG.standard_normal(n).astype(np.float32) for _ in range(2)]
    arrays.append(np.zeros(n, np.float32))
    return k, arrays, [n], (-(-n // 256), 1, 1)


def _matmul():
    m, n, kk = 37, 45, 29
    a, b, c = (kir.View(0, "f32", (m, kk)), kir.View(1, "f32", (kk, n)), kir.View(2, "f32", (m, n)))
    body = (op("arith.mulf", (0, 1), "f32"), op("arith.addf", (2, 3), "f32"))
    g = kir.Generic((m, n, kk), (P, P, R), (a, b), (c,), (d(0, 2), d(2, 1), d(0, 1)), body, (4,),
                    "matmul")
    k = kir.Kernel("mm", 3, 0, (g,), kir.Distribution((1, 0), (16, 8), ((1, 0),)))
    arrays = [RNG.standard_normal((m, kk)).astype(np.float32),
              RNG.standard_normal((kk, n)).astype(np.float32), np.zeros((m, n), np.float32)]
    return k, arrays, [], (3, 5, 1)


def _mmt4d(etype, out_type, tile):
    m1, n1, k1 = 3, 2, 9
    m0, n0, k0 = tile
    lhs, rhs = kir.View(0, etype, (m1, k1, m0, k0)), kir.View(1, etype, (n1, k1, n0, k0))
    out = kir.View(2, out_type, (m1, n1, m0, n0))
    k = kir.Kernel("mmt4d", 3, 0, (kir.Mmt4d(lhs, rhs, out),), kir.Distribution((1, 0), (1, 1),
                                                                               ((1, 0),)))
    dt = np.float32 if etype == "f32" else np.int8
    gen = (lambda s: RNG.standard_normal(s).astype(dt)) if etype == "f32" else (
        lambda s: RNG.integers(-128, 128, s).astype(dt))
    arrays = [gen((m1, k1, m0, k0)), gen((n1, k1, n0, k0)),
              np.zeros((m1, n1, m0, n0), np.float32 if out_type == "f32" else np.int32)]
    return k, arrays, [], (n1, m1, 1)


def _pack(inner_dims_pos, perm):
    m, n = 37, 45
    # LHS layout (0, 1): [ceil(m/16), n, 16, 1]; RHS (1, 0) permuted: [ceil(n/16), m, 16, 1]
    outer = [-(-m // 16), n] if inner_dims_pos == (0, 1) else [-(-n // 16), m]
    packed = kir.View(1, "f32", (*outer, 16, 1))
    pk = kir.Pack(kir.View(0, "f32", (m, n)), packed, inner_dims_pos, (16, 1), perm, 0.0)
    k = kir.Kernel("pack", 2, 0, (pk,), kir.Distribution((1, 0), (32, 2), ((1, 0),)))
    arrays = [RNG.standard_normal((m, n)).astype(np.float32), np.zeros((*outer, 16, 1), np.float32)]
    return k, arrays, [], (-(-outer[1] // 32), -(-outer[0] // 2), 1)


def _unpack():
    src, dest = kir.View(0, "f32", (3, 3, 16, 16)), kir.View(1, "f32", (37, 45))
    k = kir.Kernel("unpack", 2, 0, (kir.Unpack(src, dest, (0, 1), (16, 16)),),
                   kir.Distribution((1, 0), (2, 2), ((1, 0),)))
    arrays = [RNG.standard_normal((3, 3, 16, 16)).astype(np.float32),
              np.zeros((37, 45), np.float32)]
    return k, arrays, [], (2, 2, 1)


@pytest.mark.parametrize("case", [
    _elementwise, _matmul, lambda: _mmt4d("f32", "f32", (16, 16, 1)),
    lambda: _mmt4d("i8", "i32", (16, 16, 2)), lambda: _pack((0, 1), None),
    lambda: _pack((1, 0), (1, 0)), _unpack],
    ids=["elementwise", "matmul", "mmt4d_f32", "mmt4d_i8", "pack_lhs", "pack_rhs", "unpack"])
def test_kernels_accept_element_aligned_bindings(case):
    kernel, arrays, constants, grid = case()
    lib = compile_kernels([kernel])
    aligned = [_placed(a, 0) for a in arrays]
    skewed = [_placed(a, 4) for a in arrays]
    run(lib, 0, aligned, constants, grid, threads=2)
    run(lib, 0, skewed, constants, grid, threads=2)
    np.testing.assert_array_equal(skewed[-1], aligned[-1])
    assert np.any(aligned[-1] != arrays[-1])
