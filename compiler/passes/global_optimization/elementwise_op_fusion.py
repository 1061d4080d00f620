"""``iree-dispatch-creation-elementwise-op-fusion``: merge elementwise producers into their consumers.

Input: host functions after ``rt-decompose-linalg-ext``, where the StableHLO/TOSA/ONNX
conversions left one ``linalg.generic`` per source op (a decomposed erfc in a GELU is ~40
generics over the same 128x512 tensor, a layer norm's centring and scaling a dozen). Output:
each elementwise producer generic inlined into the body of every consumer generic, so a chain
of elementwise ops is one generic: the GELU one epilogue that sinks onto its matmul's packed
result (``iree-dispatch-creation-propagate-encodings``) and runs in the matmul's dispatch; a
layer norm's centring, squaring and row sum one reduction.

A producer ``P`` (a ``linalg.generic`` with only parallel loops, one result whose map is the
identity, a body that neither reads its output nor uses ``linalg.index`` nor reads a tensor it
captures) fuses into a consumer ``C`` (any ``linalg.generic`` reading ``P``'s result as an
input) when

* every use of ``P`` is an input of such a consumer (``P`` then disappears: fusing it into
  some users but not others would compute it twice), a consumer with reduction loops only when
  it is ``P``'s one user (a softmax's ``exp(x - max)``, read by its row sum and its
  normalization, stays a tensor: IREE's five dispatches of ``examples/predict.mlir``) or ``P``
  is cheap and reads at most one tensor (attention's ``scores / sqrt(d)``, read by the row max
  and by the ``exp``: recomputing it costs a multiply per element and no memory traffic, and
  the matmul's result then reaches the reductions unscaled, so its unpack runs in place), and
* each of those consumers reads it through a permutation of its loops, or ``P`` is cheap
  (at most ``CHEAP_BODY_OPS`` arithmetic ops, no ``math`` op): a broadcast read recomputes
  ``P`` per broadcast element (a layer norm's ``1 / sqrt(var + eps)`` per row stays a value).

First every generic's splat-constant tensor inputs become scalar constants its body reads
(MLIR's ``FoldScalarOrSplatConstant``). ``C``'s new inputs are its other inputs and ``P``'s inputs, ``P``'s maps composed with the map
``C`` read ``P`` through (equal value and map: one input); ``P``'s body is cloned at the top of
``C``'s body in place of the block argument. A ``P`` read twice by one consumer is inlined
once per distinct map, and equal body ops are merged (a value that reaches the consumer along
several paths is computed once).

Example::

    %n = linalg.generic {(i, j) -> (i, j), (i, j) -> (i, j)} ins(%x) outs(%e) { negf }
    %m = linalg.generic {(i, j) -> (i, j), (i, j) -> (j), (i, j) -> (i, j)} ins(%n, %b) outs(%e) { mulf }
    // ->
    %m = linalg.generic {(i, j) -> (i, j), (i, j) -> (j), (i, j) -> (i, j)} ins(%x, %b) outs(%e) {
    ^bb0(%a: f32, %c: f32, %o: f32):
      %0 = arith.negf %a : f32
      %1 = arith.mulf %0, %c : f32
      linalg.yield %1 : f32
    }

Source followed: MLIR ``linalg::fuseElementwiseOps`` (``ElementwiseOpFusion.cpp``: composed
indexing maps, producer body cloned before the consumer's) and IREE
``DispatchCreation/ElementwiseOpFusion.cpp`` (the control function limiting recomputation).
"""
import dataclasses

from xdsl.dialects import arith
from xdsl.dialects.builtin import AffineMapAttr, AnyFloat, FloatAttr, IntegerAttr, IntegerType, TensorType
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Block, OpResult, Region
from xdsl.ir.affine import AffineDimExpr

from rt.compiler.frontend.elements import is_splat, splat_value
from rt.compiler.passes.base import Pass
from rt.compiler.helpers.dispatch import op_kinds as kinds
from rt.compiler.helpers.dispatch.dce import erase_dead_ops

#: A producer with at most this many body ops (besides the yield), none of them ``math``,
#: is inlined even where a consumer broadcasts it (recomputed per broadcast element).
CHEAP_BODY_OPS = 2


def _body_ops(op):
    return [o for o in op.body.block.ops if not isinstance(o, linalg.YieldOp)]


