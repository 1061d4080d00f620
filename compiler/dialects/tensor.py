"""``tensor`` as xDSL 0.74.0 defines it, plus ``tensor.bitcast`` and MLIR's slice and pad verification.

xDSL 0.74.0 already has cast, concat, dim, empty, collapse/expand_shape, reshape,
extract(_slice), insert(_slice), from_elements, splat, pad. rt adds ``tensor.bitcast %t :
tensor<4xi32> to tensor<4xf32>`` (same shape, same element width), and verifies
``extract_slice`` / ``insert_slice`` as MLIR does, which xDSL does not: static offsets inside
the sliced tensor, the last static position inside it (``slice along dimension 0 runs
out-of-bounds: 10 >= 10``), non-negative sizes, and the slice type equal to the sizes or a
rank-reduced version of them (unit dims dropped); and ``tensor.pad`` as MLIR does (a result dim
may be static where dynamic pads leave the inferred dim unknown). ``tensor.gather`` and ``tensor.scatter`` are
deliberately absent: rt rejects them with a located "not supported" error.

Source followed: MLIR ``TensorOps.td``, ``TensorOps.cpp`` (``produceSliceErrorMsg``) and
``ViewLikeInterface.cpp`` (``verifyInBoundsSlice``), ``PadOp::verify``/``verifyRegions``.
"""
from typing import ClassVar

from xdsl.dialects import tensor as xtensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, TensorType
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


class PadOp(xtensor.PadOp):
    """``tensor.pad`` verified as MLIR does: the result type is the one inferred from the source
    and the static pads, except that a dim the inference leaves dynamic (a dynamic source dim or
    pad) may be static in the result (``tensor<?xf32>`` padded by ``%n`` may be written
    ``tensor<8xf32>``, as IREE's ONNX importer does). xDSL insists that such dims be dynamic."""

    def verify_(self):
        type(self).get_irdl_definition().verify(self)
        low, high = self.static_low.get_values(), self.static_high.get_values()
        source, result = self.source.type.get_shape(), self.result.type.get_shape()
        if not len(low) == len(high) == len(source) == len(result):
            raise VerifyException(f"expected {len(source)} low and high pads and a rank-{len(source)} result, "
                                  f"got {len(low)}, {len(high)} and rank {len(result)}")
        for what, static, values in (("low", low, self.low), ("high", high, self.high)):
            if static.count(DYNAMIC_INDEX) != len(values):
                raise VerifyException(f"expected {static.count(DYNAMIC_INDEX)} dynamic {what} pads, got {len(values)}")
        for k, (extent, before, after, got) in enumerate(zip(source, low, high, result)):
            if DYNAMIC_INDEX in (extent, before, after) or got == extent + before + after:
                continue
            raise VerifyException(f"result dim {k} is {'?' if got == DYNAMIC_INDEX else got}, but the source "
                                  f"dim {extent} padded by {before} and {after} gives {extent + before + after}")
        block = self.region.block
        if len(block.args) != len(source) or any(not isinstance(a.type, IndexType) for a in block.args):
            raise VerifyException(f"expected the region to take {len(source)} index arguments, got "
                                  f"({', '.join(str(a.type) for a in block.args)})")
        yielded = [v.type for v in block.last_op.operands] if block.last_op is not None else []
        if yielded != [self.result.type.element_type]:
            raise VerifyException(f"expected the region to yield one {self.result.type.element_type}, got {yielded}")


def build_dialect():
    """xDSL's tensor Dialect with MLIR's slice and pad verification, plus rt's extra ops."""
    ours = {op.name: op for op in (ExtractSliceOp, InsertSliceOp, PadOp)}
    ops = [ours.get(op.name, op) for op in xtensor.Tensor.operations]
    return Dialect("tensor", ops + [BitcastOp], list(xtensor.Tensor.attributes))
