"""``iree_linalg_ext.attention`` / ``online_attention`` in a dispatch -> Kernel IR Generics.

The op becomes the steps of IREE's online-attention decomposition
(``LinalgExt/IR/AggregatedOpInterfaceImpl.cpp``), each a Generic over a subset of the op's own
iteration dims (roles batch, M, K1, K2, N: ``_linalg_ext_attention.dim_roles``):

1. ``S[b,m,k2] = sum_k1 (Q * scale * log2 e) * K``, in f32 (zero fill, then a reduction);
2. ``S = region(S) + mask`` (i1: 0 / -inf; float: ``mask * log2 e``), skipped when both are trivial;
3. ``MX = max(MX, max_k2 S)`` -- from -inf (attention) or the incoming max (online, whose old
   value is kept in ``MX0`` first);
4. ``S = exp2(S - MX)`` in place (S now holds P);
5. ``L = L * exp2(MX0 - MX) + sum_k2 P`` (attention: L from 0);
6. ``ACC = ACC * exp2(MX0 - MX) + P @ V`` (attention: ACC from 0);
7. attention only: ``OUT = ACC / L``.

S, MX0 (and MX, L, ACC when the op's own outputs cannot hold them) are workgroup scratch, which
the distribution tiles along the batch and M dims it splits across workgroups: a workgroup
holds the scores of its own rows only (``tile_M x K2`` per batch entry), never the whole
``B x M x K2`` matrix. Backends naming ``"attention"`` in ``kernel_ir_features`` (llvm-cpu)
get the plain case -- attention with one dim per role, an identity region, a constant scale
and at most a mask over batch/M/K2 -- as one ``kernel_ir.Attention`` (their flash kernel)
instead; everything else,
and every op on vmvx, runs these Generics.

Raises CompileError at the op for a mask indexed by a K1 or N dim.
"""
import math
from dataclasses import dataclass

from rt.compiler.codegen import kernel_ir as kir
from rt.compiler.codegen.llvm_cpu import sizes as sz
from rt.compiler.codegen.lowering import symbols as sym
from rt.compiler.codegen.lowering.structured import convert_body
from rt.compiler.frontend import error_at_op

Op = kir.Opcode
LOG2E = 1.0 / math.log(2.0)


@dataclass
class AttentionNode:
    """An attention op awaiting destinations: ``outputs`` are its outs operands (SSA values)."""

    op: object
    outputs: list


def record(lowering, op):
    """Give each result of attention ``op`` a ``placement.Result`` of a new AttentionNode."""
    from rt.compiler.codegen.lowering.placement import Result

    node = AttentionNode(op, list(op.outputs))
    for i, result in enumerate(op.results):
        lowering.env[result] = Result(node, i)


class _Body:
    """ScalarOps of one Generic body over ``n_args`` block arguments."""

    def __init__(self, n_args):
        self.n_args = n_args
        self.ops = []

    def add(self, opcode, operands, type_="f32", **attrs):
        self.ops.append(kir.ScalarOp(opcode, tuple(operands), type_, tuple(sorted(attrs.items()))))
        return self.n_args + len(self.ops) - 1

    def f32(self, value, type_):
        """``value`` of scalar type ``type_`` as f32."""
        if type_ == "f32":
            return value
        return self.add(Op.TRUNCF if type_ == "f64" else Op.EXTF, (value,))

    def const(self, value):
        return self.add(Op.CONSTANT, (), value=value)

    def program(self, ops, args=()):
        """Append ``ops`` whose local ids ``0..len(args)-1`` are ``args`` and the rest their own
        results in order; returns the id of the last."""
        base = self.n_args + len(self.ops) - len(args)
        ids = lambda o: args[o] if o < len(args) else base + o
        for s in ops:
            self.ops.append(kir.ScalarOp(s.opcode, tuple(ids(o) for o in s.operands), s.result_type, s.attrs))
        return self.n_args + len(self.ops) - 1

    def cast(self, value, type_):
        """f32 ``value`` stored as ``type_``."""
        if type_ == "f32":
            return value
        return self.add(Op.EXTF if type_ == "f64" else Op.TRUNCF, (value,), type_)


