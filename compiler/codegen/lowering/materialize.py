"""The walk behind ``lower_dispatch_function``: symbols per SSA value, then destinations.

``Lowering.visit`` records what every op of the dispatch function computes (sizes, views,
empties, linalg results); ``finish`` places each stored value into its store's view, in
program order, emitting kernel ops (see dispatch.py for the rules).
"""
from dataclasses import dataclass, replace

from rt.compiler.codegen import kernel_ir as kir
from rt.compiler.codegen.llvm_cpu import sizes as sz
from rt.compiler.codegen.lowering import symbols as sym
from rt.compiler.codegen.lowering.fusion import inline_producers
from rt.compiler.codegen.lowering.structured import Structured, structured
from rt.compiler.frontend import error_at_op

_ACCESS = {"readonly": "ro", "writeonly": "wo", "readwrite": "rw"}


@dataclass
class Subspan:
    """A binding as the dispatch sees it: whole-tensor View plus access mode."""

    view: kir.View
    access: str


@dataclass
class Empty:
    """tensor.empty: a shape with no contents."""

    shape: tuple
    element_type: str


@dataclass
class Result:
    """Result ``index`` of a computing op (Structured or a relayout/mmt4d record)."""

    node: object
    index: int = 0


@dataclass
class Relayout:
    """linalg.pack / unpack / mmt4d awaiting destinations."""

    op: object
    operands: list
    init: object


def _slice(view, offsets, sizes, strides, result_shape, op):
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
                    None if strides_ == contiguous else strides_)


