"""Encoding resolution: ``#iree_encoding.encoding`` -> a per-target packed layout.

An encoding says which operand of which contraction a tensor feeds (operand_index 0 = LHS,
1 = RHS, 2 = result, ``user_indexing_maps`` over the contraction's loops). A target's resolver
picks the data-tiling tile ``(M0, N0, K0)`` from the element types, the static iteration
sizes and the target's features (see ``encoding_cpu``) and turns it into IREE's
MaterializeEncodingInfo for that operand::

    LHS    [M, K]  innerDimsPos = [0, 1], innerTileSizes = [M0, K0], outerDimsPerm = [0, 1]
    RHS    [K, N]  innerDimsPos = [1, 0], innerTileSizes = [N0, K0], outerDimsPerm = [1, 0]
    RESULT [M, N]  innerDimsPos = [0, 1], innerTileSizes = [M0, N0], outerDimsPerm = [0, 1]

(batch dims stay outermost, untiled; a matvec has no N dim, so its RHS [K] is tiled by K0
alone and its RESULT [M] by M0, with N0 = 1 chosen as the narrow tile -- vecmat alike with
M0 = 1). The resolved layout is serialized as
``#iree_cpu.cpu_encoding_layout<configuration = {encoding_info = {innerDimsPos = [..],
innerTileSizes = [..], outerDimsPerm = [..]}}>`` (``#iree_cpu.vmvx_encoding_layout`` on vmvx)
inside the encoding's ``layouts`` -- the form specialize-encodings writes and
encode-host-tensors / the dispatch lowering read back.

A packed tensor is ``linalg.pack``'s destination: outer dims (``ceildiv(dim, tile)`` on tiled
dims) permuted by outerDimsPerm, then the inner tiles; partial tiles are padded with zeros.

Source: IREE ``Codegen/ExternalInterfaces/CPUEncodingExternalModels.cpp``
(getEncodingInfoForMatmul, chooseMatmulTile) and ``Dialect/Encoding/IR/EncodingAttrs.cpp``.
"""
from dataclasses import dataclass

from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, IntegerAttr, i64
from xdsl.ir.affine import AffineDimExpr

from rt.compiler.dialects.iree_cpu import CPUEncodingLayoutAttr, VMVXEncodingLayoutAttr
from rt.compiler.dialects.iree_encoding import EncodingAttr
from rt.runtime.errors import CompileError, UnimplementedError

#: backend name -> resolver attribute class (``iree.encoding.resolver`` when not given).
RESOLVERS = {"llvm-cpu": CPUEncodingLayoutAttr, "vmvx": VMVXEncodingLayoutAttr}
OPERAND_NAMES = ("LHS", "RHS", "RESULT")


@dataclass(frozen=True)
class EncodingInfo:
    """IREE's MaterializeEncodingInfo: how one operand is packed (tensor.pack attributes)."""

    inner_dims_pos: tuple
    inner_tile_sizes: tuple
    outer_dims_perm: tuple

    def to_attr(self):
        """``{encoding_info = {innerDimsPos = [..], innerTileSizes = [..], outerDimsPerm = [..]}}``."""
        def ints(values):
            return ArrayAttr([IntegerAttr(v, i64) for v in values])

        return DictionaryAttr({"encoding_info": DictionaryAttr({
            "innerDimsPos": ints(self.inner_dims_pos),
            "innerTileSizes": ints(self.inner_tile_sizes),
            "outerDimsPerm": ints(self.outer_dims_perm)})})

    @staticmethod
    def from_layout(layout):
        """The EncodingInfo of a resolved ``#iree_cpu.*_encoding_layout``; CompileError if the
        layout carries no (well-formed) ``encoding_info``."""
        info = getattr(layout, "encoding_info", None)
        if not isinstance(info, DictionaryAttr):
            raise CompileError(f"encoding layout {layout} carries no resolved encoding_info; "
                               f"run iree-stream-specialize-encodings first")
        fields = []
        for key in ("innerDimsPos", "innerTileSizes", "outerDimsPerm"):
            value = info.data.get(key)
            if not isinstance(value, ArrayAttr) or not all(isinstance(v, IntegerAttr) for v in value.data):
                raise CompileError(f"encoding layout {layout}: encoding_info.{key} must be a list of "
                                   f"integers")
            fields.append(tuple(v.value.data for v in value.data))
        return EncodingInfo(*fields)

    def packed_shape(self, dims, ceildiv):
        """The packed shape of a tensor of ``dims`` (ints or symbols): tiled outer dims are
        ``ceildiv(dim, tile)``, permuted by outer_dims_perm, followed by the inner tiles."""
        outer = list(dims)
        for pos, tile in zip(self.inner_dims_pos, self.inner_tile_sizes):
            outer[pos] = ceildiv(outer[pos], tile)
        return [outer[p] for p in self.outer_dims_perm] + list(self.inner_tile_sizes)


