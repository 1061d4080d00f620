"""``convert-elementwise-to-linalg``: arith/math ops on ranked tensors -> ``linalg.generic``.

Input: arith/math ops (except constants) whose operands and results are ranked tensors of
one shape (element types may differ: ``cmpf`` gives ``i1``, casts change it; ``select`` takes
an ``i1`` tensor condition; ``addui_extended`` and ``mul*_extended`` have two results).
Output: a ``tensor.empty`` per result (dynamic sizes from ``tensor.dim`` of the first operand)
and a ``linalg.generic`` with identity maps, all-parallel iterators and the scalar op in its
body. Scalar ops and tensor ops of other dialects are left alone.

Example::

    %1 = arith.addf %0, %cst : tensor<10xf32>
    // ->
    %e = tensor.empty() : tensor<10xf32>
    %1 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
        ins(%0, %cst : tensor<10xf32>, tensor<10xf32>) outs(%e : tensor<10xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %2 = arith.addf %in, %in_0 : f32
      linalg.yield %2 : f32
    } -> tensor<10xf32>

Source followed: MLIR ``-convert-elementwise-to-linalg`` (ElementwiseToLinalg.cpp).
"""
import dataclasses

from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, AffineMapAttr, IndexType, IntegerAttr, TensorType
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.dialects.linalg.ops import YieldOp
from xdsl.ir import Block, Region
from xdsl.ir.affine import AffineMap
from xdsl.rewriter import Rewriter

from rt.compiler.dialects.linalg import GenericOp
from rt.compiler.frontend.diagnostics import error_at_op
from rt.compiler.passes.base import Pass

ELEMENTWISE_DIALECTS = ("arith", "math")


def _is_elementwise_on_tensors(op):
    # every arith/math op on tensors is elementwise (constants aside)
    if op.dialect_name() not in ELEMENTWISE_DIALECTS or not op.operands or not op.results:
        return False
    if op.regions or isinstance(op, arith.ConstantOp):
        return False
    values = (*op.operands, *op.results)
    return all(isinstance(v.type, TensorType) for v in values)


@dataclasses.dataclass(frozen=True)
class ConvertElementwiseToLinalgPass(Pass):
    """Wrap elementwise arith/math tensor ops (any number of results) into linalg.generic."""

    name = "convert-elementwise-to-linalg"

    def run(self, module, ctx):
        for op in [o for o in module.walk() if _is_elementwise_on_tensors(o)]:
            convert_elementwise_op(op)


def convert_elementwise_op(op):
    """Replace elementwise tensor ``op`` (see the module docstring) by ``tensor.empty`` + ``linalg.generic``.

    Raises CompileError (at ``op``) when an operand or result shape differs from the first result's.
    """
    result_types = [r.type for r in op.results]
    shape = result_types[0].get_shape()
    for value in (*op.operands, *op.results[1:]):
        if value.type.get_shape() != shape:
            raise error_at_op(
                op, f"'{op.name}' op mixes tensor shapes {value.type} and {result_types[0]}; "
                "elementwise ops need operands of the result's shape (broadcast explicitly with linalg.broadcast)"
            )
    new_ops, dims = [], []
    for i, size in enumerate(shape):
        if size == DYNAMIC_INDEX:
            index = arith.ConstantOp(IntegerAttr(i, IndexType()))
            dim = tensor.DimOp(op.operands[0], index)
            new_ops += [index, dim]
            dims.append(dim.result)
    empties = [tensor.EmptyOp(dims, t) for t in result_types]
    new_ops += empties
    elements = [t.get_element_type() for t in result_types]
    block = Block(arg_types=[v.type.get_element_type() for v in op.operands] + elements)
    scalar = op.create(
        operands=list(block.args[: len(op.operands)]),
        result_types=elements,
        properties=dict(op.properties),
        attributes=dict(op.attributes),
    )
    block.add_ops([scalar, YieldOp(*scalar.results)])
    rank = len(shape)
    identity = AffineMapAttr(AffineMap.identity(rank))
    generic = GenericOp(
        list(op.operands), [e.tensor for e in empties], Region(block),
        [identity] * (len(op.operands) + len(empties)), [IteratorTypeAttr.parallel()] * rank, result_types,
    )
    new_ops.append(generic)
    for new in new_ops:
        new.location = op.location
    Rewriter.replace_op(op, new_ops, list(generic.results))
