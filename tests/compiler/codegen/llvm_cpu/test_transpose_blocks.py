"""Transposing copies (llvm_cpu/transpose.py): register-block transposes vs numpy.

Each case builds a copy Generic whose output is contiguous along a loop dim the input is not
(attention's ``K^T``: ``[s, h, d] -> [h, d, s]``, and a plain 2-D transpose), distributes it
so workgroup edges cut the 16x16 blocks at odd places, and checks every element against numpy
(the partial blocks included) and that the LLVM IR transposes with shuffles.
"""
import numpy as np
import pytest

from kernel_helpers import d, grid, run
from rt.compiler.codegen import kernel_ir as kir
from rt.compiler.codegen.llvm_cpu.kernel_codegen import emit_kernel
from rt.compiler.codegen.llvm_cpu.library import LibraryBuilder
from rt.compiler.codegen.llvm_cpu.target import cpu_target
from rt.devices.llvm_cpu import LOADER

C = kir.Constant
P = "parallel"
RNG = np.random.default_rng(31)


def _compile(kernel):
    lb = LibraryBuilder("transpose", cpu_target("host"))
    emit_kernel(lb, kernel)
    text = str(lb.module)
    obj = lb.build()
    return LOADER.load(obj.format, obj.data, obj.metadata), text


def _kernel(rank, in_map, dtype, dist):
    """out[d0, .., d(rank-1)] = in[in_map(d)]: the input's extents are push constants."""
    out_shape = tuple(C(rank + k) for k in range(rank))
    src = kir.View(0, dtype, tuple(C(k) for k in range(rank)))
    dst = kir.View(1, dtype, out_shape)
    g = kir.Generic(out_shape, (P,) * rank, (src,), (dst,), (d(*in_map), d(*range(rank))), (),
                    (0,), "transpose")
    return kir.Kernel("t", 2, 2 * rank, (g,), dist)


@pytest.mark.parametrize("shape,dist_tiles", [
    ((128, 4, 64), (32, 16, 1)),   # attention's K^T at 128 tokens: whole blocks
    ((37, 3, 21), (20, 7, 2)),     # partial blocks along both dims, odd workgroup edges
    ((5, 2, 3), (4, 1, 1)),        # smaller than one block: elements only
])
def test_heads_transpose_matches_numpy(shape, dist_tiles):
    # [s, h, d] -> [h, d, s]: out[h, e, s] = in[s, h, e]
    dist = kir.Distribution((2, 1, 0), dist_tiles, ((2, 1, 0),))
    k = _kernel(3, (2, 0, 1), "f32", dist)
    lib, text = _compile(k)
    x = RNG.standard_normal(shape).astype(np.float32)
    want = x.transpose(1, 2, 0)
    out = np.full(want.shape, np.nan, np.float32)
    run(lib, 0, [x, out], [*shape, *want.shape], grid(k, dict(enumerate(want.shape))), threads=2)
    np.testing.assert_array_equal(out, want)
    assert "shufflevector" in text


@pytest.mark.parametrize("dtype", ["f32", "i32"])
def test_2d_transpose_of_32_bit_elements(dtype):
    dist = kir.Distribution((1, 0), (24, 40), ((1, 0),))
    k = _kernel(2, (1, 0), dtype, dist)
    lib, text = _compile(k)
    x = RNG.integers(-1000, 1000, (53, 70)).astype(np.float32 if dtype == "f32" else np.int32)
    want = np.ascontiguousarray(x.T)
    out = np.zeros_like(want)
    run(lib, 0, [x, out], [53, 70, 70, 53], grid(k, {0: 70, 1: 53}), threads=2)
    np.testing.assert_array_equal(out, want)
    assert "shufflevector" in text