class Lowering:
    """Symbol table and op emission for one dispatch function."""

    def __init__(self, func_op):
        self.func = func_op
        self.env = {}
        self.stores = []
        self.ops = []
        self.layout = None
        self.max_constant = -1
        self.subspans = {}
        self.placed = {}

    # -- symbols -----------------------------------------------------------------------------
    def get(self, value, op):
        if value not in self.env:
            raise error_at_op(op, "uses a value the dispatch lowering cannot follow (defined by an "
                                  "unsupported op or outside the function)")
        return self.env[value]

    def size(self, value, op):
        s = self.get(value, op)
        if not sym.is_size(s):
            raise error_at_op(op, "expected an index value computed from constants and push "
                                  "constants")
        return s

    def _mixed(self, op, static, dynamic):
        it = iter(dynamic)
        return [self.size(next(it), op) if v == -(1 << 63) else v for v in static]

    def dims_of(self, value, op=None):
        """Sizes of a tensor value."""
        entry = self.env.get(value)
        if isinstance(entry, Subspan):
            return entry.view.shape
        if isinstance(entry, kir.View):
            return entry.shape
        if isinstance(entry, Empty):
            return entry.shape
        if isinstance(entry, Result):
            node = entry.node
            out = node.outputs[entry.index] if isinstance(node, Structured) else node.init
            return self.dims_of(out, op)
        shape = value.type.get_shape()
        if any(d < 0 for d in shape):
            raise error_at_op(op or self.func, "cannot tell the dynamic dims of a tensor value")
        return tuple(shape)

    def visit(self, op):
        """Record what ``op`` computes; raises CompileError for unsupported ops."""
        name = op.name
        if name in ("func.return", "return"):
            return
        if name == "arith.constant":
            ty = op.results[0].type
            if hasattr(ty, "get_shape"):
                raise error_at_op(op, "tensor constants inside a dispatch are not supported; "
                                      "outline them as bindings")
            value = op.value.value.data
            tname = sym.type_name(ty, op)
            self.env[op.results[0]] = (int(value) if tname.startswith("i") or tname == "index"
                                       else None)
            if not (tname.startswith("i") or tname == "index"):
                self.env[op.results[0]] = sym.ScalarConst(float(value), tname)
            return
        if name == "hal.interface.constant.load":
            ordinal = op.ordinal.value.data
            self.max_constant = max(self.max_constant, ordinal)
            self.layout = self.layout or op.layout
            self.env[op.results[0]] = kir.Constant(ordinal)
            return
        if name == "hal.interface.binding.subspan":
            return self._subspan(op)
        if name == "flow.dispatch.tensor.load":
            src = self.get(op.source, op)
            view = _slice(src.view, *self._slice_lists(op), op.result.type.get_shape(), op)
            self.env[op.result] = view
            return
        if name == "flow.dispatch.tensor.store":
            dst = self.get(op.target, op)
            if dst.access == "ro":
                raise error_at_op(op, "stores into a readonly binding")
            view = _slice(dst.view, *self._slice_lists(op), op.value.type.get_shape(), op)
            self.stores.append((op.value, view, op))
            return
        if name == "tensor.empty":
            shape = self._mixed(op, [d if d >= 0 else -(1 << 63) for d in op.tensor.type.get_shape()],
                                list(op.dynamic_sizes))
            self.env[op.tensor] = Empty(tuple(shape), sym.type_name(op.tensor.type.element_type, op))
            return
        if name in ("tensor.extract_slice",):
            return self._extract_slice(op)
        if name.startswith("linalg."):
            return self._linalg(op)
        if len(op.results) == 1:
            operands = [self.env.get(v) for v in op.operands]
            if all(sym.is_size(o) for o in operands):
                value = sym.index_value(op, operands)
                if value is not None:
                    self.env[op.results[0]] = value
                    return
        raise error_at_op(op, f"'{name}' is not supported inside a dispatch by rt's dispatch "
                              f"lowering")

    def _subspan(self, op):
        binding = op.binding.value.data
        self.layout = self.layout or op.layout
        ty = op.result.type
        if not hasattr(ty, "access"):
            raise error_at_op(op, "expected a !flow.dispatch.tensor<...> subspan")
        tensor = ty.bound_type
        etype = sym.type_name(tensor.element_type, op)
        dyn = iter(self.size(d, op) for d in op.dynamic_dims)
        shape = tuple(next(dyn) if d < 0 else d for d in tensor.get_shape())
        offset = 0
        if op.byte_offset:
            offset = self.size(op.byte_offset[0], op)
        esize = kir.element_size(etype)
        if isinstance(offset, int):
            if offset % esize:
                raise error_at_op(op, f"byte offset {offset} is not a multiple of the element "
                                      f"size {esize}")
            offset //= esize
        else:
            offset = sym.fold("floordiv", offset, esize)
        access = _ACCESS[ty.access.data]
        self.subspans[binding] = _merge_access(self.subspans.get(binding), access)
        self.env[op.result] = Subspan(kir.View(binding, etype, shape, offset), access)

    def _slice_lists(self, op):
        return (self._mixed(op, op.static_offsets.get_values(), op.offsets),
                self._mixed(op, op.static_sizes.get_values(), op.sizes),
                self._mixed(op, op.static_strides.get_values(), op.strides))

    def _extract_slice(self, op):
        src = self.get(op.source, op)
        if not isinstance(src, kir.View):
            raise error_at_op(op, "tensor.extract_slice of a computed value is not supported; "
                                  "only slices of loaded tensors are")
        lists = (self._mixed(op, op.static_offsets.get_values(), op.offsets),
                 self._mixed(op, op.static_sizes.get_values(), op.sizes),
                 self._mixed(op, op.static_strides.get_values(), op.strides))
        self.env[op.result] = _slice(src, *lists, op.result.type.get_shape(), op)

    def _linalg(self, op):
        if op.name in ("linalg.pack", "linalg.unpack"):
            node = Relayout(op, [op.source], op.dest)
        elif op.name == "linalg.mmt4d":
            node = Relayout(op, list(op.inputs), op.outputs[0])
        else:
            node = structured(op, self.env, lambda v: self.dims_of(v, op))
        for i, result in enumerate(op.results):
            self.env[result] = Result(node, i)

    # -- destinations ------------------------------------------------------------------------
    def finish(self):
        """Kernel ops for every store, in program order."""
        for value, view, op in self.stores:
            self.place(self.get(value, op), view, op)
        return self.ops

    def place(self, entry, view, op):
        """Make ``entry``'s contents exist in ``view``."""
        if isinstance(entry, Empty):
            return
        if isinstance(entry, kir.View):
            if entry != view:
                self.ops.append(_copy(entry, view))
            return
        if not isinstance(entry, Result):
            raise error_at_op(op, "stores a value that is not a tensor computed in the dispatch")
        key = (id(entry.node), entry.index)
        if key in self.placed:
            if self.placed[key] != view:
                self.ops.append(_copy(self.placed[key], view))
            return
        self.placed[key] = view
        node = entry.node
        if isinstance(node, Relayout):
            return self._relayout(node, view)
        if len(node.outputs) != 1:
            raise error_at_op(node.op, "multi-result linalg ops are not supported by the dispatch "
                                       "lowering")
        self.place(self.get(node.outputs[0], node.op), view, node.op)
        node = inline_producers(node, self.env, lambda e: (id(e.node), e.index) in self.placed)
        kept, consts = [], {}
        for i, (value, amap) in enumerate(zip(node.inputs, node.maps)):
            e = self.get(value, node.op)
            if isinstance(e, sym.ScalarConst):
                consts[i] = (e.value, e.type)
            elif isinstance(e, int) and not isinstance(e, bool):
                consts[i] = (e, sym.type_name(value.type, node.op))
            elif sym.is_size(e):
                raise error_at_op(node.op, "a dynamic scalar operand of a linalg op is not "
                                           "supported in a dispatch (only constants)")
            else:
                kept.append((i, self.view_of(e, view, amap, node.maps[len(node.inputs)], node.op)))
        body, yields = _rebuild(node, [i for i, _ in kept], consts)
        self.ops.append(kir.Generic(
            tuple(node.domain), tuple(node.iterator_types), tuple(v for _, v in kept), (view,),
            tuple(node.maps[i] for i, _ in kept) + (node.maps[len(node.inputs)],),
            tuple(body), yields, node.kind))

    def view_of(self, entry, out_view, read_map, write_map, op):
        """A View holding ``entry`` for a consumer that writes ``out_view``."""
        if isinstance(entry, kir.View):
            return entry
        if isinstance(entry, Result):
            key = (id(entry.node), entry.index)
            if key in self.placed:
                return self.placed[key]
            if read_map == write_map:
                self.place(entry, out_view, op)
                return out_view
        raise error_at_op(op, "an operand is an intermediate tensor that would need scratch "
                              "memory (it is not stored and cannot be computed in place); "
                              "rt's dispatch lowering does not allocate workgroup scratch")

    def _relayout(self, node, view):
        op = node.op
        operands = [self.view_of(self.get(v, op), None, None, (), op) for v in node.operands]
        if op.name == "linalg.mmt4d":
            init = self.get(node.init, op)
            accumulate = not isinstance(init, Empty)
            if accumulate:
                self.place(init, view, op)
            self.ops.append(kir.Mmt4d(operands[0], operands[1], view, accumulate))
            return
        tiles = tuple(self._mixed(op, op.static_inner_tiles.get_values(), op.inner_tiles))
        perm = tuple(op.outer_dims_perm.get_values()) if op.outer_dims_perm is not None else None
        pos = tuple(op.inner_dims_pos.get_values())
        if op.name == "linalg.pack":
            pad = None
            if op.padding_value is not None:
                pv = self.get(op.padding_value, op)
                pad = pv.value if isinstance(pv, sym.ScalarConst) else pv
            self.ops.append(kir.Pack(operands[0], view, pos, tiles, perm, pad))
        else:
            self.ops.append(kir.Unpack(operands[0], view, pos, tiles, perm))

    # -- interface ---------------------------------------------------------------------------
    def binding_count(self):
        if self.layout is not None and hasattr(self.layout, "bindings"):
            return max(len(self.layout.bindings.data), max(self.subspans, default=-1) + 1)
        return max(self.subspans, default=-1) + 1

    def constant_count(self):
        if self.layout is not None and hasattr(self.layout, "constants"):
            return max(self.layout.constants.value.data, self.max_constant + 1)
        return self.max_constant + 1

    def binding_access(self):
        return tuple(self.subspans.get(i, "rw") for i in range(self.binding_count()))


