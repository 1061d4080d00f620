"""vmvx codegen of Pack / Unpack beyond the 2-D microkernels (batch dims, 1-D and 3-D tilings,
strided views) and of workgroup-distributed unpacks; Mmt4d with mixed element types."""
import numpy as np
import pytest

from rt.compiler.codegen import kernel_ir as kir
from rt.runtime.errors import CompileError
from vmvx_kernel_helpers import CONFIGS, compile_kernels, dispatch, run, view

RNG = np.random.default_rng(5)


def pack_ref(src, pos, tiles, perm=None, pad=0):
    """numpy linalg.pack: tile plain dims ``pos`` by ``tiles``, outer dims permuted by ``perm``."""
    r = src.ndim
    perm = tuple(range(r)) if perm is None else tuple(perm)
    tile_of = dict(zip(pos, tiles))
    padded_shape = [-(-n // tile_of[s]) * tile_of[s] if s in tile_of else n for s, n in enumerate(src.shape)]
    full = np.full(padded_shape, pad, src.dtype)
    full[tuple(slice(0, n) for n in src.shape)] = src
    split, axis_of_outer, axis_of_inner = [], {}, {}
    for s, n in enumerate(padded_shape):
        axis_of_outer[s] = len(split)
        if s in tile_of:
            split += [n // tile_of[s], tile_of[s]]
            axis_of_inner[s] = len(split) - 1
        else:
            split.append(n)
    blocked = full.reshape(split)
    order = [axis_of_outer[s] for s in perm] + [axis_of_inner[s] for s in pos]
    return np.ascontiguousarray(blocked.transpose(order))


_CASES = [
    # (plain shape, inner_dims_pos, inner_tiles, outer_dims_perm, distributed packed dims, tiles)
    ((2, 13, 10), (1, 2), (4, 3), None, (2, 1), (2, 3)),       # batch dim + 2-D tiling
    ((3, 7, 5), (2, 1), (2, 4), (0, 2, 1), (2, 1, 0), (1, 2, 1)),  # batch, transposed tiles and outer dims
    ((10,), (0,), (4,), None, (0,), (2,)),                      # 1-D
    ((5, 6, 7), (0, 1, 2), (2, 4, 3), (2, 0, 1), (1, 0), (2, 2)),  # 3-D tiling
]


@pytest.mark.parametrize("shape,pos,tiles,perm,dims,wg_tiles", _CASES)
def test_nd_pack_and_unpack_round_trip(shape, pos, tiles, perm, dims, wg_tiles):
    src = RNG.standard_normal(shape).astype(np.float32)
    src.flat[0] = -0.0
    want = pack_ref(src, pos, tiles, perm, pad=np.float32(-7.5))
    pack = kir.Pack(view(0, "f32", shape), view(1, "f32", want.shape), pos, tiles, perm, -7.5)
    unpack = kir.Unpack(view(0, "f32", want.shape), view(1, "f32", shape), pos, tiles, perm)
    dist = kir.Distribution(dims, wg_tiles, (dims,))
    exe = compile_kernels([kir.Kernel("pack", 2, 0, (pack,), dist, ("ro", "wo")),
                           kir.Kernel("unpack", 2, 0, (unpack,), dist, ("ro", "wo"))])
    grid = [-(-want.shape[d] // t) for d, t in zip(dims, wg_tiles)]
    grid = tuple(grid + [1] * (3 - len(grid)))
    packed = np.full(want.shape, np.nan, np.float32)
    run(exe, 0, [src, packed], workgroups=grid)
    np.testing.assert_array_equal(packed, want)
    assert np.signbit(packed.flat[0])
    back = np.full(shape, np.nan, np.float32)
    run(exe, 1, [packed, back], workgroups=grid)
    np.testing.assert_array_equal(back, src)


@pytest.mark.parametrize("strided", [False, True])
def test_unpack_distributed_over_packed_outer_dims(strided):
    # 37x20 plain, 8x4 tiles -> 5x5 outer tiles; 2x2 outer tiles per workgroup, 3x3 workgroups.
    # strided: the plain destination is every other column of a wider buffer (no microkernel).
    plain = RNG.integers(-1000, 1000, (37, 20), dtype=np.int32)
    packed = pack_ref(plain, (0, 1), (8, 4))
    dest = view(1, "i32", (37, 20), 0, (40, 2)) if strided else view(1, "i32", (37, 20))
    unpack = kir.Unpack(view(0, "i32", packed.shape), dest, (0, 1), (8, 4))
    dist = kir.Distribution((1, 0), (2, 2), ((1, 0),), extents=(5, 5))
    out = np.zeros((37, 40) if strided else (37, 20), np.int32)
    dispatch(kir.Kernel("unpack", 2, 0, (unpack,), dist, ("ro", "wo")), [packed, out], (5, 5))
    np.testing.assert_array_equal(out[:, ::2] if strided else out, plain)
    if strided:
        assert not out[:, 1::2].any()


def test_i8_pack_with_strided_source_and_i64_elements():
    src = RNG.integers(-100, 100, (6, 9), dtype=np.int64).astype(np.int8)
    wide = np.zeros((6, 18), np.int8)
    wide[:, ::2] = src
    want = pack_ref(src, (1, 0), (4, 2), (1, 0), pad=np.int8(-1))
    pack = kir.Pack(view(0, "i8", (6, 9), 0, (18, 2)), view(1, "i8", want.shape), (1, 0), (4, 2), (1, 0), -1)
    out = np.zeros(want.shape, np.int8)
    dispatch(kir.Kernel("p8", 2, 0, (pack,)), [wide, out])
    np.testing.assert_array_equal(out, want)
    big = RNG.integers(-2**62, 2**62, (3, 5), dtype=np.int64)
    want = pack_ref(big, (1,), (2,))
    pack = kir.Pack(view(0, "i64", (3, 5)), view(1, "i64", want.shape), (1,), (2,))
    out = np.ones(want.shape, np.int64)
    dispatch(kir.Kernel("p64", 2, 0, (pack,)), [big, out])
    np.testing.assert_array_equal(out, want)


def test_malformed_pack_layouts_are_compile_errors():
    src = view(0, "f32", (2, 13, 10))
    cases = [
        (kir.Pack(src, view(1, "f32", (2, 4, 4, 4)), (1, 2), (4, 3)), r"packed rank 4 must be plain rank 3 \+ 2"),
        (kir.Pack(src, view(1, "f32", (2, 4, 4, 4, 3)), (1, 1), (4, 3)), r"inner_dims_pos \(1, 1\) are not valid"),
        (kir.Pack(src, view(1, "f32", (2, 3, 4, 4, 3)), (1, 2), (4, 3)),
         r"outer dim 1 of the packed view has extent 3, expected 4 for plain dim 1 of extent 13"),
        (kir.Pack(src, view(1, "f32", (2, 4, 4, 4, 2)), (1, 2), (4, 3)),
         r"inner dim 1 of the packed view has extent 2, expected the tile 3"),
        (kir.Pack(src, view(1, "i32", (2, 4, 4, 4, 3)), (1, 2), (4, 3)), r"element types f32 and i32 differ"),
    ]
    for pack, message in cases:
        with pytest.raises(CompileError, match=message):
            compile_kernels([kir.Kernel("bad", 2, 0, (pack,))])


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("types", [("f16", "f16", "f32"), ("i8", "i8", "i64"), ("i32", "i32", "i32"),
                                   ("i8", "i16", "i32"), ("f32", "f32", "f64")])
def test_mmt4d_with_other_element_types_converts_inputs_to_the_output_type(config, types):
    m1, n1, k1, m0, n0, k0 = 2, 3, 3, 4, 2, 2
    dt = {"f16": np.float16, "f32": np.float32, "f64": np.float64, "i8": np.int8, "i16": np.int16,
          "i32": np.int32, "i64": np.int64}

    def make(shape, t):
        if t[0] == "f":
            return RNG.standard_normal(shape).astype(dt[t])
        return RNG.integers(-100, 100, shape).astype(dt[t])
    lhs, rhs = make((m1, k1, m0, k0), types[0]), make((n1, k1, n0, k0), types[1])
    out = np.full((m1, n1, m0, n0), 3, dt[types[2]])
    mm = kir.Mmt4d(view(0, types[0], lhs.shape), view(1, types[1], rhs.shape), view(2, types[2], out.shape))
    dispatch(kir.Kernel("mm", 3, 0, (mm,), kir.Distribution((1, 0), (2, 1), ((1, 0),)), ("ro", "ro", "wo")),
             [lhs, rhs, out], (n1, m1), config=config)
    want = np.einsum("mkac,nkbc->mnab", lhs.astype(dt[types[2]]), rhs.astype(dt[types[2]]))
    if types[2][0] == "f":
        np.testing.assert_allclose(out, want, rtol=1e-6, atol=1e-6)
    else:
        np.testing.assert_array_equal(out, want)