@dataclass(frozen=True)
class Contraction:
    """The loop dims of an encoding's contraction: batch/m/n/k loop ids (or None) and, per
    operand (LHS, RHS, RESULT), the loop id of each of its tensor dims."""

    batch: object
    m: object
    n: object
    k: int
    operand_loops: tuple


def contraction(encoding):
    """The Contraction of ``encoding`` (from user_indexing_maps, matmul-like only).

    Raises UnimplementedError for contractions with more than one batch/M/N/K dim, operand
    maps that are not projected permutations, or an operand broadcast along a loop.
    """
    entries = encoding.user_indexing_maps.data
    if any(not hasattr(m.data, "results") for m in entries):
        raise UnimplementedError(f"encoding {encoding}: user_indexing_maps with a list of maps for "
                                 f"one operand (a broadcast composed into the encoding) are not "
                                 f"supported by rt's data tiling")
    maps = [m.data for m in entries]
    if len(maps) != 3:
        raise UnimplementedError(f"encoding {encoding}: expected user_indexing_maps for LHS, RHS "
                                 f"and RESULT, got {len(maps)} maps")
    loops = []
    for m in maps:
        if not all(isinstance(r, AffineDimExpr) for r in m.results):
            raise UnimplementedError(f"encoding {encoding}: indexing map {m} is not a projected "
                                     f"permutation")
        loops.append(tuple(r.position for r in m.results))
    lhs, rhs, out = (set(x) for x in loops)
    groups = {"batch": lhs & rhs & out, "m": (lhs & out) - rhs, "n": (rhs & out) - lhs,
              "k": (lhs & rhs) - out}
    if any(len(g) > 1 for g in groups.values()) or len(groups["k"]) != 1:
        raise UnimplementedError(f"encoding {encoding}: data tiling handles contractions with at "
                                 f"most one batch, M and N dim and exactly one K dim")
    if set().union(*groups.values()) != lhs | rhs | out:
        raise UnimplementedError(f"encoding {encoding}: an operand is broadcast along a loop of "
                                 f"another operand; data tiling handles matmul-like maps only")
    one = {name: next(iter(g)) if g else None for name, g in groups.items()}
    return Contraction(one["batch"], one["m"], one["n"], one["k"], tuple(loops))


def encoding_info_for_matmul(encoding, tile):
    """EncodingInfo of the operand ``encoding`` names for an ``(M0, N0, K0)`` tile."""
    c = contraction(encoding)
    index = encoding.index
    if index not in (0, 1, 2):
        raise CompileError(f"encoding {encoding}: operand_index must be 0, 1 or 2, got {index}")
    m0, n0, k0 = tile
    wanted = {0: ((c.m, m0), (c.k, k0)), 1: ((c.n, n0), (c.k, k0)), 2: ((c.m, m0), (c.n, n0))}[index]
    operand = c.operand_loops[index]
    pos, tiles = [], []
    for loop, size in wanted:
        if loop is not None:
            pos.append(operand.index(loop))
            tiles.append(size)
    batch = [operand.index(c.batch)] if c.batch is not None else []
    rest = [d for d in range(len(operand)) if d not in pos and d not in batch]
    return EncodingInfo(tuple(pos), tuple(tiles), tuple(batch + rest + pos))


def resolver_for(target):
    """The resolver attribute class of an ``#hal.executable.target`` (its config's
    ``iree.encoding.resolver`` if set, else the backend's default)."""
    given = target.configuration.data.get("iree.encoding.resolver")
    if given is not None:
        if not isinstance(given, (CPUEncodingLayoutAttr, VMVXEncodingLayoutAttr)):
            raise CompileError(f"executable target {target}: iree.encoding.resolver {given} is not a "
                               f"known encoding resolver (expected #iree_cpu.cpu_encoding_layout<> "
                               f"or #iree_cpu.vmvx_encoding_layout<>)")
        return type(given)
    backend = target.backend.data
    if backend not in RESOLVERS:
        raise UnimplementedError(f"no encoding resolver for target backend {backend!r}; data "
                                 f"tiling supports {', '.join(sorted(RESOLVERS))}")
    return RESOLVERS[backend]


