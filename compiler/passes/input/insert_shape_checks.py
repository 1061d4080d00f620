"""``rt-insert-shape-checks``: host-side checks of the dims the program's types promise.

A tensor type with dynamic dims promises nothing until run time, so a program can reach an op
whose operands disagree: a matmul whose K differs between its operands, elementwise operands of
different sizes, a ``tensor.cast`` to a static shape from a buffer of another shape, a slice
that leaves its source. Dispatches trust these dims, so without a check the result is silently
wrong (or, on vmvx, reads neighbouring data). This pass inserts, before each such op, the
comparisons of the dims that must agree and a ``cf.assert`` whose message names the op, its
source location and the dims, so a bad call fails before anything is dispatched:

* linalg ops: every loop dim must have one size: all operand dims an indexing map ties to the
  same loop dim (``d2`` of a matmul: LHS dim 1 and RHS dim 0) are compared when any is dynamic;
* ``tensor.cast``: a dynamic source dim cast to a static one must equal it;
* ``tensor.concat``: every dim but the concatenated one must be the same in each input (and
  equal the result's where that is static);
* ``tensor.extract_slice`` / ``insert_slice``: offsets and sizes non-negative, the slice inside
  the source (extract) or destination (insert), and an inserted source's dims equal to the
  sizes. A static ``insert_slice`` whose source shape disagrees with its sizes is a located
  compile error.

Example::

    %r = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(...)
    // ->
    %k0 = tensor.dim %a, %c1 : tensor<?x?xf32>
    %k1 = tensor.dim %b, %c0 : tensor<?x?xf32>
    %ok = arith.cmpi eq, %k1, %k0 : index
    cf.assert %ok, "mm.mlir:9:8: linalg.matmul: operand 1 dim 0 must equal operand 0 dim 1 ..."
    %r = linalg.matmul ...

Source followed: the runtime shape assertions IREE emits where types meet buffers
(``hal.buffer_view.assert`` at the ABI, ``flow.tensor.tie_shape``), and ``cf.assert`` lowered to
``vm.cond_fail`` (IREE's StandardToVM). IREE has no single pass of this name.
"""
import dataclasses

from xdsl.dialects import arith, cf, func
from xdsl.dialects import tensor as xtensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, IntegerAttr, TensorType
from xdsl.ir.affine import AffineDimExpr

from rt.compiler.dialects import util
from rt.compiler.frontend.diagnostics import error_at_op, op_location
from rt.compiler.passes.base import Pass

INDEX = IndexType()


def _where(op):
    loc = op_location(op)
    return f"{loc[0]}:{loc[1]}:{loc[2]}" if loc else "<unknown>"


class _Checks:
    """Builds checks before ``op`` (each new op takes its location)."""

    def __init__(self, op):
        self.op = op
        self.prefix = f"{_where(op)}: {op.name}"

    def insert(self, new):
        new.location = self.op.location
        self.op.parent_block().insert_op_before(new, self.op)
        return new.results[0] if new.results else None

    def const(self, value):
        return self.insert(arith.ConstantOp(IntegerAttr(value, INDEX)))

    def index(self, value):
        return self.const(value) if isinstance(value, int) else value

    def dim(self, tensor, d):
        size = tensor.type.get_shape()[d]
        return size if size != DYNAMIC_INDEX else self.insert(xtensor.DimOp(tensor, self.const(d)))

    def require(self, predicate, lhs, rhs, what):
        """Assert ``lhs <predicate> rhs`` (ints or index values) with message ``what``."""
        if isinstance(lhs, int) and isinstance(rhs, int):
            return
        ok = self.insert(arith.CmpiOp(self.index(lhs), self.index(rhs), predicate))
        self.insert(cf.AssertOp(ok, f"{self.prefix}: {what}"))

    def binary(self, op_class, lhs, rhs):
        if isinstance(lhs, int) and isinstance(rhs, int):
            return {arith.AddiOp: lhs + rhs, arith.MuliOp: lhs * rhs, arith.SubiOp: lhs - rhs}[op_class]
        return self.insert(op_class(self.index(lhs), self.index(rhs)))


