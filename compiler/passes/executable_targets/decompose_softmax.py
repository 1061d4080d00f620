"""``iree-codegen-decompose-softmax``: ``linalg.softmax`` -> four ``linalg.generic`` ops.

Input: functions holding ``linalg.softmax dimension(d)`` (IREE keeps softmax whole through
dispatch creation, one dispatch per softmax, and decomposes it in codegen). Output, as MLIR's
``SoftmaxOp::decomposeOperation``: the maximum along ``d`` (``arith.maxnumf`` from -inf), the
numerator ``exp(x - max)`` written into the softmax's init, its sum along ``d`` (from 0), and
``numerator / sum`` into the init::

    %r = linalg.softmax dimension(1) ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
    // ->
    %m0 = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
    %m = linalg.generic {(d0, d1) -> (d0, d1), (d0, d1) -> (d0); parallel, reduction} ins(%x) outs(%m0) {maxnumf}
    %n = linalg.generic {.., (d0, d1) -> (d0), ..; parallel, parallel} ins(%x, %m) outs(%e) {exp(x - m)}
    %s0 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4xf32>) -> tensor<4xf32>
    %s = linalg.generic {reduction along d1} ins(%n) outs(%s0) {addf}
    %r = linalg.generic {parallel} ins(%n, %s) outs(%e) {divf}

Source followed: MLIR ``LinalgOps.cpp`` (``SoftmaxOp::decomposeOperation``) and IREE
``Codegen/Common/DecomposeSoftmax.cpp``.
"""
import dataclasses
import math

from xdsl.builder import Builder
from xdsl.dialects import arith, math as xmath, tensor
from xdsl.dialects.builtin import AffineMapAttr, DYNAMIC_INDEX, FloatAttr, IndexType, IntegerAttr, TensorType
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.dialects.linalg.ops import YieldOp
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.rewriter import Rewriter

from rt.compiler.dialects.linalg import FillOp, GenericOp, SoftmaxOp
from rt.compiler.passes.base import Pass


def _generic(inputs, init, maps, iterators, body):
    """A one-output linalg.generic whose body ``body(args)`` returns the value to yield."""
    types = [v.type.element_type for v in (*inputs, init)]

    @Builder.implicit_region(types)
    def region(args):
        YieldOp(body(args))

    return GenericOp(list(inputs), [init], region, [AffineMapAttr(m) for m in maps],
                     [IteratorTypeAttr.parallel() if it == "p" else IteratorTypeAttr.reduction() for it in iterators],
                     [init.type])


def decompose(op):
    """Replace ``linalg.softmax`` ``op`` by the ops above; returns the new ops."""
    source, init, dim = op.input, op.output, op.dimension.value.data
    ty = source.type
    element, shape, rank = ty.element_type, ty.get_shape(), len(ty.get_shape())
    new = []
    reduced_dims = []
    for k, size in enumerate(shape):
        if k != dim and size == DYNAMIC_INDEX:
            index = arith.ConstantOp(IntegerAttr(k, IndexType()))
            size_op = tensor.DimOp(source, index)
            new += [index, size_op]
            reduced_dims.append(size_op.result)
    reduced = TensorType(element, [s for k, s in enumerate(shape) if k != dim])
    identity = AffineMap.identity(rank)
    projected = AffineMap(rank, 0, tuple(AffineDimExpr(k) for k in range(rank) if k != dim))
    reduction = "".join("r" if k == dim else "p" for k in range(rank))

    def filled(value):
        const = arith.ConstantOp(FloatAttr(value, element))
        empty = tensor.EmptyOp(reduced_dims, reduced)
        fill = FillOp([const.result], [empty.tensor], [reduced])
        new.extend([const, empty, fill])
        return fill.results[0]

    maximum = _generic([source], filled(-math.inf), [identity, projected], reduction,
                       lambda a: arith.MaxnumfOp(a[0], a[1]).result)
    numerator = _generic([source, maximum.results[0]], init, [identity, projected, identity], "p" * rank,
                         lambda a: xmath.ExpOp(arith.SubfOp(a[0], a[1]).result).result)
    new += [maximum, numerator]
    total = _generic([numerator.results[0]], filled(0.0), [identity, projected], reduction,
                     lambda a: arith.AddfOp(a[0], a[1]).result)
    result = _generic([numerator.results[0], total.results[0]], init, [identity, projected, identity], "p" * rank,
                      lambda a: arith.DivfOp(a[0], a[1]).result)
    new += [total, result]
    for created in new:
        created.location = op.location
    Rewriter.replace_op(op, new, list(result.results))
    return new


@dataclasses.dataclass(frozen=True)
class DecomposeSoftmaxPass(Pass):
    """Decompose every ``linalg.softmax`` (see the module docstring)."""

    name = "iree-codegen-decompose-softmax"

    def run(self, module, ctx):
        for op in [o for o in module.walk() if isinstance(o, SoftmaxOp)]:
            decompose(op)