def _tile(resolver, backend, config, encoding):
    from rt.compiler.targets import encoding_cpu

    element_types = tuple(str(t) for t in encoding.element_types.data)
    if resolver is VMVXEncodingLayoutAttr:
        tiles = encoding_cpu.vmvx_matmul_tiles(element_types)
    else:
        tiles = encoding_cpu.x86_64_matmul_tiles(element_types, config)
    if not tiles:
        raise UnimplementedError(f"encoding {encoding}: target {backend} has no data-tiling tiles "
                                 f"for element types {list(element_types)}")
    return encoding_cpu.choose_matmul_tile(tiles, matmul_sizes(encoding))


def matmul_sizes(encoding):
    """``(M, N, K)`` of ``encoding``'s contraction from its static iteration sizes (None when
    dynamic or not recorded); an absent M or N dim (vecmat, matvec) counts as 1, so the
    resolvers pick IREE's narrow tiles (M0 = 1 or N0 = 1) for it."""
    c = contraction(encoding)
    sizes = encoding.sizes

    def size(loop):
        if loop is None:
            return 1
        return sizes[loop] if sizes is not None and loop < len(sizes) else None

    return size(c.m), size(c.n), size(c.k)


def mmt4d_packed_shape(encoding, info, dims, ceildiv):
    """The packed shape of operand ``encoding.index`` as ``linalg.mmt4d`` / ``batch_mmt4d``
    take it: ``[B?, X1, Y1, X0, Y0]`` with (X, Y) = (M, K) for the LHS, (N, K) for the RHS and
    (M, N) for the RESULT. An absent M or N dim (matvec, vecmat) becomes a unit outer and
    inner dim, so the storage is the same as ``info.packed_shape`` (IREE inserts the same
    unit dims with tensor.expand_shape when it lowers a narrow contraction to mmt4d)."""
    c = contraction(encoding)
    natural = info.packed_shape(dims, ceildiv)
    rank = len(dims)
    outer, inner = natural[:rank], natural[rank:]
    batch = [outer.pop(0)] if c.batch is not None else []
    roles = {0: (c.m, c.k), 1: (c.n, c.k), 2: (c.m, c.n)}[encoding.index]
    outer_it, inner_it = iter(outer), iter(inner)
    outers = [next(outer_it) if loop is not None else 1 for loop in roles]
    inners = [next(inner_it) if loop is not None else 1 for loop in roles]
    return batch + outers + inners


def encoding_info(backend, config, encoding):
    """The EncodingInfo ``backend`` (name) with target config dict ``config`` gives the operand
    ``encoding`` names: a matmul operand's (M0, N0, K0) tiling, or a conv filter's F0 packing
    (``encoding_conv``)."""
    if backend not in RESOLVERS:
        raise UnimplementedError(f"no encoding resolver for target backend {backend!r}; data "
                                 f"tiling supports {', '.join(sorted(RESOLVERS))}")
    return _info(RESOLVERS[backend], backend, dict(config or {}), encoding)


def _info(resolver, backend, config, encoding):
    if encoding.op_type.data == "conv":
        from rt.compiler.targets import encoding_conv
        from rt.compiler.targets.llvm_cpu import target_from_config

        lanes = None if resolver is VMVXEncodingLayoutAttr else target_from_config(config).f32_lanes
        return encoding_conv.filter_info(encoding, encoding_conv.filter_tile(encoding, lanes))
    return encoding_info_for_matmul(encoding, _tile(resolver, backend, config, encoding))


def resolve(target, encoding):
    """``encoding`` with its layout for ``target`` resolved (``layouts = [...]``)."""
    from rt.compiler.helpers.hal.target_devices import from_attr

    resolver = resolver_for(target)
    info = _info(resolver, target.backend.data, from_attr(target.configuration), encoding)
    return encoding.with_layouts([resolver(info.to_attr())])


def resolved_info(encoding):
    """The EncodingInfo of an encoding whose layout is resolved; CompileError otherwise."""
    if not isinstance(encoding, EncodingAttr) or len(encoding.layouts.data) != 1:
        raise CompileError(f"encoding {encoding} has no single resolved layout; run "
                           f"iree-stream-specialize-encodings first")
    return EncodingInfo.from_layout(encoding.layouts.data[0])
