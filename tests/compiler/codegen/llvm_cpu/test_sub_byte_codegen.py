"""llvm-cpu kernels on packed i4 / i2 views: element k at bit k * bits of its binding (IREE's
packing), loads extract the bits, stores merge them atomically, so workgroups that share a
byte on a tile boundary (odd tiles, two threads) never lose each other's elements."""
import ml_dtypes
import numpy as np
import pytest

from rt.compiler.codegen import kernel_ir as kir
from rt.runtime.hal.element_type import ElementType, pack_sub_byte, unpack_sub_byte

from kernel_helpers import compile_kernels, d, op, run

P = "parallel"
CODES = {"i4": ElementType.INT_4, "i2": ElementType.INT_2}
DTYPES = {"i4": ml_dtypes.int4, "i2": ml_dtypes.int2}


@pytest.mark.parametrize("t", ["i4", "i2"])
def test_add_then_extsi_over_odd_tiles(t):
    """out_t = a + b (wrapping in t); wide = extsi(out) to i8, with 7-element tiles."""
    n, tile = 53, 7
    bits = int(t[1:])
    va, vb = kir.View(0, t, (n,)), kir.View(1, t, (n,))
    out, wide = kir.View(2, t, (n,)), kir.View(3, "i8", (n,))
    add = kir.Generic((n,), (P,), (va, vb), (out,), (d(0),) * 3, (op("arith.addi", (0, 1), t),), (3,))
    ext = kir.Generic((n,), (P,), (out,), (wide,), (d(0),) * 2, (op("arith.extsi", (0,), "i8"),), (2,))
    kernel = kir.Kernel("k", 4, 0, (add, ext), kir.Distribution((0,), (tile,), ((0,), (0,))))
    lib = compile_kernels([kernel])
    rng = np.random.default_rng(3)
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1))
    a = rng.integers(lo, hi, n).astype(np.int8)
    b = rng.integers(lo, hi, n).astype(np.int8)
    pa, pb = pack_sub_byte(a, CODES[t]), pack_sub_byte(b, CODES[t])
    po = np.full(pa.size, 0xFF, np.uint8)  # every bit set: stale bits must be cleared
    w = np.zeros(n, np.int8)
    run(lib, 0, [pa, pb, po, w], workgroups=(-(-n // tile), 1, 1), threads=2)
    want = (a.astype(np.int64) + b) & ((1 << bits) - 1)
    want = np.where(want >= 1 << (bits - 1), want - (1 << bits), want)
    got = unpack_sub_byte(po, CODES[t], (n,)).astype(np.int8)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(w, want)
    if n * bits % 8:  # the padding bits of the last byte are untouched
        used = (n * bits) % 8
        assert po[-1] >> used == 0xFF >> used


def test_i4_widen_to_float_and_back():
    """uitofp(extui(i4)) and trunci(fptoui(f32)) to i4, transposed 3x5 view."""
    src = kir.View(0, "i4", (3, 5))
    dst = kir.View(1, "f32", (5, 3))
    tmap = (kir.AffineExpr.dim(1), kir.AffineExpr.dim(0))
    body = (op("arith.extui", (0,), "i32"), op("arith.uitofp", (2,), "f32"))
    widen = kir.Generic((5, 3), (P, P), (src,), (dst,), (tmap, d(0, 1)), body, (3,))
    back = kir.Generic((5, 3), (P, P), (dst,), (kir.View(2, "i4", (5, 3)),), (d(0, 1), d(0, 1)),
                       (op("arith.fptoui", (0,), "i32"), op("arith.trunci", (2,), "i4")), (3,))
    lib = compile_kernels([kir.Kernel("k", 3, 0, (widen, back))])
    values = np.arange(15, dtype=np.int8).reshape(3, 5)
    packed = pack_sub_byte(values.astype(ml_dtypes.uint4), ElementType.UINT_4)
    f = np.zeros((5, 3), np.float32)
    o = np.zeros(8, np.uint8)
    run(lib, 0, [packed, f, o])
    np.testing.assert_array_equal(f, values.T.astype(np.float32))
    np.testing.assert_array_equal(unpack_sub_byte(o, ElementType.UINT_4, (5, 3)).astype(np.int8), values.T)