def _captures_tensor(op):
    """Whether ``op``'s body uses a tensor defined outside it (a gather's ``tensor.extract``)."""
    inside = set(op.walk())

    def outside(value):
        owner = value.op if isinstance(value, OpResult) else value.block.parent_op()
        return owner not in inside

    return any(isinstance(v.type, TensorType) and outside(v)
               for inner in op.body.walk() for v in inner.operands)


def fusable_producer(op):
    """Whether generic ``op`` can be inlined into its consumers (see the module docstring)."""
    if not isinstance(op, linalg.GenericOp):
        return False
    if len(op.results) != 1 or len(op.outputs) != 1 or not kinds.is_elementwise(op):
        return False
    if len(op.body.blocks) != 1 or op.body.block.args[-1].uses:
        return False
    if any(isinstance(o, linalg.IndexOp) for o in op.body.walk()):
        return False
    return not _captures_tensor(op)


def _cheap(op):
    ops = _body_ops(op)
    return len(ops) <= CHEAP_BODY_OPS and all(o.dialect_name() != "math" for o in ops)


def _rereads_nothing(op):
    """Whether ``op`` is cheap and reads at most one tensor: inlined into each of several
    consumers it costs a few ops per element and no memory traffic over reading its result."""
    return _cheap(op) and len(op.inputs) <= 1


def _is_permutation(amap):
    dims = [r.position for r in amap.results if isinstance(r, AffineDimExpr)]
    return len(dims) == len(amap.results) == amap.num_dims and sorted(dims) == list(range(amap.num_dims))


def _accepts(consumer, index, producer):
    """Whether ``consumer`` may take ``producer`` inlined for its operand ``index``."""
    if not isinstance(consumer, linalg.GenericOp) or index >= len(consumer.inputs):
        return False
    if consumer.parent_block() is not producer.parent_block() or len(consumer.body.blocks) != 1:
        return False
    if kinds.has_reduction(consumer) and len(list(producer.results[0].uses)) != 1 and not _rereads_nothing(producer):
        return False
    return _is_permutation(kinds.indexing_maps(consumer)[index]) or _cheap(producer)


def all_uses_fuse(producer):
    uses = list(producer.results[0].uses)
    return bool(uses) and all(_accepts(u.operation, u.index, producer) for u in uses)


def _merge_equal_ops(block):
    """Merge equal region-free body ops of ``block`` (a value inlined along several paths: a
    diamond of fusions would otherwise double the body at each level)."""
    seen = {}
    for op in list(block.ops):
        if op.regions or isinstance(op, linalg.YieldOp):
            continue
        key = (op.name, tuple(map(id, op.operands)), tuple(str(r.type) for r in op.results),
               str(op.properties), str(op.attributes))
        first = seen.setdefault(key, op)
        if first is not op:
            for old, kept in zip(op.results, first.results):
                old.replace_all_uses_with(kept)
            block.erase_op(op)


def fuse(producer, consumer):
    """Inline ``producer`` into ``consumer`` for every input of it; returns the new consumer."""
    result = producer.results[0]
    c_maps = kinds.indexing_maps(consumer)
    p_maps = kinds.indexing_maps(producer)
    n_in = len(consumer.inputs)
    inputs, maps, arg_of = [], [], {}

    def add_input(value, amap):
        key = (value, str(amap))
        if key not in arg_of:
            arg_of[key] = len(inputs)
            inputs.append(value)
            maps.append(amap)
        return arg_of[key]

    kept, inlined = {}, []
    for i, (value, amap) in enumerate(zip(consumer.inputs, c_maps[:n_in])):
        if value is not result:
            kept[i] = add_input(value, amap)
        elif str(amap) not in {str(m) for m, _ in inlined}:
            inlined.append((amap, [add_input(v, pm.compose(amap))
                                   for v, pm in zip(producer.inputs, p_maps)]))
    out_maps = c_maps[n_in:]
    old_args = consumer.body.block.args
    block = Block(arg_types=[v.type.element_type if isinstance(v.type, TensorType) else v.type
                             for v in inputs] + [a.type for a in old_args[n_in:]])
    mapping = {}
    for i, arg in enumerate(old_args[:n_in]):
        if i in kept:
            mapping[arg] = block.args[kept[i]]
    for amap, positions in inlined:
        p_mapping = {p_arg: block.args[k] for p_arg, k in zip(producer.body.block.args, positions)}
        yielded = None
        for op in producer.body.block.ops:
            if isinstance(op, linalg.YieldOp):
                yielded = p_mapping.get(op.operands[0], op.operands[0])
                continue
            clone = op.clone(value_mapper=p_mapping)
            block.add_op(clone)
        for i, (value, cmap) in enumerate(zip(consumer.inputs, c_maps[:n_in])):
            if value is result and str(cmap) == str(amap):
                mapping[old_args[i]] = yielded
    for j, arg in enumerate(old_args[n_in:]):
        mapping[arg] = block.args[len(inputs) + j]
    for op in consumer.body.block.ops:
        block.add_op(op.clone(value_mapper=mapping))
    _merge_equal_ops(block)
    return _rebuilt(consumer, inputs, maps + out_maps, block)


