"""linalg ops on tensors -> ``Structured``: a generic-form description (maps, iterators, body).

Every linalg op with indexing maps (generic and the named ops: fill, copy, matmul,
batch_matmul, matvec, vecmat, dot, transpose, conv_2d_*, depthwise, pooling_*, elementwise
named ops) is read through ``get_indexing_maps`` / ``get_iterator_types`` and its (possibly
hidden) region; ``linalg.broadcast`` and ``linalg.reduce`` are rebuilt in generic form here.
A ``linalg.generic`` carrying a string attribute ``rt.kind`` (set by rt's own
rewrites, e.g. the packed-filter convolution of conv data tiling) takes it as its kind hint.
Body ops become kernel_ir.ScalarOps numbered after the block arguments; scalars captured from
outside the body become constants or the ops computing them from push constants
(``scalars.scalar_program``); a ``tensor.extract`` of a captured tensor (a gather) becomes a
``tensor.extract`` ScalarOp whose tensor placement turns into a View.

Source: MLIR LinalgStructuredInterface (indexing maps, iterator types, region) and
LinalgNamedStructuredOps.yaml (the named ops' generic forms).
"""
from dataclasses import dataclass

from xdsl.dialects import tensor
from xdsl.dialects.builtin import StringAttr
from xdsl.dialects.linalg import ops as xlinalg
from xdsl.traits import IsTerminator

from rt.compiler.codegen import kernel_ir as kir
from rt.compiler.codegen.lowering.scalars import scalar_op, scalar_program, splice
from rt.compiler.codegen.lowering.symbols import ScalarConst, affine_map, type_name
from rt.compiler.dialects.linalg_named import NAMED_OP_CLASSES as NAMED
from rt.compiler.frontend import error_at_op
from rt.compiler.op_handlers import OpTable

#: Kind hints by linalg op class (kernel_ir.Generic.kind). rt's named ops replace xDSL's
#: (``NAMED``); where xDSL has a class of the same op too, that one is listed as well.
KINDS = OpTable({
    xlinalg.FillOp: "fill", xlinalg.CopyOp: "copy",
    NAMED["matmul"]: "matmul", xlinalg.MatmulOp: "matmul", NAMED["batch_matmul"]: "batch_matmul",
    NAMED["matvec"]: "matvec", NAMED["vecmat"]: "matvec", NAMED["batch_matvec"]: "matvec",
    NAMED["dot"]: "reduction", xlinalg.TransposeOp: "transpose",
    xlinalg.BroadcastOp: "broadcast", xlinalg.ReduceOp: "reduction",
    NAMED["conv_2d_nhwc_hwcf"]: "conv", xlinalg.Conv2DNhwc_HwcfOp: "conv",
    NAMED["conv_2d_nchw_fchw"]: "conv", xlinalg.Conv2DNchwFchwOp: "conv",
    NAMED["depthwise_conv_2d_nhwc_hwc"]: "conv", NAMED["depthwise_conv_2d_nchw_chw"]: "conv",
    NAMED["pooling_nhwc_max"]: "pooling",
    NAMED["pooling_nhwc_sum"]: "pooling", NAMED["pooling_nchw_sum"]: "pooling",
    NAMED["pooling_nchw_max"]: "pooling", xlinalg.PoolingNchwMaxOp: "pooling",
    NAMED["batch_mmt4d"]: "batch_mmt4d",
})


@dataclass
class Structured:
    """A linalg op in generic form. inputs/outputs: the op's SSA operands (tensors or scalars);
    maps: per operand, tuple of AffineExpr; body: ScalarOps; yields: value ids; op: the xDSL op."""

    op: object
    domain: tuple
    iterator_types: tuple
    inputs: list
    outputs: list
    maps: list
    body: list
    yields: tuple
    kind: str


def convert_body(block, n_args, env, op):
    """Block ops -> (ScalarOps, yields). env maps SSA values defined outside to symbols; a
    captured scalar becomes its ``scalar_program`` (constants, push constants and arith on
    them), run before the body's own ops."""
    ids = {arg: i for i, arg in enumerate(block.args)}
    body = []

    def value_id(v, user):
        if v in ids:
            return ids[v]
        sym = env.get(v)
        if isinstance(sym, ScalarConst):
            body.append(kir.ScalarOp(kir.Opcode.CONSTANT, (), sym.type, (("value", sym.value),)))
        else:
            body.extend(splice(scalar_program(v, user), n_args + len(body)))
        ids[v] = n_args + len(body) - 1
        return ids[v]

    for inner in block.ops:
        if inner.has_trait(IsTerminator):  # linalg.yield, iree_linalg_ext.yield
            return body, tuple(value_id(v, inner) for v in inner.operands)
        if isinstance(inner, tensor.ExtractOp):
            body.append(_extract(inner, tuple(value_id(v, inner) for v in inner.indices), ids))
        else:
            body.append(scalar_op(inner, tuple(value_id(v, inner) for v in inner.operands)))
        for result in inner.results:  # cf.assert has none
            ids[result] = n_args + len(body) - 1
    raise error_at_op(op, "linalg body has no linalg.yield")