class _Emitter:
    """The Generics of one attention op, appended to the placement's ops."""

    def __init__(self, placement, node, views):
        self.pl = placement
        self.op = op = node.op
        self.views = views
        maps = [sym.affine_map(m, op) for m in op.maps()]
        self.masked = op.mask is not None
        self.q_map, self.k_map, self.v_map = maps[:3]
        self.mask_map = maps[4] if self.masked else None
        self.out_maps = maps[4 + self.masked:]
        roles = op.roles()
        self.dims = {r: [d for d, role in enumerate(roles) if role == r] for r in ("batch", "m", "k1", "k2", "n")}
        self.extent = [None] * len(roles)
        for value, amap in ((op.query, self.q_map), (op.key, self.k_map), (op.value, self.v_map),
                            (node.outputs[0], self.out_maps[0])):
            for expr, size in zip(amap, placement.dims_of(value, op)):
                self.extent[sym.single_dim(expr)] = size
        self.inputs = [placement.view_of(placement.get(v, op), v, op) for v in (op.query, op.key, op.value)]
        self.mask = placement.view_of(placement.get(op.mask, op), op.mask, op) if self.masked else None
        self.types = [v.element_type for v in self.inputs]

    def order(self, *roles):
        return [d for r in roles for d in self.dims[r]]

    def remap(self, amap, order, what):
        """``amap`` (over the op's dims) over the sub-domain ``order``."""
        out = []
        for e in amap:
            if any(d not in order for d, _ in e.terms):
                raise error_at_op(self.op, f"the {what} is indexed by a dim outside "
                                           f"{'/'.join(sorted({r for r, ds in self.dims.items() for d in order if d in ds}))}; "
                                           "rt's attention lowering expects it indexed by batch, M and K2 dims only")
            out.append(kir.AffineExpr(tuple((order.index(d), c) for d, c in e.terms), e.constant))
        return tuple(out)

    def ident(self, order, roles):
        return tuple(kir.AffineExpr.dim(order.index(d)) for d in self.order(*roles))

    def generic(self, order, reduced, inputs, outputs, body, yields, kind="generic"):
        """Append a Generic over sub-domain ``order`` (op dims; ``reduced`` of them reductions).
        inputs/outputs: (view, map over order)."""
        self.pl.ops.append(kir.Generic(
            tuple(self.extent[d] for d in order), tuple("reduction" if d in reduced else "parallel" for d in order),
            tuple(v for v, _ in inputs), tuple(v for v, _ in outputs),
            tuple(m for _, m in inputs) + tuple(m for _, m in outputs), tuple(body.ops), tuple(yields), kind))

    def fill(self, view, value):
        body = _Body(1)
        stored = body.cast(body.const(value), view.element_type)
        ident = tuple(kir.AffineExpr.dim(d) for d in range(len(view.shape)))
        self.pl.ops.append(kir.Generic(tuple(view.shape), ("parallel",) * len(view.shape), (), (view,), (ident,),
                                       tuple(body.ops), (stored,), "fill"))

    def scratch(self, roles, type_="f32"):
        return self.pl.new_scratch(type_, tuple(self.extent[d] for d in self.order(*roles)))

    def scale(self, body):
        """Body value ``scale * log2 e`` in f32."""
        op, pl = self.op, self.pl
        entry = pl.get(op.scale, op)
        symbol = entry if isinstance(entry, sym.ScalarConst) else op.scale
        value = body.program(pl._program(symbol, sym.type_name(op.scale.type, op), op))
        return body.add(Op.MULF, (body.f32(value, sym.type_name(op.scale.type, op)), body.const(LOG2E)))

    def scores(self, s):
        """Steps 1 and 2 into scratch ``s`` [batch, M, K2]."""
        order = self.order("batch", "m", "k2", "k1")
        self.fill(s, 0.0)
        body = _Body(3)
        q = body.add(Op.MULF, (body.f32(0, self.types[0]), self.scale(body)))
        product = body.add(Op.MULF, (q, body.f32(1, self.types[1])))
        total = body.add(Op.ADDF, (2, product))
        self.generic(order, self.dims["k1"], [(self.inputs[0], self.remap(self.q_map, order, "query")),
                                               (self.inputs[1], self.remap(self.k_map, order, "key"))],
                     [(s, self.ident(order, ("batch", "m", "k2")))], body, (total,), "reduction")
        block = self.op.region.block
        region, yields = convert_body(block, 1, self.pl.env, self.op)
        if not self.masked and not region and yields == (0,):
            return
        order = self.order("batch", "m", "k2")
        inputs = [(self.mask, self.remap(self.mask_map, order, "mask"))] if self.masked else []
        body = _Body(len(inputs) + 1)
        score = len(inputs)
        if yields[0] != 0:
            base = body.n_args + len(body.ops) - 1
            body.program(region, (score,))
            score = base + yields[0]
        if self.masked:
            mtype = self.mask.element_type
            if mtype == "i1":
                term = body.add(Op.SELECT, (0, body.const(0.0), body.const(-math.inf)))
            else:
                term = body.add(Op.MULF, (body.f32(0, mtype), body.const(LOG2E)))
            score = body.add(Op.ADDF, (score, term))
        self.generic(order, (), inputs, [(s, self.ident(order, ("batch", "m", "k2")))], body, (score,), "elementwise")

    def emit(self):
        online = len(self.views) == 3
        s = self.scratch(("batch", "m", "k2"))
        self.scores(s)
        rows = self.order("batch", "m", "k2")
        row = self.ident(rows, ("batch", "m"))
        sk = self.ident(rows, ("batch", "m", "k2"))
        if online:
            acc, mx, total = self.views
            mx0 = self.scratch(("batch", "m"))
            self.copy(mx, mx0)
        else:
            acc = self.views[0] if self.views[0].element_type == "f32" else self.scratch(("batch", "m", "n"))
            mx, total, mx0 = self.scratch(("batch", "m")), self.scratch(("batch", "m")), None
            self.fill(mx, -math.inf)
            self.fill(total, 0.0)
            self.fill(acc, 0.0)
        mx_map = self.out_map(1, rows) if online else row
        sum_map = self.out_map(2, rows) if online else row
        body = _Body(2)  # step 3
        top = body.cast(body.add(Op.MAXIMUMF, (body.f32(1, mx.element_type), 0)), mx.element_type)
        self.generic(rows, self.dims["k2"], [(s, sk)], [(mx, mx_map)], body, (top,), "reduction")
        body = _Body(2)  # step 4
        p = body.add(Op.EXP2, (body.add(Op.SUBF, (1, body.f32(0, mx.element_type))),))
        self.generic(rows, (), [(mx, mx_map)], [(s, sk)], body, (p,), "elementwise")
        if online:  # the rescale of steps 5 and 6
            for view, roles, index in ((total, ("batch", "m"), 2), (acc, ("batch", "m", "n"), 0)):
                order = self.order(*roles)
                body = _Body(3)
                alpha = body.add(Op.EXP2, (body.add(Op.SUBF, (0, body.f32(1, mx.element_type))),))
                scaled = body.cast(body.add(Op.MULF, (body.f32(2, view.element_type), alpha)), view.element_type)
                self.generic(order, (), [(mx0, self.ident(order, ("batch", "m"))), (mx, self.out_map(1, order))],
                             [(view, self.out_map(index, order))], body, (scaled,), "elementwise")
        body = _Body(2)  # step 5
        added = body.cast(body.add(Op.ADDF, (body.f32(1, total.element_type), 0)), total.element_type)
        self.generic(rows, self.dims["k2"], [(s, sk)], [(total, sum_map)], body, (added,), "reduction")
        order = self.order("batch", "m", "n", "k2")  # step 6
        body = _Body(3)
        term = body.add(Op.MULF, (0, body.f32(1, self.types[2])))
        added = body.cast(body.add(Op.ADDF, (body.f32(2, acc.element_type), term)), acc.element_type)
        acc_map = self.out_map(0, order) if acc is self.views[0] else self.ident(order, ("batch", "m", "n"))
        self.generic(order, self.dims["k2"], [(s, self.ident(order, ("batch", "m", "k2"))),
                                               (self.inputs[2], self.remap(self.v_map, order, "value"))],
                     [(acc, acc_map)], body, (added,), "reduction")
        if not online:  # step 7
            order = self.order("batch", "m", "n")
            out = self.views[0]
            acc_map = self.out_map(0, order) if acc is out else self.ident(order, ("batch", "m", "n"))
            body = _Body(3)
            quotient = body.cast(body.add(Op.DIVF, (0, 1)), out.element_type)
            self.generic(order, (), [(acc, acc_map), (total, self.ident(order, ("batch", "m")))],
                         [(out, self.out_map(0, order))], body, (quotient,), "elementwise")

    def out_map(self, index, order):
        return self.remap(self.out_maps[index], order, f"output {index}")

    def copy(self, src, dst):
        ident = tuple(kir.AffineExpr.dim(d) for d in range(len(dst.shape)))
        self.pl.ops.append(kir.Generic(tuple(dst.shape), ("parallel",) * len(dst.shape), (src,), (dst,),
                                       (ident, ident), (), (0,), "copy"))


