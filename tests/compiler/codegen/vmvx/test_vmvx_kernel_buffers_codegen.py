"""vmvx codegen of a kernel's own buffers (rodata, workgroup scratch) and of shifted copies
(Distribution.op_offsets), as the dispatch lowering emits them for constants, intermediates
and tensor.pad / concat / insert_slice."""
import numpy as np
import pytest

from rt.compiler.codegen import kernel_ir as kir
from rt.devices.vmvx.module import SCRATCH_LIMIT
from rt.runtime.errors import CompileError, DeviceError
from vmvx_kernel_helpers import CONFIGS, compile_kernels, d, dispatch, op, run, view

RNG = np.random.default_rng(11)
PAR2 = ("parallel",) * 2


def _rodata(array):
    t = {np.float32: "f32", np.int32: "i32", np.int8: "i8"}[array.dtype.type]
    return kir.Rodata(t, array.tobytes())


@pytest.mark.parametrize("config", CONFIGS)
def test_rodata_operands_shared_between_kernels(config):
    # k0: out = in + C (C a 3x5 constant); k1: out = C[:, ::2] * 2 (a strided view of the same data).
    c = RNG.standard_normal((3, 5)).astype(np.float32)
    add = kir.Generic((3, 5), PAR2, (view(0, "f32", (3, 5)), view(2, "f32", (3, 5))), (view(1, "f32", (3, 5)),),
                      (d(0, 1),) * 3, (op("arith.addf", (0, 1), "f32"),), (3,), "elementwise")
    k0 = kir.Kernel("add_const", 2, 0, (add,), kir.Distribution((1, 0), (2, 2), ((1, 0),)), ("ro", "wo"),
                    rodata=(_rodata(c),))
    dbl = kir.Generic((3, 3), PAR2, (view(1, "f32", (3, 3), 0, (5, 2)),), (view(0, "f32", (3, 3)),), (d(0, 1),) * 2,
                      (op("arith.constant", (), "f32", value=2.0), op("arith.mulf", (0, 2), "f32")), (3,), "generic")
    k1 = kir.Kernel("double_const", 1, 0, (dbl,), binding_access=("wo",), rodata=(_rodata(c),))
    exe = compile_kernels([k0, k1], config)
    x = RNG.standard_normal((3, 5)).astype(np.float32)
    out0, out1 = np.zeros((3, 5), np.float32), np.zeros((3, 3), np.float32)
    run(exe, 0, [x, out0], workgroups=(3, 2, 1))
    run(exe, 1, [out1])
    np.testing.assert_array_equal(out0, x + c)
    np.testing.assert_array_equal(out1, c[:, ::2] * 2)


def test_writing_rodata_is_a_compile_error():
    fill = kir.Generic((4,), ("parallel",), (), (view(1, "i32", (4,)),), (d(0),),
                       (op("arith.constant", (), "i32", value=1),), (1,), "fill")
    k = kir.Kernel("bad", 1, 0, (fill,), binding_access=("wo",), rodata=(kir.Rodata("i32", bytes(16)),))
    with pytest.raises(CompileError, match=r"kernel 'bad' op 0 \(Generic\): writes rodata 0"):
        compile_kernels([k])


def _softmax_ops(m, n, scratch):
    """row max into scratch [m], then out = exp(in - max[row])."""
    fill = kir.Generic((m,), ("parallel",), (), (view(scratch, "f32", (m,)),), (d(0),),
                       (op("arith.constant", (), "f32", value=-np.inf),), (1,), "fill")
    red = kir.Generic((m, n), ("parallel", "reduction"), (view(0, "f32", (m, n)),), (view(scratch, "f32", (m,)),),
                      (d(0, 1), d(0)), (op("arith.maximumf", (0, 1), "f32"),), (2,), "reduction")
    sub = kir.Generic((m, n), PAR2, (view(0, "f32", (m, n)), view(scratch, "f32", (m,))), (view(1, "f32", (m, n)),),
                      (d(0, 1), d(0), d(0, 1)), (op("arith.subf", (0, 1), "f32"), op("math.exp", (3,), "f32")),
                      (4,), "elementwise")
    return fill, red, sub