def _linalg(op):
    maps = op.get_indexing_maps()
    maps = [m.data if hasattr(m, "data") else m for m in maps]
    operands = list(op.inputs) + list(op.outputs)
    if len(maps) != len(operands):
        return
    seen = {}
    checks = None
    for k, (value, amap) in enumerate(zip(operands, maps)):
        if not isinstance(value.type, TensorType):
            continue
        shape = value.type.get_shape()
        for r, expr in enumerate(amap.results):
            if not isinstance(expr, AffineDimExpr) or r >= len(shape):
                continue
            first = seen.setdefault(expr.position, (k, r, value))
            if first[0] == k and first[1] == r:
                continue
            k0, r0, v0 = first
            if shape[r] != DYNAMIC_INDEX and v0.type.get_shape()[r0] != DYNAMIC_INDEX:
                continue  # both static: the static verifier owns that case
            checks = checks or _Checks(op)
            checks.require("eq", checks.dim(value, r), checks.dim(v0, r0),
                           f"operand {k} dim {r} must equal operand {k0} dim {r0} (both are loop "
                           f"dim d{expr.position}); the call's shapes disagree")


def _cast(op):
    src, dst = op.source.type, op.dest.type
    if not (isinstance(src, TensorType) and isinstance(dst, TensorType)):
        return
    checks = _Checks(op)
    for d, (s, t) in enumerate(zip(src.get_shape(), dst.get_shape())):
        if s == DYNAMIC_INDEX and t != DYNAMIC_INDEX:
            checks.require("eq", checks.dim(op.source, d), t,
                           f"to {dst}: dimension {d} of the source is not {t}")


def _concat(op):
    axis = op.dim.value.data
    checks = _Checks(op)
    for d, want in enumerate(op.result.type.get_shape()):
        if d == axis:
            continue
        static = want != DYNAMIC_INDEX
        first = want if static else checks.dim(op.inputs[0], d)
        for k, item in enumerate(op.inputs):
            if k == 0 and not static:
                continue
            checks.require("eq", checks.dim(item, d), first,
                           f"dim {d} of input {k} is not the result's {want}" if static else
                           f"input {k} dim {d} must equal input 0 dim {d} (only dim {axis} is concatenated)")


def _mixed(static, dynamic):
    dynamic = list(dynamic)
    return [dynamic.pop(0) if s == DYNAMIC_INDEX else s for s in static]


def _slice(op, whole, extract):
    """Checks that ``op``'s slice lies inside ``whole`` (a tensor value)."""
    offsets = _mixed(op.static_offsets.get_values(), op.offsets)
    sizes = _mixed(op.static_sizes.get_values(), op.sizes)
    strides = _mixed(op.static_strides.get_values(), op.strides)
    checks = _Checks(op)
    if not extract:
        _inserted_source(op, sizes, checks)
    for d, (o, n, s) in enumerate(zip(offsets, sizes, strides)):
        size = checks.dim(whole, d)
        if all(isinstance(v, int) for v in (o, n, s, size)):
            continue
        checks.require("sge", o, 0, f"offset {d} is negative")
        checks.require("sge", n, 0, f"size {d} is negative")
        # offset + (size - 1) * stride < dim, as offset + size * stride < dim + stride so
        # that an empty slice (size 0, offset <= dim) passes.
        end = checks.binary(arith.AddiOp, o, checks.binary(arith.MuliOp, n, s))
        limit = checks.binary(arith.AddiOp, size, s)
        checks.require("slt", end, limit, f"the slice along dim {d} ends past the "
                                          f"{'source' if extract else 'destination'}")


def _inserted_source(op, sizes, checks):
    shape = op.source.type.get_shape()
    if len(shape) != len(sizes):
        return  # rank-reducing insert: unit dims dropped, checked by the bounds below
    for d, (have, want) in enumerate(zip(shape, sizes)):
        if have != DYNAMIC_INDEX and isinstance(want, int):
            if have != want:
                raise error_at_op(op, f"'tensor.insert_slice' inserts a source of type "
                                      f"{op.source.type} but its sizes are {sizes}: dim {d} is "
                                      f"{have}, the slice {want}")
            continue
        checks.require("eq", checks.dim(op.source, d), want,
                       f"dim {d} of the inserted source does not equal the slice size")


@dataclasses.dataclass(frozen=True)
class InsertShapeChecksPass(Pass):
    """Insert ``cf.assert``s for dims that must agree at run time (see module docstring)."""

    name = "rt-insert-shape-checks"

    def run(self, module, ctx):
        for op in list(module.walk()):
            if isinstance(op, xtensor.CastOp):
                _cast(op)
            elif isinstance(op, xtensor.ConcatOp):
                _concat(op)
            elif isinstance(op, xtensor.ExtractSliceOp):
                _slice(op, op.source, True)
            elif isinstance(op, xtensor.InsertSliceOp):
                _slice(op, op.dest, False)
            # any structured linalg op: its indexing maps relate its operands' dims
            elif op.dialect_name() == "linalg" and hasattr(op, "get_indexing_maps") and hasattr(op, "inputs"):
                if isinstance(op.parent_op(), (func.FuncOp, util.FuncOp)):
                    _linalg(op)
