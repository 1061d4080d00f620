"""StableHLO ``sort``, ``scatter`` and CHLO ``top_k`` as ``iree_linalg_ext`` ops (helper of ``iree-stablehlo-to-iree-input``).

* ``sort`` -> ``iree_linalg_ext.sort`` over the same operands (the comparator region's 0-d
  tensor ops become scalar ops); stable whatever ``is_stable`` says.
* ``scatter`` (one operand) -> ``iree_linalg_ext.scatter`` when its dimension numbers have the
  form that op takes: the update window dims are the trailing dims of the updates, they
  address the trailing dims of the operand (the inserted window dims lead), no batching dims.
  The index vector becomes an explicit last dim of the indices (a reshape when
  ``index_vector_dim`` is past the end). ``convert_scatter`` (a pulling generic) takes the
  other forms. Returns None when the form does not fit.

* ``chlo.top_k`` -> ``iree_linalg_ext.topk`` along the last dim with a "greater than"
  comparator (``cmpf ogt`` / ``cmpi sgt``); equal values keep their input order.

All are then lowered with the other linalg_ext ops by ``rt-decompose-linalg-ext``.
Source followed: IREE ``StableHLOToLinalgExt.cpp`` (``SortOpConversion``,
``ScatterOpConversion``: the same canonical-form check and region rewrite) and
``LegalizeCHLO.cpp`` (``chlo.top_k``).
"""
from xdsl.dialects.builtin import AnyFloat, DYNAMIC_INDEX, DenseArrayBase, IntegerAttr, IntegerType, TensorType, i64
from xdsl.ir import Block, Region

from rt.compiler.dialects import _linalg_ext_ops as ext
from rt.compiler.dialects import arith
from rt.compiler.dialects import stablehlo as hlo
from rt.compiler.dialects.flow_tensor_shape import TensorReshapeOp
from rt.compiler.frontend.diagnostics import error_at_op
from rt.compiler.helpers.stablehlo.builders import empty, int_list, require_ranked
from rt.compiler.helpers.stablehlo.elementwise import OpSink, element_type


def _region(location, arg_types, body):
    """A one-block region of ``arg_types`` whose ops ``body(sink, args)`` emits, ended by
    ``iree_linalg_ext.yield`` of what it returns."""
    block = Block(arg_types=arg_types)
    inner = OpSink(location)
    values = body(inner, list(block.args))
    block.add_ops(inner.ops + [ext.YieldOp.build(operands=[values])])
    return Region(block)


def to_sort(op, b, comparator):
    """``stablehlo.sort`` -> ``iree_linalg_ext.sort``; ``comparator(sink, [lhs0, rhs0, ...])``
    returns the region's i1. Returns the sorted values."""
    values = list(op.inputs)
    require_ranked(op, *(v.type for v in values))
    rank = values[0].type.get_num_dims()
    dim = int_list(op, "dimension", [0])[0]
    dim += rank if dim < 0 else 0
    if not 0 <= dim < rank:
        raise error_at_op(op, f"'stablehlo.sort': dimension {dim} is out of range for {values[0].type}")
    region = _region(op.location, [element_type(v.type) for v in values for _ in (0, 1)], comparator)
    sort = ext.SortOp.build(operands=[[], values], result_types=[[v.type for v in values]],
                            properties={"dimension": IntegerAttr(dim, i64)}, regions=[region])
    b.add(sort)
    return list(sort.results)


def to_scatter(op, b, combine):
    """``stablehlo.scatter`` -> ``iree_linalg_ext.scatter`` when the form fits (see the module
    docstring), else None; ``combine(sink, [update, current])`` is the combiner region."""
    if len(op.inputs) != 3:
        return None
    operand, indices, updates = op.inputs
    require_ranked(op, operand.type, indices.type, updates.type)
    dims = op.attributes.get("scatter_dimension_numbers")
    if not isinstance(dims, hlo.ScatterDimensionNumbersAttr) or dims.get("input_batching_dims") \
            or dims.get("scatter_indices_batching_dims"):
        return None
    window, inserted = list(dims.get("update_window_dims")), list(dims.get("inserted_window_dims"))
    to_operand, vector_dim = list(dims.get("scatter_dims_to_operand_dims")), dims.get("index_vector_dim", 0)
    rank, update_rank = operand.type.get_num_dims(), updates.type.get_num_dims()
    index_shape = list(indices.type.get_shape())
    batch = update_rank - len(window)
    if (window != list(range(batch, update_rank)) or inserted != list(range(rank - len(window)))
            or vector_dim not in (len(index_shape) - 1, len(index_shape)) or not to_operand):
        return None
    if vector_dim == len(index_shape):
        if DYNAMIC_INDEX in index_shape:
            return None
        shaped = TensorType(element_type(indices.type), index_shape + [1])
        indices = b.add(TensorReshapeOp.build(operands=[indices, [], []], result_types=[shaped]))
    elif index_shape[-1] != len(to_operand):
        return None
    element = element_type(operand.type)
    region = _region(op.location, [element, element], combine)
    unique = op.attributes.get("unique_indices")
    properties = {"dimension_map": DenseArrayBase.from_list(i64, to_operand),
                  "unique_indices": IntegerAttr(int(bool(unique is not None and unique.value.data)), IntegerType(1))}
    scatter = ext.ScatterOp.build(operands=[[updates, indices], [operand]], result_types=[[operand.type]],
                                  properties=properties, regions=[region])
    b.add(scatter)
    return list(scatter.results)


def to_topk(op, b):
    """``chlo.top_k`` -> ``iree_linalg_ext.topk`` (see the module docstring); (values, indices)."""
    operand = op.operand
    element = element_type(operand.type)
    rank = operand.type.get_num_dims()
    outputs = [empty(b, r.type, [(operand, d) for d in range(rank)]) for r in (op.values, op.indices)]

    def greater(s, args):
        if isinstance(element, AnyFloat):
            return [s.add(arith.CmpFOp(args[0], args[1], "ogt"))]
        return [s.add(arith.CmpIOp(args[0], args[1], "sgt"))]
    region = _region(op.location, [element, element], greater)
    topk = ext.TopkOp.build(operands=[[operand], outputs], result_types=[[op.values.type, op.indices.type]],
                            properties={"dimension": IntegerAttr(rank - 1, i64)}, regions=[region])
    b.add(topk)
    return list(topk.results)
