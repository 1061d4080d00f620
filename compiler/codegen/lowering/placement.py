"""Destinations: where each tensor of a dispatch lives, and the kernel ops that fill it.

Destination-passing style, as IREE's bufferization of a dispatch region does:

- a stored value is computed straight into its store's view, and so is the ``outs`` chain
  behind it (fill -> matmul -> epilogue write the output binding in place);
- a loaded or rodata view stored elsewhere becomes a copy; a splat becomes a fill;
- ``tensor.pad``: a fill with the padding value, then the source placed into the interior
  sub-view; ``tensor.concat``: each input placed into its sub-view along the concat dim;
  ``tensor.insert_slice``: the dest placed, then the source placed into the (possibly
  strided, rank-reducing) sub-view -- chains of inserts update one buffer in place;
- an elementwise producer that is only read is inlined into its consumer (fusion.py);
- a multi-result linalg op writes each result to its store's view (or a scratch);
- anything else that must exist before a consumer reads it -- a reduction result read through
  a broadcast, a padded conv input, a slice of a computed tensor -- goes to a workgroup
  ``kernel_ir.Scratch`` buffer.

Unit-stride sub-views of a destination are recorded in ``subviews`` (view -> (parent,
offsets)) so the distribution can shift the copies into them (``Distribution.op_offsets``).
"""
from dataclasses import dataclass, replace

from rt.compiler.codegen import kernel_ir as kir
from rt.compiler.codegen.llvm_cpu import sizes as sz
from rt.compiler.codegen.lowering import attention
from rt.compiler.codegen.lowering import symbols as sym
from rt.compiler.codegen.lowering.fusion import inline_producers, through_slice
from rt.compiler.codegen.lowering.structured import Structured
from rt.compiler.codegen.lowering.scalars import scalar_program
from rt.compiler.dialects.linalg import Mmt4DOp, PackOp
from rt.compiler.frontend import error_at_op


@dataclass
class Empty:
    """tensor.empty: a shape with no contents."""

    shape: tuple
    element_type: str


@dataclass
class Splat:
    """A tensor of one scalar (splat constant, tensor.splat): value is a ScalarConst or the
    SSA scalar computing it."""

    value: object
    element_type: str
    shape: tuple


@dataclass
class Result:
    """Result ``index`` of a computing op (Structured or a Relayout)."""

    node: object
    index: int = 0


@dataclass
class Relayout:
    """linalg.pack / unpack / mmt4d awaiting destinations."""

    op: object
    operands: list
    init: object


@dataclass
class Pad:
    """tensor.pad with a constant (or dynamic scalar) padding value."""

    op: object
    source: object
    low: tuple
    shape: tuple
    element_type: str
    value: object


@dataclass
class Concat:
    """tensor.concat of ``inputs`` along ``dim``."""

    op: object
    inputs: list
    dim: int
    shape: tuple


@dataclass
class InsertSlice:
    """tensor.insert_slice of ``source`` into ``dest`` at offsets/sizes/strides (Sizes)."""

    op: object
    source: object
    dest: object
    offsets: list
    sizes: list
    strides: list


@dataclass
class Slice:
    """tensor.extract_slice of a computed tensor (lists: offsets, sizes, strides)."""

    op: object
    source: object
    lists: tuple
    shape: tuple


def slice_view(view, offsets, sizes, strides, result_shape, op):
    """Sub-view of ``view``: offsets/sizes/strides per dim, unit dims dropped to match."""
    base = sz.view_strides(view)
    offset = view.offset
    for o, s in zip(offsets, base):
        offset = sym.fold("add", offset, sym.fold("mul", o, s))
    dims = [(size, sym.fold("mul", base[k], step)) for k, (size, step) in enumerate(zip(sizes, strides))]
    drop = len(dims) - len(result_shape)
    if drop < 0:
        raise error_at_op(op, f"slice of rank {len(dims)} cannot produce rank {len(result_shape)}")
    kept = []
    for size, stride in dims:
        if drop and size == 1:
            drop -= 1
            continue
        kept.append((size, stride))
    if drop:
        raise error_at_op(op, "rank-reducing slice drops a dim that is not statically 1")
    shape = tuple(s for s, _ in kept)
    strides_ = tuple(s for _, s in kept)
    contiguous = sz.contiguous_strides(shape)
    return kir.View(view.binding, view.element_type, shape, offset,
                    None if strides_ == contiguous else strides_, view.extent)


