"""``iree_linalg_ext.fft`` as one ``linalg.generic`` per stage (helper of ``rt-decompose-linalg-ext``).

A stage ``s`` on parts ``re``/``im`` of shape ``[..., n]`` (``m = 2^s``, ``h = m / 2``) reshapes
both to ``[..., n / m, 2, h]``: index ``(.., k, 0, j)`` is ``x[k m + j]`` (the butterfly's
upper input u), ``(.., k, 1, j)`` is ``x[k m + j + h]`` (the lower input v). One parallel
generic over that shape reads u, v and ``w[j]`` and writes ``u + w v`` where the middle index is
0 and ``u - w v`` where it is 1; the results are reshaped back to ``[..., n]``. Work is O(n)
per stage, so the log2(n) stages of an FFT are O(n log n).

Dynamic dims: leading ones keep their run-time size; a dynamic innermost ``n`` is checked on the
host to be a multiple of ``m`` (IREE's stages need a power-of-two length), so empty tensors pass.

Source followed: IREE ``FftOp::generateScalarImplWithCoeffBuf`` (``TilingInterfaceImpl.cpp``):
the same butterfly arithmetic, in the same order of operations.
"""
import numpy as np
from xdsl.dialects import arith as xarith
from xdsl.dialects import cf, tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, IntegerAttr, TensorType
from xdsl.ir.affine import AffineExpr

from rt.compiler.dialects import arith
from rt.compiler.dialects.flow_tensor_shape import TensorReshapeOp
from rt.compiler.frontend.diagnostics import error_at_op
from rt.compiler.frontend.elements import make_elements, storage_dtype
from rt.compiler.helpers.linalg_ext.builders import index, index_const
from rt.compiler.helpers.stablehlo.builders import affine_maps, dim_exprs, generic


def _constant_stage(op):
    owner = op.stage.owner
    value = getattr(owner, "value", None)
    if not isinstance(value, IntegerAttr):
        raise error_at_op(op, "'iree_linalg_ext.fft': rt needs the stage as a constant (arith.constant N : index)")
    return value.value.data


def forward_coefficients(m, dtype):
    """(re, im) numpy arrays of ``exp(-2 pi i j / m)``, ``j < m / 2``, in ``dtype``."""
    angle = -2.0 * np.pi * np.arange(m // 2) / m
    return np.cos(angle).astype(dtype), np.sin(angle).astype(dtype)


def fft_stage(b, op):
    """The decomposition of ``iree_linalg_ext.fft`` ``op`` on tensors -> (re, im) results."""
    re, im = op.outputs
    type_ = re.type
    shape = list(type_.get_shape())
    stage, n = _constant_stage(op), shape[-1]
    m = 1 << stage if 1 <= stage < 63 else 0
    if m < 2 or (n != DYNAMIC_INDEX and m > n):
        length = "n" if n == DYNAMIC_INDEX else n
        raise error_at_op(op, f"'iree_linalg_ext.fft': stage {stage} does not fit the innermost dim "
                              f"{'?' if n == DYNAMIC_INDEX else n} (1 <= stage <= log2({length}))")
    # dynamic dims: the leading ones keep their size, the innermost n is cut in n / m blocks
    # (a host check that m divides it, as IREE's stages need a power-of-two length)
    sizes = {i: b.add(tensor.DimOp(re, index_const(b, i))) for i, d in enumerate(shape) if d == DYNAMIC_INDEX}
    whole = [sizes[i] for i in sorted(sizes)]
    blocks = []
    if n == DYNAMIC_INDEX:
        rest = b.add(xarith.RemUIOp(sizes[len(shape) - 1], index_const(b, m)))
        b.add(cf.AssertOp(b.add(arith.CmpIOp(rest, index_const(b, 0), "eq")),
                          f"iree_linalg_ext.fft: stage {stage} needs an innermost dim that is a multiple of {m}"))
        blocks = [b.add(xarith.DivUIOp(sizes[len(shape) - 1], index_const(b, m)))]
    split = [sizes[i] for i in sorted(sizes) if i < len(shape) - 1] + blocks
    half = m // 2
    element = type_.get_element_type()
    coeff_type = TensorType(element, [half])
    if op.coefficients is None:
        values = forward_coefficients(m, storage_dtype(element))
        coefficients = [b.add(arith.ConstantOp.create(result_types=[coeff_type],
                                                      properties={"value": make_elements(coeff_type, v)}))
                        for v in values]
    else:
        coefficients = list(op.coefficients)
        if any(c.type.get_shape() != (half,) for c in coefficients):
            raise error_at_op(op, f"'iree_linalg_ext.fft': stage {stage} takes {half} coefficients, got "
                                  f"{coefficients[0].type}")
    blocked = TensorType(element, shape[:-1] + [n // m if n != DYNAMIC_INDEX else DYNAMIC_INDEX, 2, half])
    parts = [b.add(TensorReshapeOp.build(operands=[v, whole, split], result_types=[blocked])) for v in (re, im)]
    rank = len(shape) + 2
    d = AffineExpr.dimension
    lead = [d(i) for i in range(rank - 2)]
    upper, lower = lead + [AffineExpr.constant(0), d(rank - 1)], lead + [AffineExpr.constant(1), d(rank - 1)]
    maps = affine_maps(rank, [d(rank - 1)], [d(rank - 1)], upper, upper, lower, lower, dim_exprs(rank),
                       dim_exprs(rank))

    def body(s, args):
        w_re, w_im, u_re, u_im, v_re, v_im = args[:6]
        t_re = s.add(xarith.SubfOp(s.add(xarith.MulfOp(w_re, v_re)), s.add(xarith.MulfOp(w_im, v_im))))
        t_im = s.add(xarith.AddfOp(s.add(xarith.MulfOp(w_re, v_im)), s.add(xarith.MulfOp(w_im, v_re))))
        is_upper = s.add(arith.CmpIOp(index(s, rank - 2), index_const(s, 0), "eq"))
        out = []
        for u, t in ((u_re, t_re), (u_im, t_im)):
            plus, minus = s.add(xarith.AddfOp(u, t)), s.add(xarith.SubfOp(u, t))
            out.append(s.add(arith.SelectOp.build(operands=[is_upper, plus, minus], result_types=[u.type])))
        return out
    inputs = coefficients + [parts[0], parts[1], parts[0], parts[1]]
    results = generic(b, inputs, [b.add(tensor.EmptyOp(split, blocked)), b.add(tensor.EmptyOp(split, blocked))], maps,
                      ["parallel"] * rank, [blocked, blocked], body)
    return [b.add(TensorReshapeOp.build(operands=[r, split, whole], result_types=[type_])) for r in results]