def place(placement, node, index, view):
    """Compute every result of attention ``node`` (result ``index`` into ``view``, the others
    into their stores' views or scratch) with the Generics of the module docstring."""
    op = node.op
    views = []
    for j, out in enumerate(node.outputs):
        key = (id(node), j)
        if j == index:
            dest = view
        else:
            dest = placement.placed.get(key) or placement.store_views.get(key)
            if dest is None:
                dest = placement.new_scratch(sym.type_name(out.type.element_type, op), placement.dims_of(out, op))
        placement.placed[key] = dest
        views.append(dest)
    if len(views) == 3:
        for out, dest in zip(node.outputs, views):
            placement.place(placement.get(out, op), dest, op)
    emitter = _Emitter(placement, node, views)
    fused = _fused(emitter) if "attention" in getattr(placement, "features", ()) else None
    if fused is not None:
        placement.ops.append(fused)
    else:
        emitter.emit()


def _fused(e):
    """The kernel_ir.Attention computing ``e``'s op, or None when it is not the plain case the
    fused op covers (attention with one dim per role, an identity region, a constant scale)."""
    op = e.op
    region, yields = convert_body(op.region.block, 1, e.pl.env, op)
    scale = e.pl.get(op.scale, op)
    if (len(e.views) != 1 or yields != (0,) or not isinstance(scale, sym.ScalarConst)
            or any(len(e.dims[r]) != 1 for r in ("batch", "m", "k1", "k2", "n"))):
        return None
    d = {r: e.dims[r][0] for r in e.dims}
    q, k, v = (_canonical(view, amap, [d[r] for r in roles]) for view, amap, roles in (
        (e.inputs[0], e.q_map, ("batch", "m", "k1")), (e.inputs[1], e.k_map, ("batch", "k2", "k1")),
        (e.inputs[2], e.v_map, ("batch", "k2", "n"))))
    out = _canonical(e.views[0], e.out_maps[0], [d["batch"], d["m"], d["n"]])
    mask = None
    if e.masked:
        dims = [d["batch"], d["m"], d["k2"]]
        if any(sym.single_dim(x) not in dims for x in e.mask_map):
            return None
        mask = _canonical(e.mask, e.mask_map, dims, e.extent)
    return kir.Attention(q, k, v, out, float(scale.value), mask)


def _canonical(view, amap, dims, extent=None):
    """``view`` (indexed by op dims through ``amap``) with its dims reordered to ``dims``; a dim
    it lacks (a broadcast mask) gets the op's ``extent`` and stride 0."""
    strides = sz.view_strides(view)
    at = {sym.single_dim(expr): k for k, expr in enumerate(amap)}
    shape = tuple(view.shape[at[x]] if x in at else extent[x] for x in dims)
    permuted = tuple(strides[at[x]] if x in at else 0 for x in dims)
    return kir.View(view.binding, view.element_type, shape, view.offset,
                    None if permuted == sz.contiguous_strides(shape) else permuted, view.extent)