def _extract(op, index_ids, ids):
    """The ScalarOp of a ``tensor.extract`` of a tensor captured from outside the body (a
    gather); attr ``source`` is that SSA tensor until placement resolves it to a View."""
    if op.tensor in ids or not hasattr(op.tensor.type, "get_shape"):
        raise error_at_op(op, "'tensor.extract' in a linalg body must read a tensor defined "
                              "outside the body")
    return kir.ScalarOp(kir.Opcode.EXTRACT, index_ids, type_name(op.result.type, op),
                        (("source", op.tensor),))


def _shape(value):
    return value.type.get_shape() if hasattr(value.type, "get_shape") else ()


def _operands(op):
    """(inputs, outputs) of a linalg op: ``input``/``init`` for broadcast and reduce (xDSL's
    names there), ``inputs``/``outputs`` otherwise."""
    if isinstance(op, (xlinalg.BroadcastOp, xlinalg.ReduceOp)):
        return [op.input], [op.init]
    return list(op.inputs), list(op.outputs)


def structured(op, env, dims_of):
    """The Structured form of linalg ``op``. dims_of(value) -> Sizes of a tensor value."""
    ins, outs = _operands(op)
    if isinstance(op, xlinalg.BroadcastOp):
        rank = len(_shape(outs[0]))
        kept = [d for d in range(rank) if d not in op.dimensions.get_values()]
        maps = [tuple(kir.AffineExpr.dim(d) for d in kept),
                tuple(kir.AffineExpr.dim(d) for d in range(rank))]
        return Structured(op, tuple(dims_of(outs[0])), ("parallel",) * rank, ins, outs, maps,
                          [], (0,), "broadcast")
    if isinstance(op, xlinalg.ReduceOp):
        rank = len(_shape(ins[0]))
        reduced = set(op.dimensions.get_values())
        kept = [d for d in range(rank) if d not in reduced]
        maps = [tuple(kir.AffineExpr.dim(d) for d in range(rank))] * len(ins) + [
            tuple(kir.AffineExpr.dim(d) for d in kept)] * len(outs)
        iterators = tuple("reduction" if d in reduced else "parallel" for d in range(rank))
        body, yields = convert_body(op.region.block, len(ins) + len(outs), env, op)
        return Structured(op, tuple(dims_of(ins[0])), iterators, ins, outs, maps, body, yields,
                          "reduction")
    if not hasattr(op, "get_indexing_maps"):
        raise error_at_op(op, f"'{op.name}' is not supported in a dispatch by rt's llvm-cpu/vmvx "
                              f"lowering")
    maps = [affine_map(m.data, op) for m in op.get_indexing_maps().data]
    iterators = tuple("reduction" if "reduction" in str(t.data).lower() else "parallel"
                      for t in op.get_iterator_types().data)
    body, yields = convert_body(op.body.block, len(ins) + len(outs), env, op)
    domain = _domain(op, maps, ins + outs, dims_of, len(iterators))
    kind = KINDS.get(op)
    if isinstance(op, xlinalg.GenericOp) and isinstance(op.attributes.get("rt.kind"), StringAttr):
        kind = op.attributes["rt.kind"].data
    if kind is None:
        kind = "reduction" if "reduction" in iterators else "elementwise"
    return Structured(op, domain, iterators, ins, outs, maps, body, yields, kind)


def _domain(op, maps, operands, dims_of, ndims):
    """Loop extents: each dim from the first operand dim indexed exactly by it."""
    domain = [None] * ndims
    for amap, value in zip(maps, operands):
        if not _shape(value):
            continue
        sizes = dims_of(value)
        for expr, size in zip(amap, sizes):
            if len(expr.terms) == 1 and expr.terms[0][1] == 1 and expr.constant == 0:
                d = expr.terms[0][0]
                if domain[d] is None:
                    domain[d] = size
    if any(d is None for d in domain):
        raise error_at_op(op, f"cannot infer every loop extent of '{op.name}' from its operands")
    return tuple(domain)
