"""Shape tensors as ``index`` values: the scalar side of StableHLO's dynamic-shape ops (not a pass).

``jax.export`` with symbolic dimensions computes shapes on small integer tensors:
``get_dimension_size`` gives a ``tensor<i32>``, ``reshape``/``concatenate`` assemble a
``tensor<Nxi32>``, ``add``/``multiply``/... do the arithmetic, and the dynamic ops take the result.
:func:`shape_elements` follows such a tensor back through those ops and returns its elements
as ``index`` SSA values built from ``tensor.dim`` and ``arith`` ops, so sizes never make a round
trip through device buffers. A producer it does not know (a function argument, a ``while``
result) is read element by element with ``tensor.extract`` (a host read, still correct).

Source followed: IREE's StableHLO input plugin (``LegalizeShapeComputations``: shape
arithmetic on tensors becomes scalar arithmetic) and the StableHLO spec for each op.
"""
import itertools

from xdsl.dialects import arith as xarith
from xdsl.dialects import tensor
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, TensorType

from rt.compiler.dialects import arith, stablehlo as hlo
from rt.compiler.dialects._stablehlo_dynamic import GetDimensionSizeOp
from rt.compiler.frontend import elements_to_numpy, error_at_op
from rt.compiler.helpers.stablehlo.builders import int_list

#: elementwise stablehlo ops on shape tensors -> the arith op on ``index`` values
_ARITH = {hlo.AddOp: xarith.AddiOp, hlo.SubtractOp: xarith.SubiOp, hlo.MulOp: xarith.MuliOp,
          hlo.DivOp: arith.DivSIOp, hlo.RemOp: xarith.RemSIOp, hlo.MaxOp: xarith.MaxSIOp, hlo.MinOp: xarith.MinSIOp}


def index_constant(b, value):
    """``arith.constant value : index``."""
    return b.add(xarith.ConstantOp(IntegerAttr(int(value), IndexType())))


def to_index(b, value):
    """An integer scalar SSA value as ``index``."""
    if isinstance(value.type, IndexType):
        return value
    return b.add(arith.IndexCastOp.build(operands=[value], result_types=[IndexType()]))


def constant_ints(value):
    """The integers of ``value`` when it is a ``stablehlo.constant`` (else None)."""
    owner = value.owner
    if not isinstance(owner, hlo.ConstantOp) or "value" not in owner.attributes:
        return None
    return [int(v) for v in elements_to_numpy(owner.attributes["value"]).reshape(-1)]


def shape_elements(b, value, op):
    """The elements of the static integer tensor ``value`` (0-d or 1-d shapes; a 2-d padding
    table) as ``index`` SSA values, row-major.

    ``b`` receives the ops built (an ``OpSink`` placed before ``op``, the op being converted,
    which every value used here dominates); ``op`` locates errors.
    """
    type_ = value.type
    if not isinstance(type_, TensorType) or any(d < 0 for d in type_.get_shape()) or not _is_integer(type_):
        raise error_at_op(op, f"'{op.name}': a shape operand must be a static integer tensor, got {type_}")
    count = 1
    for size in type_.get_shape():
        count *= size
    owner = value.owner
    known = constant_ints(value)
    if known is not None:
        return [index_constant(b, v) for v in (known * count if len(known) == 1 else known)]
    if isinstance(owner, GetDimensionSizeOp):
        dim = int_list(owner, "dimension")[0]
        return [b.add(tensor.DimOp(owner.operands[0], index_constant(b, dim)))]
    if isinstance(owner, (hlo.ReshapeOp, hlo.ConvertOp)) and _is_integer(owner.operands[0].type):
        return shape_elements(b, owner.operands[0], op)
    if isinstance(owner, hlo.ConcatenateOp) and int_list(owner, "dimension")[0] == 0:  # row-major: parts in order
        return [v for part in owner.operands for v in shape_elements(b, part, op)]
    if isinstance(owner, hlo.BroadcastInDimOp) and owner.operands[0].type.get_num_dims() == 0:
        return shape_elements(b, owner.operands[0], op) * count
    if isinstance(owner, hlo.SliceOp) and type_.get_num_dims() == 1:
        start, limit = int_list(owner, "start_indices")[0], int_list(owner, "limit_indices")[0]
        stride = int_list(owner, "strides", [1])[0]
        return shape_elements(b, owner.operands[0], op)[start:limit:stride]
    if type(owner) in _ARITH and len(owner.operands) == 2:
        lhs, rhs = (shape_elements(b, v, op) for v in owner.operands)
        lhs, rhs = (side * count if len(side) == 1 else side for side in (lhs, rhs))
        return [b.add(_ARITH[type(owner)].build(operands=[x, y], result_types=[IndexType()]))
                for x, y in zip(lhs, rhs)]
    if isinstance(owner, tensor.FromElementsOp):
        return [_peel_cast(b, v) for v in owner.elements]
    return [to_index(b, b.add(tensor.ExtractOp(value, [index_constant(b, c) for c in coords], type_.get_element_type())))
            for coords in itertools.product(*(range(size) for size in type_.get_shape()))]


def _peel_cast(b, value):
    owner = value.owner
    if isinstance(owner, arith.IndexCastOp) and isinstance(owner.input.type, IndexType):
        return owner.input
    return to_index(b, value)


def _is_integer(type_):
    return isinstance(type_.get_element_type(), (IntegerType, IndexType))


def result_sizes(b, op, result_type, sizes):
    """The ``index`` values of the dynamic dims of ``result_type`` (``tensor.empty``'s operands),
    taken from ``sizes`` (one per dim); a static dim keeps its size."""
    if len(sizes) != result_type.get_num_dims():
        raise error_at_op(op, f"'{op.name}': the shape operand has {len(sizes)} elements but the result "
                              f"{result_type} has rank {result_type.get_num_dims()}")
    return [size for size, static in zip(sizes, result_type.get_shape()) if static < 0]
