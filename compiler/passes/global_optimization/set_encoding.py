"""``iree-dispatch-creation-set-encoding``: data tiling of contractions with encodings.

Input: host functions after ``iree-abi-wrap-entry-points`` (linalg on tensors). Every named
contraction -- ``linalg.matmul`` (any operand maps), ``batch_matmul``, ``matvec``, ``vecmat``,
``batch_matvec`` -- whose element types the data-tiling targets handle (f32 x f32 -> f32,
i8 x i8 -> i32, f16 x f16 -> f32 or f16) is rewritten onto encoded tensors: its LHS and RHS
go through ``iree_encoding.set_encoding``, its init is either re-created as an encoded
``tensor.empty`` + ``linalg.fill`` (a fill of an empty, so the fill fuses with the matmul) or
set_encoding'd, and the result leaves the encoded world with ``iree_encoding.unset_encoding``
carrying the result dims. The encoding records operand_index, op_type = matmul, element_types,
user_indexing_maps (the op's) and the static iteration_sizes in loop order (``[M, N, K]`` for
a matmul, ``[B, M, N, K]`` for batch_matmul, ``[M, K]`` for matvec; ``?`` when dynamic); the
layout stays unresolved until ``iree-stream-specialize-encodings`` picks one per device
(narrow tiles for matvec/vecmat: N0 = 1 / M0 = 1). Dispatch formation then yields four
dispatches (pack LHS, pack RHS, fill + contraction, unpack).

Example (seed 001)::

    %f = linalg.fill ins(%cst : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
    %r = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%f : tensor<?x?xf32>) -> tensor<?x?xf32>
    // ->
    %0 = iree_encoding.set_encoding %a : tensor<?x?xf32> -> tensor<?x?xf32, #encoding>
    %1 = iree_encoding.set_encoding %b : tensor<?x?xf32> -> tensor<?x?xf32, #encoding1>
    %2 = tensor.empty(%M, %N) : tensor<?x?xf32, #encoding2>
    %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<?x?xf32, #encoding2>) -> tensor<?x?xf32, #encoding2>
    %4 = linalg.matmul ins(%0, %1 : ...) outs(%3 : tensor<?x?xf32, #encoding2>) -> tensor<?x?xf32, #encoding2>
    %r = iree_encoding.unset_encoding %4 : tensor<?x?xf32, #encoding2> -> tensor<?x?xf32>{%M, %N}

Convolutions with one output-channel loop (``linalg.conv_2d_nhwc_hwcf``,
``conv_2d_nchw_fchw`` and the grouped ``conv_2d_ngchw_gfchw``, ``conv_2d_ngchw_fgchw``,
``conv_2d_nhwgc_gfhwc``; f32) get an ``op_type = conv`` encoding on the filter alone: the filter
goes through set_encoding (packed by output channels once its layout is resolved:
``rt.compiler.targets.encoding_conv``; a constant filter is then hoisted and packed once at
load), while the input and the result stay plain, so no unset_encoding follows::

    %w0 = iree_encoding.set_encoding %w : tensor<3x3x64x64xf32> -> tensor<3x3x64x64xf32, #conv_filter>
    %r = linalg.conv_2d_nhwc_hwcf ins(%x, %w0 : ..., tensor<3x3x64x64xf32, #conv_filter>) outs(%f : ...)

A value several contractions read with the same encoding (one input of several heads, one
weight used twice) gets one set_encoding (``merge_duplicate_set_encodings``).

Other contractions (linalg.generic ones, dot, other element types) and depthwise convolutions
are left as they are and run un-tiled, and so are small matrix-vector products: a ``vecmat``,
``matvec`` or ``batch_matvec`` with static sizes whose matrix has at most
``NARROW_PLAIN_ELEMENTS`` elements (a classifier head: 1x128 times 128x10). Packing its vector
and unpacking its result are two dispatches that cost more than the un-tiled kernel loses
(IREE 3.13 leaves such a vecmat plain too, and fuses its bias add; measured on llvm-cpu: 128x10
8 us plain against 10 us packed per call, while a constant 1024x1024 runs 2.5x faster packed). ``data_tiling=false`` (``rt compile --no-data-tiling``) makes the
pass a no-op.

Source followed: IREE ``DispatchCreation/SetEncoding.cpp`` (and seed 001's IR dump).
"""
import dataclasses
import math

from xdsl.dialects import tensor
from xdsl.dialects.builtin import (ArrayAttr, AffineMapAttr, DYNAMIC_INDEX, IndexType, IntAttr, IntegerAttr,
                                   NoneAttr, StringAttr, TensorType)
from xdsl.dialects.linalg import ops as linalg
from xdsl.rewriter import InsertPoint, Rewriter