def _softmax_want(x):
    return np.exp(x - x.max(axis=1, keepdims=True))


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("tiled", [False, True])
def test_row_max_in_workgroup_scratch_with_dynamic_rows(config, tiled):
    m, n = kir.Constant(0), 13
    ops = _softmax_ops(m, n, 2)
    if tiled:
        dist = kir.Distribution((0,), (4,), ((0,), (0,), (0,)), extents=(m,))
        scratch = kir.Scratch("f32", (m,), (0,))
    else:
        dist = kir.Distribution()
        scratch = kir.Scratch("f32", (m,))
    k = kir.Kernel("softmax_rows", 2, 1, ops, dist, ("ro", "wo"), scratch=(scratch,))
    x = (RNG.standard_normal((10, n)) * 30).astype(np.float32)
    out = np.zeros_like(x)
    dispatch(k, [x, out], (10,) if tiled else (), constants=(10,), config=config)
    np.testing.assert_allclose(out, _softmax_want(x), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("config", CONFIGS)
def test_f16_matmul_accumulating_in_tiled_f32_scratch(config):
    # The kernel rt's lowering emits for an f16 x f16 -> f32 accumulate -> f16 matmul-like generic.
    m, n, kk = 3, 9, 5
    acc = 3  # the scratch: numbered after the 3 bindings
    fill = kir.Generic((m, n), PAR2, (), (view(acc, "f32", (m, n)),), (d(0, 1),),
                       (op("arith.constant", (), "f32", value=0.0),), (1,), "fill")
    mm = kir.Generic((m, n, kk), ("parallel", "parallel", "reduction"),
                     (view(0, "f16", (m, kk)), view(1, "f16", (kk, n))), (view(acc, "f32", (m, n)),),
                     (d(0, 2), d(2, 1), d(0, 1)),
                     (op("arith.extf", (0,), "f32"), op("arith.extf", (1,), "f32"), op("arith.mulf", (3, 4), "f32"),
                      op("arith.addf", (5, 2), "f32")), (6,), "reduction")
    trunc = kir.Generic((m, n), PAR2, (view(acc, "f32", (m, n)),), (view(2, "f16", (m, n)),), (d(0, 1),) * 2,
                        (op("arith.truncf", (0,), "f16"),), (2,), "elementwise")
    dist = kir.Distribution((1,), (4,), ((1,), (1,), (1,)), extents=(n,))
    k = kir.Kernel("f16_mm", 3, 0, (fill, mm, trunc), dist, ("ro", "ro", "wo"),
                   scratch=(kir.Scratch("f32", (m, n), (None, 0)),))
    a = RNG.standard_normal((m, kk)).astype(np.float16)
    b = RNG.standard_normal((kk, n)).astype(np.float16)
    out = np.zeros((m, n), np.float16)
    dispatch(k, [a, b, out], (n,), config=config)
    want = (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16)
    np.testing.assert_allclose(out.astype(np.float32), want.astype(np.float32), rtol=1e-3, atol=1e-3)


def test_scratch_misuse_and_limits():
    m = 8
    ops = _softmax_ops(m, 4, 2)
    dist = kir.Distribution((0,), (4,), ((0,), (0,), (0,)))
    # a tiled scratch must be read along its distributed dim
    bad_read = kir.Generic((m, 4), PAR2, (view(0, "f32", (m, 4)), view(2, "f32", (m,))), (view(1, "f32", (m, 4)),),
                           (d(0, 1), d(1), d(0, 1)), (op("arith.subf", (0, 1), "f32"),), (3,), "elementwise")
    k = kir.Kernel("k", 2, 0, ops[:2] + (bad_read,), dist, ("ro", "wo"), scratch=(kir.Scratch("f32", (m,), (0,)),))
    with pytest.raises(CompileError, match=r"scratch 0 is tiled along axis 0 at dim 0, so the op must index that "
                                           r"dim with exactly its distributed loop dim d0"):
        compile_kernels([k])
    big = SCRATCH_LIMIT // 4 + 1
    k = kir.Kernel("k", 2, 0, _softmax_ops(big, 4, 2), kir.Distribution(), ("ro", "wo"),
                   scratch=(kir.Scratch("f32", (big,)),))
    with pytest.raises(CompileError, match=rf"kernel 'k' needs {big * 4} bytes of workgroup scratch; the vmvx "
                                           rf"limit is {SCRATCH_LIMIT}"):
        compile_kernels([k])
    dyn = kir.Constant(0)
    k = kir.Kernel("k", 2, 1, _softmax_ops(dyn, 4, 2), kir.Distribution(), ("ro", "wo"),
                   scratch=(kir.Scratch("f32", (kir.Expr("mul", (dyn, dyn)),)),))
    x, out = np.zeros((3, 4), np.float32), np.zeros((3, 4), np.float32)
    exe = compile_kernels([k])
    with pytest.raises(DeviceError, match=rf"vmvx.buffer.alloc: workgroup scratch needs more than the "
                                          rf"{SCRATCH_LIMIT}-byte limit"):
        run(exe, 0, [x, out], constants=(2**16,))
    run(exe, 0, [x, out], constants=(3,))
    np.testing.assert_array_equal(out, np.ones((3, 4), np.float32))


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("dynamic", [False, True])
def test_pad_as_fill_plus_shifted_copy(config, dynamic):
    # out = pad(x, ((1, 1), (2, 3)), 7.0): fill the whole output, copy x into a sub-view at (1, 2);
    # the copy's loop dims play root index i + offset (Distribution.op_offsets).
    h, w = 5, 6
    oh, ow = h + 2, w + 5
    top = kir.Constant(0) if dynamic else 1
    left = kir.Constant(1) if dynamic else 2
    offset = kir.Expr("add", (kir.Expr("mul", (top, ow)), left))
    fill = kir.Generic((oh, ow), PAR2, (), (view(1, "f32", (oh, ow)),), (d(0, 1),),
                       (op("arith.constant", (), "f32", value=7.0),), (1,), "fill")
    copy = kir.Generic((h, w), PAR2, (view(0, "f32", (h, w)),), (view(1, "f32", (h, w), offset, (ow, 1)),),
                       (d(0, 1),) * 2, (), (0,), "copy")
    dist = kir.Distribution((1, 0), (4, 3), ((1, 0), (1, 0)), ((0, 0), (left, top)), (ow, oh))
    k = kir.Kernel("pad", 2, 2 if dynamic else 0, (fill, copy), dist, ("ro", "wo"))
    x = RNG.standard_normal((h, w)).astype(np.float32)
    out = np.zeros((oh, ow), np.float32)
    dispatch(k, [x, out], (ow, oh), constants=(1, 2) if dynamic else (), config=config)
    np.testing.assert_array_equal(out, np.pad(x, ((1, 1), (2, 3)), constant_values=7.0))


@pytest.mark.parametrize("config", CONFIGS)
def test_concat_as_two_shifted_copies(config):
    a = RNG.integers(-9, 9, (4, 3), dtype=np.int32)
    b = RNG.integers(-9, 9, (4, 8), dtype=np.int32)
    w = 11
    ca = kir.Generic((4, 3), PAR2, (view(0, "i32", (4, 3)),), (view(2, "i32", (4, 3), 0, (w, 1)),), (d(0, 1),) * 2,
                     (), (0,), "copy")
    cb = kir.Generic((4, 8), PAR2, (view(1, "i32", (4, 8)),), (view(2, "i32", (4, 8), 3, (w, 1)),), (d(0, 1),) * 2,
                     (), (0,), "copy")
    dist = kir.Distribution((1, 0), (2, 3), ((1, 0), (1, 0)), ((0, 0), (3, 0)), (w, 4))
    k = kir.Kernel("concat", 3, 0, (ca, cb), dist, ("ro", "ro", "wo"))
    out = np.zeros((4, w), np.int32)
    dispatch(k, [a, b, out], (w, 4), config=config)
    np.testing.assert_array_equal(out, np.concatenate([a, b], axis=1))
