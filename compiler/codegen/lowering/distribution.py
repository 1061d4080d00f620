"""The workgroup grid of a kernel: which loop dims are tiled, per op, and how scratch is tiled.

Root: the last op writing a dispatch binding (not through a sub-view of another destination)
that has reduction loops or is a contraction, conv, mmt4d, pack or unpack -- else the last op
writing such a binding. Its up-to-three innermost
parallel output dims (``R`` = its output view; for mmt4d and batch_mmt4d the outer tile dims,
never the inner tiles the tile kernels need whole) are the candidate axes, tiled with
``backend.workgroup_tiles(kind, config)``. For each axis, ops are visited consumers first:

- an op touching ``R`` (or a unit-stride sub-view of it, which shifts its range by the
  sub-view's offset) must index that view dim with one parallel loop dim -- it is restricted
  to the workgroup's tile along it;
- an op writing only scratch is restricted when every reader of that scratch indexes the same
  scratch dim with its own restricted dim (the scratch is then *tiled*: each workgroup keeps
  its tile of it), else it runs over its whole range in every workgroup (private, so no race);
- an op that would run whole but writes a binding, or reads a binding the kernel writes
  other than through ``R``, makes the axis unusable, and so does a reduction that would be
  recomputed whole by every workgroup along it (softmax's row max along the columns): that
  axis is not distributed (one workgroup at worst), never racy.

Source: IREE TileAndDistributeToWorkgroups (root-op tiling, consumer/producer fusion into the
tiled loops) and KernelDispatch root-op selection.
"""
from rt.compiler.codegen import kernel_ir as kir
from rt.compiler.codegen.lowering import symbols as sym

_SPECIAL = ("matmul", "batch_matmul", "conv", "pooling", "matvec")
_D = kir.AffineExpr.dim
#: kernel_ir.Attention's views over its loop dims (d0 = B, d1 = M, d2 = N, d3 = K1, d4 = K2)
_ATTENTION_MAPS = {"q": (_D(0), _D(1), _D(3)), "k": (_D(0), _D(4), _D(3)), "v": (_D(0), _D(4), _D(2)),
                   "out": (_D(0), _D(1), _D(2)), "mask": (_D(0), _D(1), _D(4))}


def _written(op):
    """(view, map) pairs of what ``op`` writes, maps over its loop dims (None: per element)."""
    if isinstance(op, kir.Generic):
        return list(zip(op.outputs, op.indexing_maps[len(op.inputs):]))
    if isinstance(op, kir.Mmt4d):
        return [(op.out, tuple(kir.AffineExpr.dim(d) for d in (0, 1, 3, 4)))]
    if isinstance(op, kir.Pack):
        return [(op.dest, tuple(kir.AffineExpr.dim(d) for d in range(len(op.dest.shape))))]
    if isinstance(op, kir.Attention):
        return [(op.out, _ATTENTION_MAPS["out"])]
    return [(op.dest, None)]


def _read(op):
    """(view, map) pairs of what ``op`` reads (None: any element, as a gather reads)."""
    if isinstance(op, kir.Generic):
        return (list(zip(op.inputs, op.indexing_maps[:len(op.inputs)]))
                + [(v, None) for v in op.gathers])
    if isinstance(op, kir.Mmt4d):
        d = kir.AffineExpr.dim
        return [(op.lhs, (d(0), d(2), d(3), d(5))), (op.rhs, (d(1), d(2), d(4), d(5)))]
    if isinstance(op, kir.Attention):
        return [(getattr(op, name), _ATTENTION_MAPS[name]) for name in ("q", "k", "v", "mask")
                if getattr(op, name) is not None]
    return [(op.source, None)]


def _parallel(op, dim):
    if isinstance(op, kir.Generic):
        return op.iterator_types[dim] == "parallel"
    if isinstance(op, kir.Mmt4d):
        return dim in (0, 1, 3, 4)
    if isinstance(op, kir.Attention):  # batch and query rows; N stays whole in a workgroup
        return dim in (0, 1)
    return True


