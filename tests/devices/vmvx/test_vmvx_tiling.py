"""vmvx reductions, mmt4d, pack and unpack against numpy references."""
import numpy as np
import pytest

from rt.devices.vmvx import _ukernels as uk
from vmvx_views import strided, wrap

RNG = np.random.default_rng(99)


@pytest.mark.parametrize("i32", [False, True])
@pytest.mark.parametrize("shape", [(1, 1), (4, 9), (3, 0), (2, 5000)])
def test_reduce_inner_dimension(i32, shape):
    size0, size1 = shape
    dtype = np.int32 if i32 else np.float32
    lay = (2, size1 + 3, 1) if size1 < 100 else (0, 1, size0)  # padded rows / transposed
    n = lay[0] + (size0 - 1) * lay[1] + max(0, size1 - 1) * lay[2] + 1
    if i32:
        flat = RNG.integers(-(2**31), 2**31, n, dtype=np.int64).astype(np.int32)
    else:
        flat = RNG.uniform(-10, 10, n).astype(np.float32)
    a = np.array(strided(flat, *lay, size0, size1))
    for op, name in enumerate(uk.REDUCE_OPS):
        for accumulate in (False, True):
            out = np.full(3 * size0 + 1, 5, dtype)
            uk.reduce_2d(i32, op, wrap(flat), *lay, wrap(out), 1, 3, size0, size1,
                         uk.FLAG_ACCUMULATE if accumulate else 0)
            init = {"sum": 0, "max": np.iinfo(np.int32).min if i32 else -np.inf,
                    "min": np.iinfo(np.int32).max if i32 else np.inf}[name]
            rows = np.concatenate([np.full((size0, 1), 5 if accumulate else init, dtype), a], axis=1)
            if name == "sum" and i32:
                want = (rows.astype(np.int64).sum(axis=1) & 0xFFFFFFFF).astype(np.uint32).view(np.int32)
            elif name == "sum":
                want = np.add.accumulate(rows, axis=1, dtype=np.float32)[:, -1]  # left to right
            else:
                want = (np.max if name == "max" else np.min)(rows, axis=1)
            np.testing.assert_array_equal(out[1::3][:size0], want, err_msg=f"{name} acc={accumulate}")
            np.testing.assert_array_equal(np.delete(out, np.arange(1, 3 * size0, 3)), 5)


def test_reduce_max_f32_propagates_nan():
    a = np.array([[1.0, np.nan, 3.0], [1.0, 2.0, -1.0]], np.float32)
    out = np.zeros(2, np.float32)
    uk.reduce_2d(False, uk.REDUCE_OPS.index("max"), wrap(a), 0, 3, 1, wrap(out), 0, 1, 2, 3, 0)
    assert np.isnan(out[0]) and out[1] == 2.0


def _mmt4d_operands(M, N, K, M0, N0, K0, i8, pad):
    dtype = np.int8 if i8 else np.float32
    def make(rows, tile):
        row = K * tile
        flat = (RNG.integers(-128, 128, rows * (row + pad) + 3).astype(np.int8) if i8
                else RNG.uniform(-1, 1, rows * (row + pad) + 3).astype(np.float32))
        view = np.array(strided(flat, 3, row + pad, 1, rows, row)) if rows else np.zeros((0, row), dtype)
        return flat, view
    lhs_flat, lhs = make(M, M0 * K0)
    rhs_flat, rhs = make(N, N0 * K0)
    return (lhs_flat, lhs.reshape(M, K, M0, K0)), (rhs_flat, rhs.reshape(N, K, N0, K0))


@pytest.mark.parametrize("i8", [False, True])
@pytest.mark.parametrize("dims", [
    (1, 1, 1, 1, 1, 1), (2, 3, 4, 1, 1, 1), (3, 2, 5, 4, 3, 2), (2, 2, 3, 16, 16, 1),
    (1, 3, 2, 8, 4, 4), (2, 2, 0, 3, 3, 3), (3, 1, 7, 7, 5, 3),
])
def test_mmt4d_matches_einsum(i8, dims):
    M, N, K, M0, N0, K0 = dims
    pad = 5
    (lhs_flat, lhs), (rhs_flat, rhs) = _mmt4d_operands(M, N, K, M0, N0, K0, i8, pad)
    acc_t = np.int64 if i8 else np.float64
    prod = np.einsum("mkac,nkbc->mnab", lhs.astype(acc_t), rhs.astype(acc_t))
    out_row = N * M0 * N0
    for accumulate in (False, True):
        out_dtype = np.int32 if i8 else np.float32
        out = np.full(2 + M * (out_row + 2), 3, out_dtype)
        uk.mmt4d(int(i8), wrap(lhs_flat), 3, K * M0 * K0 + pad, wrap(rhs_flat), 3,
                 K * N0 * K0 + pad, wrap(out), 2, out_row + 2, M, N, K, M0, N0, K0,
                 uk.FLAG_ACCUMULATE if accumulate else 0)
        got = np.array(strided(out, 2, out_row + 2, 1, M, out_row)).reshape(M, N, M0, N0)
        want = prod + (3 if accumulate else 0)
        if i8:
            np.testing.assert_array_equal(got, want.astype(np.int32))
        else:
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
        gaps = np.ones(out.size, bool)
        gaps[strided(np.arange(out.size), 2, out_row + 2, 1, M, out_row)] = False
        np.testing.assert_array_equal(out[gaps], 3)


