"""StableHLO ``dot`` / ``dot_general`` as ``linalg.matmul``, ``linalg.batch_matmul`` or a
contraction ``linalg.generic`` (helper).

Called by ``iree-stablehlo-to-iree-input`` (``stablehlo_to_iree_input.py``) with the op and an
:class:`OpSink`; each returns the result values. Canonical layouts (``[M,K]x[K,N]``,
``[B,M,K]x[B,K,N]``, one element type) become the named ops; any other dimension numbers become
a generic over (batch, lhs free, rhs free, contracting) dims accumulating in the result element
type into a zero-filled init. Dynamic dims are allowed (sizes from ``tensor.dim`` of the
operands). Dimension numbers that do not fit the operand and result types are a located
CompileError.

Source followed: IREE ``compiler/plugins/input/StableHLO/Conversion/StableHLOToLinalgDotProd.cpp``
(same choice of named op or generic), the StableHLO spec for ``dot_general`` semantics.
"""
from xdsl.dialects.builtin import DYNAMIC_INDEX
from xdsl.ir.affine import AffineExpr

from rt.compiler.dialects import stablehlo as hlo
from rt.compiler.dialects.linalg import BatchMatmulOp, FillOp, MatmulOp
from rt.compiler.frontend.diagnostics import error_at_op
from rt.compiler.helpers.stablehlo.builders import affine_maps, empty, generic, require_ranked
from rt.compiler.helpers.stablehlo.elementwise import constant, convert, element_type, emit_elementwise


def _named(b, cls, inputs, init):
    """A named structured op ``cls`` (``linalg.matmul``, ...) of ``inputs`` accumulating into ``init``."""
    return b.add(cls.build(operands=[inputs, [init]], result_types=[[init.type]],
                           regions=[cls.get_hidden_region(inputs, [init])]))


def _zero_filled(b, type_, sources=None):
    zero = constant(b, 0, element_type(type_))
    return b.add(FillOp([zero], [empty(b, type_, sources)], [type_]))


def convert_dot(op, b):
    """``stablehlo.dot``: contracts the last lhs dim with the first rhs dim."""
    lhs, rhs = op.inputs
    lc = [lhs.type.get_num_dims() - 1]
    return [contract(op, b, [], [], lc, [0])]


def convert_dot_general(op, b):
    """``stablehlo.dot_general`` with its ``#stablehlo.dot<...>`` dimension numbers."""
    dims = op.attributes.get("dot_dimension_numbers")
    if not isinstance(dims, hlo.DotDimensionNumbersAttr):
        raise error_at_op(op, "'stablehlo.dot_general' needs dot_dimension_numbers = #stablehlo.dot<...>")
    get = [[d.value.data for d in getattr(dims, k).data] for k in (
        "lhs_batching_dimensions", "rhs_batching_dimensions", "lhs_contracting_dimensions",
        "rhs_contracting_dimensions")]
    return [contract(op, b, *get)]


def contract(op, b, lb, rb, lc, rc):
    """``op``'s two operands contracted over lhs dims ``lc`` with rhs dims ``rc``, batched over ``lb`` / ``rb``."""
    lhs, rhs = op.inputs
    type_ = op.outputs[0].type
    require_ranked(op, lhs.type, rhs.type, type_)
    lr, rr = lhs.type.get_num_dims(), rhs.type.get_num_dims()
    lf = [d for d in range(lr) if d not in lb and d not in lc]
    rf = [d for d in range(rr) if d not in rb and d not in rc]
    ls, rs = lhs.type.get_shape(), rhs.type.get_shape()
    expected = [ls[x] for x in lb] + [ls[x] for x in lf] + [rs[y] for y in rf]
    if (len(lb) != len(rb) or len(lc) != len(rc) or len(set(lb + lc)) != len(lb + lc)
            or len(set(rb + rc)) != len(rb + rc) or any(not 0 <= x < lr for x in lb + lc)
            or any(not 0 <= y < rr for y in rb + rc) or any(
                ls[x] != rs[y] and DYNAMIC_INDEX not in (ls[x], rs[y]) for x, y in zip(lb + lc, rb + rc))
            or any(r != e and DYNAMIC_INDEX not in (r, e) for r, e in zip(type_.get_shape(), expected))
            or type_.get_num_dims() != len(expected)):
        raise error_at_op(op, f"'{op.name}': dimension numbers (batch {lb} x {rb}, contracting {lc} x {rc}) "
                              f"do not fit {lhs.type} x {rhs.type} -> {type_}")
    same = element_type(lhs.type) == element_type(rhs.type) == element_type(type_)
    sources = [(lhs, x) for x in lb] + [(lhs, x) for x in lf] + [(rhs, y) for y in rf]
    init = _zero_filled(b, type_, sources)
    if same and not lb and lr == rr == 2 and lc == [1] and rc == [0]:
        return _named(b, MatmulOp, [lhs, rhs], init)
    if same and lb == rb == [0] and lr == rr == 3 and lc == [2] and rc == [1]:
        return _named(b, BatchMatmulOp, [lhs, rhs], init)
    nb, nl, nr, nk = len(lb), len(lf), len(rf), len(lc)
    rank = nb + nl + nr + nk
    d = AffineExpr.dimension
    lhs_exprs, rhs_exprs = [None] * lr, [None] * rr
    for i, (x, y) in enumerate(zip(lb, rb)):
        lhs_exprs[x], rhs_exprs[y] = d(i), d(i)
    for i, x in enumerate(lf):
        lhs_exprs[x] = d(nb + i)
    for i, y in enumerate(rf):
        rhs_exprs[y] = d(nb + nl + i)
    for i, (x, y) in enumerate(zip(lc, rc)):
        lhs_exprs[x], rhs_exprs[y] = d(nb + nl + nr + i), d(nb + nl + nr + i)
    out_exprs = [d(i) for i in range(nb + nl + nr)]
    element = element_type(type_)

    def body(s, args):
        a, c, acc = args
        a = convert(s, op, a, element)
        c = convert(s, op, c, element)
        product = emit_elementwise(s, op, [a, c], element, kind=hlo.MulOp)
        return [emit_elementwise(s, op, [acc, product], element, kind=hlo.AddOp)]
    iterators = ["parallel"] * (nb + nl + nr) + ["reduction"] * nk
    return generic(b, [lhs, rhs], [init], affine_maps(rank, lhs_exprs, rhs_exprs, out_exprs), iterators, [type_],
                    body)[0]
