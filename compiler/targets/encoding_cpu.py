"""Data-tiling tile tables of the CPU-like targets (llvm-cpu on x86-64, vmvx).

Each table lists ``(M0, N0, K0)`` tiles, the widest first followed by its power-of-two
truncations for narrow M; ``choose_matmul_tile`` picks one for an encoding's static iteration sizes:

- x86-64, bf16 x bf16 -> f32 with AVX512-BF16: 16x16x2 (VDPBF16PS, ``mmt4d_dot``);
- x86-64, i8 x i8 -> i32 with AVX512-VNNI: 16x16x4 (VPDPBUSD, ``mmt4d_dot``); both also on a
  portable AVX-512BW target (``x86-64-v4``...), whose objects choose at run time between the
  dot-product kernel and the widening loops of the same layout (``mmt4d_dot.layout_kind``);
- x86-64, float inputs with an f32/f16 result (bf16 inputs with an f32/bf16 result): the
  target's CPU family's tile (``cpu_families``: Zen 4/5 and generic AVX-512 16x16x1, Intel
  AVX-512 8x32x1, AVX2 6x16x1, generic AVX 8x8x1, SSE 8x4x1);
- x86-64, i8 x i8 or i16 x i16 -> i32: AVX-512BW 16x16x2 (VPMADDWD on zmm; i16 also with
  VNNI, as VPDPWSSD), AVX2 8x8x2, SSE 8x4x2;
- vmvx: 8x8x1 for float inputs, 8x8x4 for integers (rt's vmvx microkernels take any static
  tile; K0 = 1 for floats lets propagated layouts feed the next matmul, as on llvm-cpu).

Narrow matmuls: a static M (or N) smaller than the widest tile is narrow; the tile minimising
padding beyond the next power of two of that size wins, the largest such tile on ties. A
narrow N picks as if M were narrow and swaps M0 and N0.

Source: IREE ``CPUEncodingExternalModels.cpp`` (enumerateMatmulTileX86_64,
enumerateMatmulTilesVMVX, chooseMatmulTile).
"""
_TRUNCATED = (16, 8, 4, 2, 1)


def _family(m0, n0, k0):
    return [(m0, n0, k0)] + [(m, n0, k0) for m in _TRUNCATED if m < m0]


def x86_64_matmul_tiles(element_types, config):
    """Tiles for an llvm-cpu x86-64 target ``config`` (dict), best first; [] when the element
    types ``(lhs, rhs, out)`` (MLIR names) have no data-tiling tiles. Float tiles are the
    target's CPU family's (``cpu_families``); integer ones and the dot-product (AVX512-BF16,
    AVX512-VNNI) ones follow the features."""
    from rt.compiler.codegen.llvm_cpu.mmt4d_dot import KINDS, layout_kind
    from rt.compiler.targets.cpu_families import family_of
    from rt.compiler.targets.llvm_cpu import target_from_config

    lhs, rhs, out = element_types
    target = target_from_config(config)
    features = set(target.features)
    bf16 = lhs == rhs == "bf16" and out in ("f32", "bf16")  # widened to f32 in the mmt4d kernel
    dot = layout_kind(target, element_types)
    if dot is not None:
        return _family(16, 16, KINDS[dot][1])
    if bf16 or (out in ("f32", "f16") and lhs.startswith("f") and rhs.startswith("f")):
        return _family(*family_of(target).f32_tile)
    if out == "i32" and lhs == rhs and lhs in ("i8", "i16"):
        if "avx512vnni" in features or "avx512bw" in features:
            return _family(16, 16, 2)
        if "avx2" in features:
            return _family(8, 8, 2)
        return _family(8, 4, 2)
    return []


def vmvx_matmul_tiles(element_types):
    """Tiles for vmvx, best first: none for the packed i2 / i4; 8x8x1 for float inputs (K0 = 1,
    like every llvm-cpu float tile, so a propagated packed result can feed the next matmul as
    its LHS), 8x8x4 otherwise."""
    if any(t in ("i2", "i4") for t in element_types):
        return []
    lhs, rhs, _ = element_types
    if lhs.startswith(("f", "bf")) and rhs.startswith(("f", "bf")):
        return _family(8, 8, 1)
    return _family(8, 8, 4)


def _pow2_ceil(n):
    p = 1
    while p < n:
        p *= 2
    return p


def choose_matmul_tile(tiles, sizes):
    """The tile for a matmul of static iteration sizes ``sizes`` ((M, N, K) with None when
    dynamic, or None when unknown) among ``tiles`` (enumerated for narrow M)."""
    m, n = (sizes[0], sizes[1]) if sizes else (None, None)
    widest = max(t[0] for t in tiles)
    narrow_m = m is not None and m < widest
    narrow_n = n is not None and n < widest
    if narrow_n and (not narrow_m or n < m):
        m0, n0, k0 = choose_matmul_tile(tiles, (n, None, None))
        return (n0, m0, k0)
    best = None
    for tile in tiles:
        penalty = max(tile[0] - _pow2_ceil(m), 0) if narrow_m else 0
        key = (-penalty, tile[0] * tile[1] * tile[2])
        if best is None or key > best[0]:
            best = (key, tile)
    return best[1]
