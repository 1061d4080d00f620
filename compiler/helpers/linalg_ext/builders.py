"""Pieces the ``iree_linalg_ext`` lowerings share (helper, not a pass).

``inline`` clones an op's region into a generic body (block arguments bound to given values,
the ``iree_linalg_ext.yield`` operands returned); ``index``/``to_index``/``from_index``/
``index_const``/``dim_size`` build index scalars; ``empty_of`` builds a ``tensor.empty`` whose
dynamic dims come from ``tensor.dim`` of existing values or index values; ``while_loop`` a
host ``scf.while`` (loops of dispatches); ``select``/``all_true`` combine values and i1
conditions; ``linearize``/``delinearize`` expand the affine index ops into ``arith``.
(``generic``, ``affine_maps`` and ``dim_exprs`` are the StableHLO input's builders, shared.)

Source followed: MLIR ``linalg.generic`` (block arguments inputs then outputs,
``linalg.index``) and IREE's ``generateScalarImplementation`` (region cloned with an
``IRMapping``).
"""
from xdsl.dialects import arith as xarith
from xdsl.dialects import scf, tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, IntegerAttr, TensorType
from xdsl.ir import Block, Region, SSAValue
from xdsl.dialects.linalg.ops import IndexOp
from xdsl.traits import IsTerminator

from rt.compiler.dialects import arith
from rt.compiler.helpers.stablehlo.elementwise import OpSink, constant


def inline(b, region, args):
    """Clone the ops of ``region``'s block into sink ``b`` with its arguments bound to ``args``;
    return the values its ``iree_linalg_ext.yield`` gives."""
    block = region.blocks[0]
    mapping = dict(zip(block.args, args))
    for op in block.ops:
        if op.has_trait(IsTerminator):
            return [mapping.get(v, v) for v in op.operands]
        b.add(op.clone(value_mapper=mapping))
    raise AssertionError("the verifier guarantees a region ending with iree_linalg_ext.yield")


def index(b, dim):
    """``linalg.index dim``."""
    return b.add(IndexOp(dim))


def index_const(b, value):
    return constant(b, value, IndexType())


def to_index(b, value):
    """An integer scalar as ``index`` (``arith.index_cast``; sign-extending, as IREE's ops do)."""
    if isinstance(value.type, IndexType):
        return value
    return b.add(arith.IndexCastOp.build(operands=[value], result_types=[IndexType()]))


def from_index(b, value, type_):
    """An ``index`` scalar as integer ``type_`` (``arith.index_cast``)."""
    if value.type == type_:
        return value
    return b.add(arith.IndexCastOp.build(operands=[value], result_types=[type_]))


def select(b, cond, a, c):
    return b.add(arith.SelectOp.build(operands=[cond, a, c], result_types=[a.type]))


def all_true(b, conds):
    """The ``arith.andi`` of i1 values (None for none)."""
    result = None
    for cond in conds:
        result = cond if result is None else b.add(xarith.AndIOp(result, cond))
    return result


def dim_size(b, value, dim):
    """The size of ``value``'s dim ``dim`` as an index value (a constant when static)."""
    size = value.type.get_shape()[dim]
    if size != DYNAMIC_INDEX:
        return index_const(b, size)
    return b.add(tensor.DimOp(value, b.add(arith.ConstantOp(IntegerAttr(dim, IndexType())))))


def empty_of(b, shape_sources, element):
    """``tensor.empty`` of element type ``element``; ``shape_sources`` gives per dim an int (static),
    ``(value, dim)`` (that dim's size, static or dynamic) or an index value (a dynamic size)."""
    shape, sizes = [], []
    for source in shape_sources:
        if isinstance(source, int):
            shape.append(source)
            continue
        if isinstance(source, SSAValue):
            shape.append(DYNAMIC_INDEX)
            sizes.append(source)
            continue
        value, dim = source
        size = value.type.get_shape()[dim]
        shape.append(size)
        if size == DYNAMIC_INDEX:
            sizes.append(dim_size(b, value, dim))
    return b.add(tensor.EmptyOp(sizes, TensorType(element, shape)))


def while_loop(b, inits, more, step):
    """A host ``scf.while`` carrying ``inits``: ``more(sink, values)`` gives the i1 "run the body",
    ``step(sink, values)`` the next values (same types); the final values."""
    types = [v.type for v in inits]
    regions = []
    for make in (lambda s, values: scf.ConditionOp(more(s, values), *values),
                 lambda s, values: scf.YieldOp(*step(s, values))):
        block = Block(arg_types=types)
        sink = OpSink(b.location)
        sink.add(make(sink, list(block.args)))
        block.add_ops(sink.ops)
        regions.append(Region(block))
    loop = scf.WhileOp(list(inits), types, *regions)
    b.add(loop)
    return list(loop.results)


def _basis_value(b, entry):
    return index_const(b, entry) if isinstance(entry, int) else entry


def _strides(b, basis, count):
    """Index strides of ``count`` indices over the last ``count - 1`` basis entries (row-major)."""
    strides, stride = [], index_const(b, 1)
    for entry in reversed(basis[len(basis) - (count - 1):] if count > 1 else []):
        strides.append(stride)
        stride = b.add(xarith.MuliOp(stride, _basis_value(b, entry)))
    return [stride] + strides[::-1]


def linearize(b, op):
    """``affine.linearize_index`` as ``arith`` index arithmetic: ``sum_k i_k * stride_k``."""
    indices = list(op.multi_index)
    total = None
    for value, stride in zip(indices, _strides(b, op.basis(), len(indices))):
        term = b.add(xarith.MuliOp(value, stride))
        total = term if total is None else b.add(xarith.AddiOp(total, term))
    return [total if total is not None else index_const(b, 0)]


def delinearize(b, op):
    """``affine.delinearize_index`` as ``arith``: ``r_k = (l / stride_k) mod basis_k`` (``r_0``
    not reduced)."""
    count, basis = len(op.multi_index), op.basis()
    results = []
    for k, stride in enumerate(_strides(b, basis, count)):
        value = b.add(xarith.DivSIOp(op.linear_index, stride))
        if k > 0:
            value = b.add(xarith.RemSIOp(value, _basis_value(b, basis[len(basis) - count + k])))
        results.append(value)
    return results