def _key(entry):
    if isinstance(entry, Result):
        return (id(entry.node), entry.index)
    return (id(entry), 0)


def _element_type(value, op):
    return sym.type_name(value.type.element_type, op)


class Placement:
    """Destination logic of ``materialize.Lowering`` (uses its env, ops, scratch, rodata)."""

    def finish(self):
        """Kernel ops for every store, in program order."""
        for value, view, op in self.stores:
            entry = self.get(value, op)
            self.store_views.setdefault(_key(entry), view)
        for value, view, op in self.stores:
            self.place(self.get(value, op), view, op)
        return self.ops

    def new_scratch(self, element_type, shape):
        """A View on a new workgroup scratch buffer of ``shape``."""
        self.scratch.append((element_type, tuple(shape)))
        ordinal = self.binding_count() + len(self.rodata) + len(self.scratch) - 1
        return kir.View(ordinal, element_type, tuple(shape))

    def sub_view(self, view, offsets, sizes, strides, result_shape, op):
        """``slice_view`` that remembers unit-stride, same-rank sub-views in ``subviews``."""
        sub = slice_view(view, offsets, sizes, strides, result_shape, op)
        if all(s == 1 for s in strides) and len(result_shape) == len(view.shape) and sub != view:
            self.subviews.setdefault(sub, (view, tuple(offsets)))
        return sub

    def place(self, entry, view, op):
        """Make ``entry``'s contents exist in ``view``."""
        if isinstance(entry, Empty):
            return
        if isinstance(entry, kir.View):
            if entry != view:
                self.ops.append(_copy(entry, view))
            return
        if isinstance(entry, Splat):
            self.ops.append(_fill(view, self._program(entry.value, entry.element_type, op)))
            return
        if not isinstance(entry, (Result, Pad, Concat, InsertSlice, Slice)):
            raise error_at_op(op, "stores a value that is not a tensor computed in the dispatch")
        key = _key(entry)
        if key in self.placed:
            if self.placed[key] != view:
                self.ops.append(_copy(self.placed[key], view))
            return
        self.placed[key] = view
        if isinstance(entry, Pad):
            return self._pad(entry, view)
        if isinstance(entry, Concat):
            return self._concat(entry, view)
        if isinstance(entry, InsertSlice):
            return self._insert_slice(entry, view)
        if isinstance(entry, Slice):
            if self._slice_of_producer(entry, view):
                return
            src = self.view_of(self.get(entry.source, entry.op), entry.source, entry.op)
            part = slice_view(src, *entry.lists, entry.shape, entry.op)
            if part != view:
                self.ops.append(_copy(part, view))
            return
        node = entry.node
        if isinstance(node, Relayout):
            return self._relayout(node, view)
        if isinstance(node, attention.AttentionNode):
            return attention.place(self, node, entry.index, view)
        return self._structured(node, entry.index, view)

    def _program(self, value, element_type, op):
        """ScalarOps computing a scalar symbol (ScalarConst or SSA value) in a body."""
        if isinstance(value, sym.ScalarConst):
            return [kir.ScalarOp(kir.Opcode.CONSTANT, (), value.type, (("value", value.value),))]
        if isinstance(value, int) and not isinstance(value, bool):
            return [kir.ScalarOp(kir.Opcode.CONSTANT, (), element_type, (("value", value),))]
        return scalar_program(value, op)

    def _pad(self, entry, view):
        op = entry.op
        self.ops.append(_fill(view, self._program(entry.value, entry.element_type, op)))
        source_dims = self.dims_of(entry.source, op)
        interior = self.sub_view(view, entry.low, source_dims, [1] * len(source_dims),
                                 source_dims, op)
        self.place(self.get(entry.source, op), interior, op)

    def _concat(self, entry, view):
        op, offset = entry.op, 0
        rank = len(entry.shape)
        for value in entry.inputs:
            dims = self.dims_of(value, op)
            offsets = [offset if k == entry.dim else 0 for k in range(rank)]
            part = self.sub_view(view, offsets, dims, [1] * rank, dims, op)
            self.place(self.get(value, op), part, op)
            offset = sym.fold("add", offset, dims[entry.dim])

    def _insert_slice(self, entry, view):
        op = entry.op
        self.place(self.get(entry.dest, op), view, op)
        shape = self.dims_of(entry.source, op)
        part = self.sub_view(view, entry.offsets, entry.sizes, entry.strides, shape, op)
        self.place(self.get(entry.source, op), part, op)

    def view_of(self, entry, value, op, out_view=None, read_map=None, write_map=None):
        """A View holding ``entry`` (the symbol of tensor ``value``) for a consumer; producers
        whose result is read exactly where the consumer writes go straight to ``out_view``."""
        if isinstance(entry, kir.View):
            return entry
        key = _key(entry)
        if key in self.placed:
            return self.placed[key]
        etype = _element_type(value, op)
        dims = tuple(self.dims_of(value, op))
        if (isinstance(entry, Result) and out_view is not None and read_map == write_map
                and out_view.element_type == etype and tuple(out_view.shape) == dims):
            self.place(entry, out_view, op)
            return out_view
        scratch = self.new_scratch(etype, dims)
        self.place(entry, scratch, op)
        return scratch

    def _structured(self, node, index, view):
        n_out = len(node.outputs)
        views = []
        for j in range(n_out):
            key = (id(node), j)
            if j == index:
                views.append(view)
            elif key in self.placed:
                views.append(self.placed[key])
            else:
                dest = self.store_views.get(key)
                if dest is None:
                    result = node.op.results[j]
                    dest = self.new_scratch(_element_type(result, node.op),
                                            self.dims_of(result, node.op))
                views.append(dest)
            self.placed[key] = views[j]
        for j in range(n_out):
            self.place(self.get(node.outputs[j], node.op), views[j], node.op)
        self._emit(node, views)

    def _slice_of_producer(self, entry, view):
        """Compute a same-rank, statically strided slice of an elementwise producer straight into
        ``view`` -- only the sliced elements -- as a copy the producer is inlined into (fusion.py);
        False when that does not apply (the source is then materialized and sliced)."""
        source = self.get(entry.source, entry.op)
        rank = len(entry.shape)
        ident = tuple(kir.AffineExpr.dim(d) for d in range(rank))
        read = through_slice(entry, ident)
        if not isinstance(source, Result) or _key(source) in self.placed or read is None:
            return False
        copy = Structured(entry.op, tuple(entry.shape), ("parallel",) * rank, [entry.source],
                          [entry.op.results[0]], [read, ident], [], (0,), "copy")
        fused = inline_producers(copy, self.env, lambda e: _key(e) in self.placed)
        if fused is copy:
            return False
        self._emit(fused, [view])
        return True

    def _emit(self, node, views):
        """Append the Generic computing ``node`` into ``views`` (inputs read from their views or
        recomputed when inlinable, scalars and splats folded into the body)."""
        n_out = len(views)
        node = inline_producers(node, self.env, lambda e: _key(e) in self.placed)
        n_in = len(node.inputs)
        used = {v for s in node.body for v in s.operands} | set(node.yields)
        reads_out = any(n_in + j in used for j in range(n_out))
        kept, consts = [], {}
        for i, (value, amap) in enumerate(zip(node.inputs, node.maps)):
            e = self.get(value, node.op)
            if not hasattr(value.type, "get_shape"):
                symbol = e if isinstance(e, sym.ScalarConst) or type(e) is int else value
                consts[i] = self._program(symbol, sym.type_name(value.type, node.op), node.op)
            elif isinstance(e, Splat):
                consts[i] = self._program(e.value, e.element_type, node.op)
            elif isinstance(e, Empty):
                if i in used:
                    raise error_at_op(node.op, "reads the contents of a tensor.empty")
                consts[i] = None
            else:
                out_view = views[0] if n_out == 1 and not reads_out else None
                kept.append((i, self.view_of(e, value, node.op, out_view, amap, node.maps[n_in])))
        body, yields = _rebuild(node, [i for i, _ in kept], consts)
        body = [self._gather(s, node.op) if s.opcode is kir.Opcode.EXTRACT else s for s in body]
        kind = "generic" if any(s.opcode is kir.Opcode.EXTRACT for s in body) else node.kind
        self.ops.append(kir.Generic(
            tuple(node.domain), tuple(node.iterator_types), tuple(v for _, v in kept),
            tuple(views), tuple(node.maps[i] for i, _ in kept) + tuple(node.maps[n_in:]),
            tuple(body), yields, kind))

    def _gather(self, scalar, op):
        """A body's ``tensor.extract`` ScalarOp with its captured tensor (attr ``source``)
        replaced by the View holding it (attr ``view``): a binding, rodata or a scratch the
        tensor is computed into first (read whole, so never tiled)."""
        source = scalar.attr("source")
        view = self.view_of(self.get(source, op), source, op)
        return replace(scalar, attrs=(("view", view),))

    def _relayout(self, node, view):
        op = node.op
        operands = [self.view_of(self.get(v, op), v, op) for v in node.operands]
        if isinstance(op, Mmt4DOp):
            init = self.get(node.init, op)
            accumulate = not isinstance(init, Empty)
            if accumulate:
                self.place(init, view, op)
            self.ops.append(kir.Mmt4d(operands[0], operands[1], view, accumulate))
            return
        if operands[0].element_type in kir.PACKED:
            raise error_at_op(op, f"{op.name} of {operands[0].element_type}: packed elements (several to a "
                                  "byte) cannot be relaid out; widen them with arith.extsi first")
        tiles = tuple(self._mixed(op, op.static_inner_tiles.get_values(), op.inner_tiles))
        perm = tuple(op.outer_dims_perm.get_values()) if op.outer_dims_perm is not None else None
        pos = tuple(op.inner_dims_pos.get_values())
        if isinstance(op, PackOp):
            pad = None
            if op.padding_value is not None:
                pv = self.get(op.padding_value, op)
                if not isinstance(pv, (sym.ScalarConst, int)):
                    raise error_at_op(op, "linalg.pack with a dynamic padding value is not "
                                          "supported; use a constant")
                pad = pv.value if isinstance(pv, sym.ScalarConst) else pv
            self.ops.append(kir.Pack(operands[0], view, pos, tiles, perm, pad))
        else:
            self.ops.append(kir.Unpack(operands[0], view, pos, tiles, perm))