def _merge_access(old, new):
    return new if old in (None, new) else "rw"


def _rebuild(node, kept, consts):
    """Body and yields of ``node`` with only inputs ``kept`` as block arguments and the
    inputs in ``consts`` (position -> (value, type)) turned into arith.constant ops."""
    n_in, n_out = len(node.inputs), len(node.outputs)
    mapping = {pos: new for new, pos in enumerate(kept)}
    for o in range(n_out):
        mapping[n_in + o] = len(kept) + o
    prefix = []
    for pos, (value, type_) in consts.items():
        mapping[pos] = len(kept) + n_out + len(prefix)
        prefix.append(kir.ScalarOp("arith.constant", (), type_, (("value", value),)))
    base = len(kept) + n_out + len(prefix)
    for i in range(len(node.body)):
        mapping[n_in + n_out + i] = base + i
    body = prefix + [replace(s, operands=tuple(mapping[v] for v in s.operands)) for s in node.body]
    return body, tuple(mapping[v] for v in node.yields)


def _copy(src, dst):
    rank = len(dst.shape)
    ident = tuple(kir.AffineExpr.dim(d) for d in range(rank))
    return kir.Generic(tuple(dst.shape), ("parallel",) * rank, (src,), (dst,), (ident, ident),
                       (), (0,), "copy")
