"""IR building helpers of the StableHLO input conversion (not a pass).

``int_list`` reads an op's integer-list attribute in any of its spellings; ``require_static``
rejects dynamic shapes with a located error; ``generic`` builds a ``linalg.generic`` from a
Python body function; ``maps``/``dims``/``empty`` are the small pieces around it.

Source followed: MLIR ``linalg.generic`` (indexing maps, iterator types, region arguments in
the order inputs then outputs).
"""
from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import (DYNAMIC_INDEX, AffineMapAttr, ArrayAttr, DenseArrayBase, DenseIntOrFPElementsAttr,
                                   IndexType, IntegerAttr, TensorType, i64)
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.dialects.linalg.ops import IndexOp, YieldOp
from xdsl.ir import Block, Region
from xdsl.ir.affine import AffineExpr, AffineMap

from rt.compiler.dialects import arith as rt_arith
from rt.compiler.dialects.linalg import GenericOp
from rt.compiler.frontend.diagnostics import error_at_op
from rt.compiler.helpers.stablehlo.elementwise import OpSink, element_type, is_float


def int_list(op, key, default=None):
    """The integers of attribute ``key`` (``array<i64: ...>``, ``dense<[...]>`` or ``[...]``)."""
    attr = op.attributes.get(key)
    if attr is None:
        if default is None:
            raise error_at_op(op, f"'{op.name}' needs the attribute '{key}'")
        return list(default)
    if isinstance(attr, DenseArrayBase):
        return list(attr.get_values())
    if isinstance(attr, DenseIntOrFPElementsAttr):
        return [int(v) for v in attr.get_values()]
    if isinstance(attr, ArrayAttr):
        return [a.value.data for a in attr.data]
    if isinstance(attr, IntegerAttr):
        return [attr.value.data]
    raise error_at_op(op, f"'{op.name}' attribute '{key}' must be a list of integers, got {attr}")


def require_static(op, *types):
    """CompileError at ``op`` unless every type is a tensor of static shape."""
    for type_ in types:
        if not isinstance(type_, TensorType) or any(d < 0 for d in type_.get_shape()):
            raise error_at_op(op, f"'{op.name}' on {type_}: rt's StableHLO input takes static tensor shapes")


def affine_maps(rank, *exprs_lists):
    """One AffineMapAttr over ``rank`` dims per list of result expressions."""
    return [AffineMapAttr(AffineMap(rank, 0, tuple(exprs))) for exprs in exprs_lists]


def dim_exprs(rank):
    """d0 .. d(rank-1)."""
    return [AffineExpr.dimension(i) for i in range(rank)]


def empty(b, type_, sources=None):
    """``tensor.empty(%d...) : type_``; ``sources[i]`` = (value, dim) gives dynamic dim i as
    ``tensor.dim value, dim`` (None, or no ``sources``, for static dims)."""
    sizes = []
    for i, size in enumerate(type_.get_shape()):
        if size != DYNAMIC_INDEX:
            continue
        source = sources[i] if sources else None
        if source is None:
            raise ValueError(f"dynamic dim {i} of {type_} has no source")
        value, dim = source
        index = b.add(arith.ConstantOp(IntegerAttr(dim, IndexType())))
        sizes.append(b.add(tensor.DimOp(value, index)))
    return b.add(tensor.EmptyOp(sizes, type_))


def require_ranked(op, *types):
    """CompileError at ``op`` unless every type is a ranked tensor (static or dynamic dims)."""
    for type_ in types:
        if not isinstance(type_, TensorType):
            raise error_at_op(op, f"'{op.name}' on {type_}: rt's StableHLO input takes ranked tensors")


def generic(b, inputs, outputs, maps, iterators, result_types, body):
    """A linalg.generic; ``body(sink, args)`` returns the values to yield."""
    block = Block(arg_types=[element_type(v.type) for v in (*inputs, *outputs)])
    inner = OpSink(b.location)
    yielded = body(inner, list(block.args))
    block.add_ops(inner.ops + [YieldOp(*yielded)])
    op = GenericOp(list(inputs), list(outputs), Region(block), maps,
                   [IteratorTypeAttr.parallel() if it == "parallel" else IteratorTypeAttr.reduction()
                    for it in iterators], result_types)
    b.add(op)
    return op.results


def iota(b, op, type_, init):
    """``stablehlo.iota``/``dynamic_iota`` of ``op`` into ``init`` (a ``tensor.empty`` of ``type_``):
    a ``linalg.generic`` yielding ``linalg.index`` along ``iota_dimension``, converted to the
    element type (signed, as the spec counts)."""
    rank = type_.get_num_dims()
    dim = int_list(op, "iota_dimension")[0]
    if not 0 <= dim < rank:
        raise error_at_op(op, f"'{op.name}': iota_dimension {dim} is out of range for {type_}")

    def body(s, args):
        index = s.add(IndexOp(dim))
        element = element_type(type_)
        if is_float(type_):
            as_int = s.add(rt_arith.IndexCastOp.build(operands=[index], result_types=[i64]))
            return [s.add(rt_arith.SIToFPOp.build(operands=[as_int], result_types=[element]))]
        return [s.add(rt_arith.IndexCastOp.build(operands=[index], result_types=[element]))]
    return generic(b, [], [init], affine_maps(rank, dim_exprs(rank)), ["parallel"] * rank, [type_], body)