def _rebuilt(generic, inputs, maps, block):
    """A generic like ``generic`` with ``inputs``, indexing ``maps`` and body ``block``, put in
    its place (its uses moved over, ``generic`` erased)."""
    new = type(generic)(inputs, list(generic.outputs), Region(block), [AffineMapAttr(m) for m in maps],
                        generic.iterator_types, [r.type for r in generic.results], generic.doc,
                        generic.library_call)
    new.attributes |= {k: v for k, v in generic.attributes.items() if k not in new.attributes}
    new.location = generic.location
    generic.parent_block().insert_op_before(new, generic)
    for old, fresh in zip(generic.results, new.results):
        old.replace_all_uses_with(fresh)
    generic.parent_block().erase_op(generic)
    return new


def _splat_scalar(value):
    """The scalar ``arith.constant`` attribute of a splat tensor constant ``value`` (else None)."""
    owner = value.op if isinstance(value, OpResult) else None
    if not (isinstance(owner, arith.ConstantOp) and isinstance(value.type, TensorType)
            and isinstance(value.type.element_type, (AnyFloat, IntegerType)) and is_splat(owner.value)):
        return None
    element, number = value.type.element_type, splat_value(owner.value)
    return FloatAttr(float(number), element) if isinstance(element, AnyFloat) else IntegerAttr(int(number), element)


def fold_splat_inputs(generic):
    """Replace ``generic``'s splat-constant tensor inputs by scalar constants its body reads
    (a decomposed erfc's 13 coefficients were 128x512 tensors each, read per element)."""
    n_in = len(generic.inputs)
    scalars = {i: _splat_scalar(v) for i, v in enumerate(generic.inputs)}
    if not any(a is not None for a in scalars.values()):
        return generic
    old_args = generic.body.block.args
    keep = [i for i in range(n_in) if scalars[i] is None]
    maps = kinds.indexing_maps(generic)
    block = Block(arg_types=[old_args[i].type for i in keep] + [a.type for a in old_args[n_in:]])
    mapping = dict(zip([old_args[i] for i in keep] + list(old_args[n_in:]), block.args))
    for i, attr in scalars.items():
        if attr is not None:
            constant = arith.ConstantOp(attr, attr.type)
            constant.location = generic.location
            generic.parent_block().insert_op_before(constant, generic)
            mapping[old_args[i]] = constant.result
    for op in generic.body.block.ops:
        block.add_op(op.clone(value_mapper=mapping))
    new = _rebuilt(generic, [generic.inputs[i] for i in keep], [maps[i] for i in keep] + maps[n_in:], block)
    return new


def fuse_block_generics(block):
    """Fuse every fusable producer of ``block``'s generics into its consumers; returns the count."""
    for generic in [op for op in block.ops if isinstance(op, linalg.GenericOp)]:
        fold_splat_inputs(generic)
    fused, op = 0, block.first_op
    while op is not None:
        if fusable_producer(op) and all_uses_fuse(op):
            consumers = []
            for use in op.results[0].uses:
                if use.operation not in consumers:
                    consumers.append(use.operation)
            for consumer in consumers:
                fuse(op, consumer)
                fused += 1
            following = op.next_op  # a fused consumer took its old consumer's place after op
            block.erase_op(op)
            op = following
        else:
            op = op.next_op
    return fused


@dataclasses.dataclass(frozen=True)
class ElementwiseOpFusionPass(Pass):
    """Inline elementwise producer generics into their consumer generics (see the module docstring)."""

    name = "iree-dispatch-creation-elementwise-op-fusion"

    def run(self, module, ctx):
        blocks = {op.parent_block() for op in module.walk() if isinstance(op, linalg.GenericOp)
                  and not isinstance(op.parent_op(), linalg.GenericOp)}
        for block in blocks:
            fuse_block_generics(block)
        erase_dead_ops(module)