def test_mmt4d_f32_accumulates_in_k_order():
    # 1e8 + 1 - 1e8 in f32 is 0 when summed left to right; a reordered sum could give 1.
    lhs = np.array([1e8, 1.0, -1e8], np.float32)  # [M=1, K=3, M0=1, K0=1]
    rhs = np.ones(3, np.float32)
    out = np.zeros(1, np.float32)
    uk.mmt4d(0, wrap(lhs), 0, 3, wrap(rhs), 0, 3, wrap(out), 0, 1, 1, 1, 3, 1, 1, 1, 0)
    assert out[0] == np.float32(np.float32(np.float32(1e8) + 1) - np.float32(1e8))


def _pack_ref(src, T0, T1, O0, O1, pad, flags):
    S0, S1 = src.shape
    full = np.full((O0 * T0, O1 * T1), pad, src.dtype)
    full[:S0, :S1] = src
    tiles = full.reshape(O0, T0, O1, T1).transpose(0, 2, 1, 3)
    if flags & uk.FLAG_TRANSPOSE_INNER:
        tiles = tiles.transpose(0, 1, 3, 2)
    if flags & uk.FLAG_TRANSPOSE_OUTER:
        tiles = tiles.transpose(1, 0, 2, 3)
    return np.ascontiguousarray(tiles)


PACK_CASES = [((5, 7), (2, 3)), ((8, 8), (4, 4)), ((1, 1), (1, 1)), ((9, 3), (4, 8)), ((0, 4), (2, 2))]
FLAG_SETS = [0, 0x10000, 0x20000, 0x30000]


@pytest.mark.parametrize("dtype,esize", [(np.uint8, 1), (np.uint16, 2), (np.float32, 4), (np.int64, 8)])
@pytest.mark.parametrize("flags", FLAG_SETS)
@pytest.mark.parametrize("case", PACK_CASES)
def test_pack_matches_tensor_pack_and_unpack_round_trips(dtype, esize, flags, case):
    (S0, S1), (T0, T1) = case
    O0, O1 = -(-S0 // T0), -(-S1 // T1)
    src_stride = S1 + 2
    src_flat = (np.arange(1, 4 + S0 * src_stride + 1) % 200).astype(dtype)
    src = np.array(strided(src_flat, 4, src_stride, 1, S0, S1))
    pad = dtype(42)
    pad_bits = int(np.array([pad]).view(np.uint8)[:esize].view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[esize])[0])
    want = _pack_ref(src, T0, T1, O0, O1, pad, flags)
    stored = want.shape
    row = stored[1] * stored[2] * stored[3]
    out = np.full(1 + stored[0] * (row + 3), 7, dtype)
    uk.pack(esize, wrap(src_flat), 4, src_stride, wrap(out), 1, row + 3, S0, S1, *stored, pad_bits, flags)
    got = np.array(strided(out, 1, row + 3, 1, stored[0], row)).reshape(stored)
    np.testing.assert_array_equal(got, want)

    back = np.full(2 + S0 * (S1 + 1), 9, dtype)
    uk.unpack(esize, wrap(out), 1, row + 3, wrap(back), 2, S1 + 1, *stored, S0, S1, flags)
    np.testing.assert_array_equal(np.array(strided(back, 2, S1 + 1, 1, S0, S1)), src)


def test_pack_f32_padding_bits_round_trip_nan_payload():
    src = np.ones((3, 3), np.float32)
    bits = 0x7FC00001  # a quiet NaN with a payload must survive bit-exactly
    out = np.zeros(16, np.float32)
    uk.pack(4, wrap(src), 0, 3, wrap(out), 0, 16, 3, 3, 1, 1, 4, 4, bits, 0)
    tile = out.view(np.uint32).reshape(4, 4)
    np.testing.assert_array_equal(tile[:3, :3], np.float32(1).view(np.uint32))
    np.testing.assert_array_equal(tile[3, :], bits)
    np.testing.assert_array_equal(tile[:, 3], bits)