class _Plan:
    """Inputs of the analysis: ops, binding count, scratch ordinals, sub-view table."""

    def __init__(self, ops, binding_count, scratch, subviews):
        self.ops = ops
        self.binding_count = binding_count
        self.scratch = dict(scratch)
        self.subviews = subviews
        self.written_bindings = {v.binding for op in ops for v, _ in _written(op)
                                 if v.binding < binding_count}

    def root(self):
        real = [i for i, op in enumerate(self.ops)
                if any(v.binding < self.binding_count and v not in self.subviews
                       for v, _ in _written(op))]
        real = real or [i for i, op in enumerate(self.ops)
                        if any(v.binding < self.binding_count for v, _ in _written(op))]
        if not real:
            return len(self.ops) - 1
        for i in reversed(real):
            op = self.ops[i]
            if not isinstance(op, kir.Generic) or "reduction" in op.iterator_types or (
                    op.kind in _SPECIAL):
                return i
        return real[-1]

    def whole(self, view):
        """Whether ``view`` is its whole scratch buffer (only those can be tiled per workgroup)."""
        return view.offset == 0 and view.strides is None and tuple(view.shape) == tuple(self.scratch[view.binding])

    def shift(self, view, root_view, k):
        """Offset (Size) of ``view`` inside ``root_view`` along dim ``k``, or None if ``view``
        is not a unit-stride sub-view of it."""
        total = [0] * len(root_view.shape)
        while view != root_view:
            parent = self.subviews.get(view)
            if parent is None or len(parent[0].shape) != len(total):
                return None
            view, offsets = parent
            total = [sym.fold("add", t, o) for t, o in zip(total, offsets)]
        return total[k]

    def touch(self, op, root_view, k):
        """(loop dim, offset) by which ``op`` moves dim ``k`` of ``root_view``; (None, 0) if it
        does not touch it; ValueError when it touches its binding another way."""
        found = None
        for v, amap in _written(op) + _read(op):
            if v.binding != root_view.binding:
                continue
            off = self.shift(v, root_view, k) if v != root_view else 0
            if off is None or amap is None:
                raise ValueError("misaligned")
            d = sym.single_dim(amap[k])
            if d is None or not _parallel(op, d) or (found is not None and found != (d, off)):
                raise ValueError("misaligned")
            found = (d, off)
        return found or (None, 0)

    def axis(self, root_index, root_view, k, root_dim):
        """Per op (dim, offset) for one axis and {scratch ordinal: tiled scratch dim}."""
        n = len(self.ops)
        dims, offsets = [None] * n, [0] * n
        demand = {}
        writers = {}
        for i in reversed(range(n)):
            op = self.ops[i]
            d, off = self.touch(op, root_view, k)
            if i == root_index and d != root_dim:
                raise ValueError("root misaligned")
            for v, amap in _written(op):
                if v.binding in self.scratch and d is None:
                    want = demand.get(v.binding)
                    if want not in (None, "full") and amap is not None:
                        cand = sym.single_dim(amap[want])
                        if cand is not None and _parallel(op, cand):
                            d = cand
            for v, amap in _written(op):
                if v.binding in self.scratch:
                    want = demand.get(v.binding)
                    tiled = None
                    if d is not None and amap is not None and want not in ("full",) and self.whole(v):
                        ks = [kk for kk, e in enumerate(amap) if sym.single_dim(e) == d]
                        tiled = ks[0] if ks and want in (None, ks[0]) else None
                    if d is not None and tiled is None:
                        raise ValueError("partial scratch write")
                    writers.setdefault(v.binding, set()).add(tiled)
                    demand[v.binding] = "full" if tiled is None else tiled
                elif v.binding != root_view.binding:
                    if d is None or amap is None or not any(sym.single_dim(e) == d for e in amap):
                        raise ValueError("binding written by every workgroup")
            for v, amap in _read(op):
                if v.binding in self.scratch:
                    ks = [kk for kk, e in enumerate(amap or ()) if d is not None and off == 0
                          and self.whole(v) and sym.single_dim(e) == d]
                    want = ks[0] if ks else "full"
                    old = demand.get(v.binding)
                    demand[v.binding] = want if old in (None, want) else "full"
                elif (v.binding in self.written_bindings and v.binding != root_view.binding):
                    raise ValueError("reads a binding another op writes")
            dims[i], offsets[i] = d, off
        tiling = {}
        for ordinal, tiled in writers.items():
            if len(tiled) != 1:
                raise ValueError("scratch written both tiled and whole")
            (t,) = tiled
            if t is not None and demand.get(ordinal) != t:
                raise ValueError("scratch read whole but written tiled")
            tiling[ordinal] = t
        return dims, offsets, tiling


