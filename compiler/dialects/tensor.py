"""``tensor`` as xDSL 0.74.0 defines it, plus ``tensor.bitcast`` and MLIR's slice verification.

xDSL 0.74.0 already has cast, concat, dim, empty, collapse/expand_shape, reshape,
extract(_slice), insert(_slice), from_elements, splat, pad. rt adds ``tensor.bitcast %t :
tensor<4xi32> to tensor<4xf32>`` (same shape, same element width), and verifies
``extract_slice`` / ``insert_slice`` as MLIR does, which xDSL does not: static offsets inside
the sliced tensor, the last static position inside it (``slice along dimension 0 runs
out-of-bounds: 10 >= 10``), non-negative sizes, and the slice type equal to the sizes or a
rank-reduced version of them (unit dims dropped). ``tensor.gather`` and ``tensor.scatter`` are
deliberately absent: rt rejects them with a located "not supported" error.

Source followed: MLIR ``TensorOps.td``, ``TensorOps.cpp`` (``produceSliceErrorMsg``) and
``ViewLikeInterface.cpp`` (``verifyInBoundsSlice``).
"""
from typing import ClassVar

from xdsl.dialects import tensor as xtensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, TensorType
from xdsl.ir import Dialect
from xdsl.irdl import irdl_op_definition, operand_def, result_def, traits_def
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from rt.compiler.dialects._format import AttrDict, FormattedOp, Operand, OpFormat, Type


@irdl_op_definition
class BitcastOp(FormattedOp):
    """``tensor.bitcast %t : tensor<4xi32> to tensor<4xf32>``."""

    name = "tensor.bitcast"
    source = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    FORMAT: ClassVar = OpFormat(" ", Operand("source"), AttrDict(), " : ", Type("source"), " to ", Type("result"))

    def verify_(self):
        src, dst = self.source.type, self.result.type
        if src.get_shape() != dst.get_shape():
            raise VerifyException(f"tensor.bitcast: shapes differ ({src} vs {dst})")
        if src.element_type.bitwidth != dst.element_type.bitwidth:
            raise VerifyException(f"tensor.bitcast: element widths differ ({src} vs {dst})")


def verify_slice_bounds(shape, offsets, sizes, strides):
    """Raise VerifyException when a static slice leaves ``shape`` (MLIR's verifyInBoundsSlice)."""
    for k, extent in enumerate(shape):
        offset, size, stride = offsets[k], sizes[k], strides[k]
        if extent == DYNAMIC_INDEX or offset == DYNAMIC_INDEX:
            continue
        if offset >= extent:
            raise VerifyException(f"offset {k} is out-of-bounds: {offset} >= {extent}")
        if size == DYNAMIC_INDEX or stride == DYNAMIC_INDEX:
            continue
        last = offset + (size - 1) * stride
        if last >= extent:
            raise VerifyException(f"slice along dimension {k} runs out-of-bounds: {last} >= {extent}")


def verify_slice_type(sliced, sizes, what):
    """Raise VerifyException unless ``sliced`` is ``sizes`` of its element type, or that shape with
    some unit dims dropped (a rank-reducing slice); a dynamic size matches any extent."""
    shape, k = list(sliced.get_shape()), 0
    for size in sizes:
        if k < len(shape) and (shape[k] == size or DYNAMIC_INDEX in (shape[k], size)):
            k += 1
        elif size != 1:
            k = -1
            break
    if k != len(shape):
        dims = "x".join("?" if d == DYNAMIC_INDEX else str(d) for d in sizes)
        raise VerifyException(f"expected {what} type to be 'tensor<{dims}{'x' if dims else ''}"
                              f"{sliced.element_type}>' or a rank-reduced version of it, got {sliced}")


def _check_slice(op, sliced, full, what):
    offsets, sizes, strides = (op.static_offsets.get_values(), op.static_sizes.get_values(),
                               op.static_strides.get_values())
    if any(s < 0 and s != DYNAMIC_INDEX for s in sizes):
        raise VerifyException(f"expected sizes to be non-negative, but got {list(sizes)}")
    if any(o < 0 and o != DYNAMIC_INDEX for o in offsets):
        raise VerifyException(f"expected offsets to be non-negative, but got {list(offsets)}")
    if not len(offsets) == len(sizes) == len(strides) == len(full.get_shape()):
        raise VerifyException(f"expected {len(full.get_shape())} offsets, sizes and strides for {full}")
    if sliced.element_type != full.element_type:
        raise VerifyException(f"expected {what} element type {full.element_type}, got {sliced.element_type}")
    verify_slice_type(sliced, sizes, what)
    verify_slice_bounds(full.get_shape(), offsets, sizes, strides)


class ExtractSliceOp(xtensor.ExtractSliceOp):
    """``tensor.extract_slice`` verified as MLIR does (bounds, result type)."""

    def verify_(self):
        super().verify_()
        _check_slice(self, self.result.type, self.source.type, "result")


class InsertSliceOp(xtensor.InsertSliceOp):
    """``tensor.insert_slice`` verified as MLIR does (bounds, source type)."""

    def verify_(self):
        super().verify_()
        _check_slice(self, self.source.type, self.dest.type, "source")


def build_dialect():
    """xDSL's tensor Dialect with MLIR's slice verification, plus rt's extra ops."""
    ours = {op.name: op for op in (ExtractSliceOp, InsertSliceOp)}
    ops = [ours.get(op.name, op) for op in xtensor.Tensor.operations]
    return Dialect("tensor", ops + [BitcastOp], list(xtensor.Tensor.attributes))