def _rebuild(node, kept, consts):
    """Body and yields of ``node`` with only inputs ``kept`` as block arguments; each input in
    ``consts`` (position -> ScalarOps computing it, or None when the body never reads it) is
    computed at the start of the body instead."""
    n_in, n_out = len(node.inputs), len(node.outputs)
    mapping = {pos: new for new, pos in enumerate(kept)}
    for o in range(n_out):
        mapping[n_in + o] = len(kept) + o
    prefix = []
    base = len(kept) + n_out
    for pos, program in consts.items():
        if program is None:
            continue
        start = base + len(prefix)
        prefix.extend(replace(s, operands=tuple(o + start for o in s.operands)) for s in program)
        mapping[pos] = base + len(prefix) - 1
    base += len(prefix)
    for i in range(len(node.body)):
        mapping[n_in + n_out + i] = base + i
    body = prefix + [replace(s, operands=tuple(mapping[v] for v in s.operands)) for s in node.body]
    return body, tuple(mapping[v] for v in node.yields)


def _copy(src, dst):
    rank = len(dst.shape)
    ident = tuple(kir.AffineExpr.dim(d) for d in range(rank))
    return kir.Generic(tuple(dst.shape), ("parallel",) * rank, (src,), (dst,), (ident, ident),
                       (), (0,), "copy")


def _fill(dst, program):
    rank = len(dst.shape)
    ident = tuple(kir.AffineExpr.dim(d) for d in range(rank))
    body = [replace(s, operands=tuple(o + 1 for o in s.operands)) for s in program]
    return kir.Generic(tuple(dst.shape), ("parallel",) * rank, (), (dst,), (ident,),
                       tuple(body), (len(body),), "fill")