def _root_axes(op):
    """(view, view dims innermost first) the root distributes along, and the op dims."""
    if isinstance(op, kir.Unpack):
        rank = len(op.dest.shape)
        dims = tuple(reversed(range(rank)))[:3]
        return op.source, dims, dims
    view, amap = _written(op)[0]
    pairs = []
    for k in reversed(range(len(amap))):
        d = sym.single_dim(amap[k])
        if d is not None and _parallel(op, d):
            pairs.append((k, d))
    if isinstance(op, kir.Mmt4d):
        pairs = [(1, 1), (0, 0)]
    elif isinstance(op, kir.Generic) and op.kind == "batch_mmt4d":
        pairs = [(k, d) for k, d in pairs if k < 3]
    elif isinstance(op, kir.Pack):
        outer = len(op.source.shape)
        pairs = [(k, k) for k in reversed(range(outer))]
    pairs = pairs[:3]
    return view, tuple(k for k, _ in pairs), tuple(d for _, d in pairs)


def _kind(op):
    """The op's kind for ``backend.workgroup_tiles``; an Mmt4d reading its LHS in place (packed
    panel by panel in the kernel, fold_relayouts.py) is ``mmt4d_lhs_panel``."""
    if isinstance(op, kir.Mmt4d) and op.lhs.strides is not None:
        return "mmt4d_lhs_panel"
    return op.kind if isinstance(op, kir.Generic) else type(op).__name__.lower()


def _tile_kind(ops, root):
    """The op kind whose workgroup tiles the kernel uses: the last heavy op (reduction loops,
    contraction, conv...) even when it writes scratch, else the root's."""
    for op in reversed(ops):
        if not isinstance(op, kir.Generic) or "reduction" in op.iterator_types or (
                op.kind in _SPECIAL):
            return _kind(op)
    return _kind(root)


def distribute(ops, binding_count, scratch, subviews, backend, config):
    """(kernel_ir.Distribution, {scratch ordinal: {dim: axis}}) for ``ops``.

    scratch: {scratch ordinal: shape}; a scratch buffer some op reads or writes through a
    strided or shifted view (a slice of a fused producer) is never tiled.

    Shifted sub-views (``op_offsets``) are used only when ``backend.kernel_ir_features``
    names ``"op_offsets"``; other backends get such kernels narrowed instead.
    """
    if "op_offsets" not in getattr(backend, "kernel_ir_features", ()):
        subviews = {}
    plan = _Plan(ops, binding_count, scratch, subviews)
    root_index = plan.root()
    root = ops[root_index]
    view, view_dims, root_dims = _root_axes(root)
    while view in subviews and len(subviews[view][0].shape) == len(view.shape):
        view = subviews[view][0]
    tiles = tuple(backend.workgroup_tiles(_tile_kind(ops, root), config) or ())
    axes = []
    if isinstance(root, kir.Unpack) and len(ops) > 1:
        view_dims = ()
    for i, (k, d) in enumerate(zip(view_dims, root_dims)):
        if i >= len(tiles):
            break
        try:
            if isinstance(root, kir.Unpack):
                result = ([d], [0], {})
            else:
                result = plan.axis(root_index, view, k, d)
        except ValueError:
            continue
        if any(dim is None and isinstance(op, kir.Generic) and "reduction" in op.iterator_types
               for dim, op in zip(result[0], ops)):
            continue
        axes.append((d, tiles[i], result, k))
    if not axes:
        return kir.Distribution(), {}
    op_dims = tuple(tuple(a[2][0][j] for a in axes) for j in range(len(ops)))
    offsets = tuple(tuple(a[2][1][j] for a in axes) for j in range(len(ops)))
    tiled = {}
    for axis, (_, _, (_, _, tiling), _) in enumerate(axes):
        for ordinal, dim in tiling.items():
            if dim is not None:
                tiled.setdefault(ordinal, {})[dim] = axis
    has_offsets = any(o != 0 for per_op in offsets for o in per_op)
    return kir.Distribution(tuple(a[0] for a in axes), tuple(a[1] for a in axes), op_dims,
                            offsets if has_offsets else (),
                            tuple(view.shape[a[3]] for a in axes)), tiled