from rt.compiler.dialects.iree_encoding import DYNAMIC, EncodingAttr, SetEncodingOp, UnsetEncodingOp
from rt.compiler.dialects.linalg_named import NAMED_OP_CLASSES
from rt.compiler.passes.base import Pass
from rt.compiler.helpers.dispatch import op_kinds as kinds
from rt.compiler.helpers.dispatch.dce import erase_dead_ops
from rt.compiler.helpers.dispatch.shapes import materialize_dims
from rt.compiler.targets.encoding import contraction
from rt.compiler.targets.encoding_conv import PACKED_CONV_OPS, filter_tile
from rt.runtime.errors import UnimplementedError

#: The named contractions set-encoding rewrites (IREE: every contraction with at most one
#: batch, M and N dim and one K dim).
CONTRACTIONS = tuple(NAMED_OP_CLASSES[row] for row in ("matmul", "batch_matmul", "matvec", "vecmat", "batch_matvec"))
#: Narrow contractions (one of M, N absent) whose matrix has at most this many elements stay plain.
NARROW_PLAIN_ELEMENTS = 16384
NARROW_CONTRACTIONS = tuple(NAMED_OP_CLASSES[row] for row in ("matvec", "vecmat", "batch_matvec"))
#: (lhs, rhs, out) element types data tiling handles: the Kernel IR Mmt4d types.
SUPPORTED_TYPES = {("f32", "f32", "f32"), ("i8", "i8", "i32"), ("f16", "f16", "f32"), ("f16", "f16", "f16"),
                   ("bf16", "bf16", "f32"), ("bf16", "bf16", "bf16")}
#: The convolutions whose filter set-encoding packs, and their (input, filter, out) types.
CONVOLUTIONS = tuple(NAMED_OP_CLASSES[row] for row in PACKED_CONV_OPS)
CONV_TYPES = {("f32", "f32", "f32")}


def _element_types(op):
    return tuple(str(v.type.element_type) for v in (op.inputs[0], op.inputs[1], op.outputs[0]))


def is_data_tiling_candidate(op):
    """Whether ``op`` is a contraction set-encoding rewrites."""
    if not isinstance(op, CONTRACTIONS) or len(op.inputs) != 2 or len(op.outputs) != 1:
        return False
    if not all(isinstance(v.type, TensorType) and isinstance(v.type.encoding, NoneAttr)
               for v in (*op.inputs, *op.outputs)):
        return False
    if _element_types(op) not in SUPPORTED_TYPES or _small_narrow(op):
        return False
    try:
        contraction(matmul_encoding(op, 0))
    except UnimplementedError:
        return False
    return True


def _small_narrow(op):
    """A matvec/vecmat/batch_matvec of static sizes whose matrix has few elements."""
    if not isinstance(op, NARROW_CONTRACTIONS):
        return False
    matrix = max((v.type for v in op.inputs), key=lambda t: len(t.get_shape()))
    shape = matrix.get_shape()
    return all(d >= 0 for d in shape) and math.prod(shape) <= NARROW_PLAIN_ELEMENTS


def _static(size):
    return IntAttr(DYNAMIC if not isinstance(size, int) or size == DYNAMIC_INDEX else size)


def matmul_encoding(op, operand_index, op_type="matmul"):
    """The ``#iree_encoding.encoding`` of operand ``operand_index`` (0 LHS, 1 RHS, 2 RESULT) of
    contraction ``op`` (or of a convolution's input, filter, output with ``op_type="conv"``):
    its indexing maps and static loop sizes (``?`` when dynamic)."""
    ranges = kinds.loop_ranges(op, lambda v: [None] * len(v.type.get_shape()))
    sizes = ArrayAttr([_static(r) for r in ranges])
    types = ArrayAttr([v.type.element_type for v in (op.inputs[0], op.inputs[1], op.outputs[0])])
    maps = ArrayAttr([AffineMapAttr(m) for m in kinds.indexing_maps(op)])
    return EncodingAttr(IntegerAttr(operand_index, IndexType()), StringAttr(op_type), types, maps, NoneAttr(),
                        sizes, ArrayAttr([]))


def is_conv_data_tiling_candidate(op):
    """Whether ``op`` is a convolution whose filter set-encoding packs (see the module docstring)."""
    if not isinstance(op, CONVOLUTIONS) or len(op.inputs) != 2 or len(op.outputs) != 1:
        return False
    if not all(isinstance(v.type, TensorType) and isinstance(v.type.encoding, NoneAttr)
               for v in (*op.inputs, *op.outputs)):
        return False
    if _element_types(op) not in CONV_TYPES:
        return False
    try:
        filter_tile(matmul_encoding(op, 1, "conv"), None)
    except UnimplementedError:
        return False
    return True


def set_conv_encoding(op):
    """Rewrite convolution ``op`` onto an encoded filter (input and output stay plain)."""
    filt = op.inputs[1]
    set_op = _located(SetEncodingOp.build(operands=[filt, list(materialize_dims(filt, op))],
                                          result_types=[_encoded(filt.type, matmul_encoding(op, 1, "conv"))]), op)
    conv = _located(type(op).build(operands=[[op.inputs[0], set_op.result], list(op.outputs)],
                                    result_types=[[r.type for r in op.results]],
                                    properties=dict(op.properties), attributes=dict(op.attributes),
                                    regions=[op.regions[0].clone()]), op)
    Rewriter.insert_op([set_op, conv], InsertPoint.before(op))
    op.results[0].replace_all_uses_with(conv.results[0])
    op.parent_block().erase_op(op)


def _encoded(type_, encoding):
    return TensorType(type_.element_type, type_.get_shape(), encoding)


def _located(op, like):
    op.location = like.location
    return op


def _encoded_init(op, init, encoding, new_ops):
    """The encoded init: a fill of an empty re-created on the encoded type, else set_encoding."""
    fill = init.op if hasattr(init, "op") else None
    if (isinstance(fill, linalg.FillOp) and len(fill.inputs) == 1
            and isinstance(fill.outputs[0].op if hasattr(fill.outputs[0], "op") else None, tensor.EmptyOp)):
        empty = fill.outputs[0].op
        enc_type = _encoded(init.type, encoding)
        new_empty = _located(tensor.EmptyOp(list(empty.dynamic_sizes), enc_type), empty)
        new_fill = _located(type(fill)([fill.inputs[0]], [new_empty.tensor], res=[enc_type]), fill)
        new_ops += [new_empty, new_fill]
        return new_fill.results[0]
    set_op = _located(SetEncodingOp.build(operands=[init, list(materialize_dims(init, op))],
                                          result_types=[_encoded(init.type, encoding)]), op)
    new_ops.append(set_op)
    return set_op.result


def set_matmul_encoding(op):
    """Rewrite contraction ``op`` onto encoded operands (see the module docstring)."""
    dims = materialize_dims(op.outputs[0], op)
    new_ops = []
    operands = []
    for i, value in enumerate(op.inputs):
        set_op = _located(SetEncodingOp.build(operands=[value, list(materialize_dims(value, op))],
                                              result_types=[_encoded(value.type, matmul_encoding(op, i))]), op)
        new_ops.append(set_op)
        operands.append(set_op.result)
    init = _encoded_init(op, op.outputs[0], matmul_encoding(op, 2), new_ops)
    matmul = _located(type(op).build(operands=[operands, [init]], result_types=[[init.type]],
                                      properties=dict(op.properties), attributes=dict(op.attributes),
                                      regions=[op.regions[0].clone()]), op)
    unset = _located(UnsetEncodingOp.build(operands=[matmul.results[0], list(dims)],
                                           result_types=[op.results[0].type]), op)
    new_ops += [matmul, unset]
    Rewriter.insert_op(new_ops, InsertPoint.before(op))
    op.results[0].replace_all_uses_with(unset.result)
    op.parent_block().erase_op(op)


@dataclasses.dataclass(frozen=True)
class SetEncodingPass(Pass):
    """Set data-tiling encodings on contractions (see the module docstring); ``data_tiling=False``
    leaves the module unchanged."""

    name = "iree-dispatch-creation-set-encoding"
    data_tiling: bool = True

    def run(self, module, ctx):
        if not self.data_tiling:
            return
        candidates = [op for op in module.walk() if is_data_tiling_candidate(op)]
        for op in candidates:
            set_matmul_encoding(op)
        convs = [op for op in module.walk() if is_conv_data_tiling_candidate(op)]
        for op in convs:
            set_conv_encoding(op)
        if candidates or convs:
            merge_duplicate_set_encodings(module)
            erase_dead_ops(module)


def merge_duplicate_set_encodings(module):
    """One set_encoding per (value, encoded type) in a block: a tensor several contractions
    read with the same encoding (one input through several heads, one weight in several
    layers) is packed once, as IREE's cleanup CSE after SetEncoding leaves it. The earliest
    op of the block is kept (it dominates the later ones); its result dims come from the same
    value, so they are equal."""
    first = {}
    for op in list(module.walk()):
        if not isinstance(op, SetEncodingOp):
            continue
        key = (id(op.parent_block()), id(op.source), op.result.type)
        kept = first.setdefault(key, op)
        if kept is not op:
            op.result.replace_all_uses_with(kept.result)
