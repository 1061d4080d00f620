"""``iree-stablehlo-legalize-shape-computations``: StableHLO's dynamic-shape ops -> tensor/linalg.

Input: what ``jax.export`` writes for symbolic dimensions (``jax.export.symbolic_shape("b")``):
``get_dimension_size``, shape arithmetic on small integer tensors, the dynamic ops of
``dialects/_stablehlo_dynamic.py`` taking those tensors, JAX's ``@shape_assertion`` custom
calls, and static-attribute ops (``pad``, ``slice``) applied to tensors with dynamic dims.
Runs before ``iree-stablehlo-to-iree-input``; afterwards no dynamic-shape op is left and every
size is an ``index`` value (``helpers/stablehlo/shapes.py`` folds the shape arithmetic into
``tensor.dim`` and ``arith`` ops on the host). Each op becomes:

* ``get_dimension_size`` -> ``tensor.dim`` + ``arith.index_cast`` + ``tensor.from_elements``;
* ``dynamic_broadcast_in_dim`` -> a broadcasting ``linalg.generic`` into a ``tensor.empty`` of
  the shape's sizes. An operand dim of static size 1 broadcasts; a dynamic operand dim is taken
  as non-expanding (it equals the result dim) unless ``known_expanding_dimensions`` lists it, as
  IREE's lowering does, and a host ``cf.assert`` checks that at run time;
* ``dynamic_iota`` -> a ``linalg.generic`` of ``linalg.index``; ``dynamic_reshape`` ->
  ``flow.tensor.reshape`` with dynamic dims; ``real_dynamic_slice`` -> ``tensor.extract_slice``
  with dynamic offsets, sizes and strides (positive strides); ``dynamic_pad`` -> ``tensor.pad``
  (non-negative edges checked at run time, no interior padding);
* ``dynamic_gather`` whose index vector is one start position and whose ``slice_sizes`` are
  shape values (``x[1:]`` on a symbolic dim) -> ``tensor.extract_slice`` at starts clamped into
  the operand, as ``gather`` clamps; one with constant ``slice_sizes``, or whose run-time sizes
  are whole dims no index moves along (``x[:, ::2]``), -> ``stablehlo.gather``;
* ``dynamic_slice`` / ``dynamic_update_slice`` of a dynamic tensor (a ``lax.scan`` over a
  symbolic length) -> ``tensor.extract_slice`` / ``insert_slice`` at starts clamped with the
  run-time dims, as the spec clamps;
* ``pad`` / ``slice`` on dynamic operands -> ``tensor.pad`` / ``tensor.extract_slice`` (a slice's
  limits checked against the run-time dims on the host);
* ``custom_call @shape_assertion(%ok, %dims...)`` with JAX's 0-d predicate -> ``cf.assert`` on
  ``%ok`` with JAX's message (its ``{0}`` placeholders shown as ``?``): a call whose shapes break
  the exported specification fails with JAX's explanation instead of computing on the wrong
  sizes. Other shape assertions are dropped, as IREE drops all of them.

Before that, calls that pass tensors with dynamic dims between functions (``jax.export``'s
wrapper, ``lax.scan`` bodies) are inlined (``helpers/stablehlo/inline.py``: rt carries dynamic
dims only across the public ABI), and region bodies that the conversion turns into scalar code (``sort`` comparators,
``reduce`` bodies) get their own copies of the outer constants they use
(``helpers/stablehlo/regions.py``): ``jax.export`` of ``jnp.sort`` captures its NaN constants.

* ``custom_call @stablehlo.dynamic_reduce_window`` (JAX's ``cumsum``/``cumprod`` over a symbolic
  dim: a window as long as the dim) -> a pad and a windowed reduction ``linalg.generic`` whose
  window sizes and padding are run-time values (``helpers/stablehlo/dynamic_windows.py``).

Anything else dynamic (a ``dynamic_gather`` with a run-time size on an indexed dim,
``dynamic_conv``) is a located CompileError naming the op.

Source followed: the StableHLO specification ("Dynamism", each op's semantics) and IREE's
StableHLO input plugin (``StableHLOToLinalg*.cpp``: dynamic broadcasts as non-expanding unless
known otherwise; shape assertions).
"""
import dataclasses
import re

from xdsl.dialects import arith as xarith
from xdsl.dialects import cf, tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, DenseArrayBase, IndexType, StringAttr, TensorType, i64
from xdsl.ir import Block, Region
from xdsl.ir.affine import AffineExpr
from xdsl.rewriter import Rewriter

from rt.compiler.dialects import arith, stablehlo as hlo
from rt.compiler.dialects import _stablehlo_dynamic as dyn
from rt.compiler.dialects.flow_tensor_shape import TensorReshapeOp
from rt.compiler.dialects.tensor import ExtractSliceOp, InsertSliceOp
from rt.compiler.frontend import error_at_op
from rt.compiler.helpers.stablehlo.builders import affine_maps, dim_exprs, generic, int_list, iota
from rt.compiler.helpers.stablehlo.elementwise import OpSink, element_type
from rt.compiler.helpers.stablehlo.dynamic_windows import convert_dynamic_reduce_window
from rt.compiler.helpers.stablehlo.inline import inline_dynamic_calls
from rt.compiler.helpers.stablehlo.regions import localize_captured_values
from rt.compiler.helpers.stablehlo.shapes import constant_ints, index_constant, result_sizes, shape_elements
from rt.compiler.op_handlers import OpHandlers, handles
from rt.compiler.passes.base import Pass


def _is_dynamic(type_):
    return isinstance(type_, TensorType) and any(d == DYNAMIC_INDEX for d in type_.get_shape())


def _dims(b, value):
    """Every dim of ``value`` as an ``index`` value (static ones as constants)."""
    return [index_constant(b, size) if size != DYNAMIC_INDEX else b.add(tensor.DimOp(value, index_constant(b, i)))
            for i, size in enumerate(value.type.get_shape())]


def _dynamic_sizes(b, value):
    return [b.add(tensor.DimOp(value, index_constant(b, i)))
            for i, size in enumerate(value.type.get_shape()) if size == DYNAMIC_INDEX]


def _operands(op, *names):
    """``op``'s operands, one per name; a located CompileError naming them when the count differs."""
    if len(op.inputs) != len(names):
        raise error_at_op(op, f"'{op.name}' takes {len(names)} operands ({', '.join(names)}), got {len(op.inputs)}")
    return list(op.inputs)


def _same_lengths(op, rank, **lists):
    for name, values in lists.items():
        if len(values) != rank:
            raise error_at_op(op, f"'{op.name}': {name} has {len(values)} elements for an operand of rank {rank}")


def _require(b, condition, message):
    b.add(cf.AssertOp(condition, message))


def _compare(b, lhs, rhs, predicate):
    return b.add(arith.CmpIOp(lhs, rhs, predicate))


def _clamp(b, value, low, high):
    return b.add(xarith.MinSIOp.build(operands=[b.add(xarith.MaxSIOp.build(operands=[value, low],
                                                                            result_types=[IndexType()])), high],
                                      result_types=[IndexType()]))


def _sub(b, lhs, rhs):
    return b.add(xarith.SubiOp.build(operands=[lhs, rhs], result_types=[IndexType()]))


def _padding_region(b, padding, type_, rank):
    value = b.add(tensor.ExtractOp(padding, [], element_type(type_)))
    block = Block(arg_types=[IndexType()] * rank)
    block.add_op(tensor.YieldOp(value))
    return Region(block)


@dataclasses.dataclass(frozen=True)
class StableHLOLegalizeShapeComputationsPass(Pass):
    """Convert StableHLO's dynamic-shape ops (see the module docstring); a no-op without them."""

    name = "iree-stablehlo-legalize-shape-computations"

    def run(self, module, ctx):
        if not any(op.dialect_name() == "stablehlo" for op in module.walk()):
            return
        inline_dynamic_calls(module)
        localize_captured_values(module)
        converter = _Converter()
        ops = [op for op in module.walk() if converter.handler(op) is not None]
        # consumers of shapes first: they read get_dimension_size ops that are converted last
        ops.sort(key=lambda op: isinstance(op, dyn.GetDimensionSizeOp))
        for op in ops:
            converter.convert(op)


class _Converter:
    handler = OpHandlers()

    def convert(self, op):
        if not isinstance(op, hlo.CustomCallOp) and len(op.outputs) != 1:
            raise error_at_op(op, f"'{op.name}' has one result, got {len(op.outputs)}")
        if isinstance(op, dyn.GetDimensionSizeOp):
            _operands(op, "operand")
        b = OpSink(op.location)
        results = self.handler(op)(op, b)
        if results is not None:
            Rewriter.replace_op(op, b.ops, list(results))

    @handles(dyn.GetDimensionSizeOp)
    def _get_dimension_size(self, op, b):
        size = shape_elements(b, op.outputs[0], op)[0]
        element = element_type(op.outputs[0].type)
        return [b.add(tensor.FromElementsOp(b.add(arith.IndexCastOp.build(operands=[size], result_types=[element])),
                                            result_type=op.outputs[0].type))]

    @handles(dyn.DynamicBroadcastInDimOp)
    def _dynamic_broadcast_in_dim(self, op, b):
        value, shape = _operands(op, "operand", "output_dimensions")
        type_ = op.outputs[0].type
        rank = type_.get_num_dims()
        sizes = shape_elements(b, shape, op)
        dims = int_list(op, "broadcast_dimensions")
        expanding = set(int_list(op, "known_expanding_dimensions", []))
        if len(dims) != value.type.get_num_dims() or any(not 0 <= d < rank for d in dims):
            raise error_at_op(op, f"'{op.name}': broadcast dimensions {dims} do not fit {value.type} -> {type_}")
        exprs = []
        for i, d in enumerate(dims):
            size = value.type.get_shape()[i]
            if size == 1 and type_.get_shape()[d] != 1 or i in expanding:
                exprs.append(AffineExpr.constant(0))
                continue
            exprs.append(AffineExpr.dimension(d))
            if size == DYNAMIC_INDEX:
                operand_size = b.add(tensor.DimOp(value, index_constant(b, i)))
                _require(b, _compare(b, operand_size, sizes[d], "eq"),
                         f"{op.name}: operand dim {i} (dynamic) must equal result dim {d}; rt takes dynamic operand "
                         "dims as non-expanding (list it in known_expanding_dimensions to broadcast it)")
        init = b.add(tensor.EmptyOp(result_sizes(b, op, type_, sizes), type_))
        return generic(b, [value], [init], affine_maps(rank, exprs, dim_exprs(rank)), ["parallel"] * rank, [type_],
                       lambda s, args: [args[0]])

    @handles(dyn.DynamicIotaOp)
    def _dynamic_iota(self, op, b):
        type_ = op.outputs[0].type
        shape, = _operands(op, "output_shape")
        init = b.add(tensor.EmptyOp(result_sizes(b, op, type_, shape_elements(b, shape, op)), type_))
        return iota(b, op, type_, init)

    @handles(dyn.DynamicReshapeOp)
    def _dynamic_reshape(self, op, b):
        value, shape = _operands(op, "operand", "output_shape")
        type_ = op.outputs[0].type
        sizes = result_sizes(b, op, type_, shape_elements(b, shape, op))
        return [b.add(TensorReshapeOp.build(operands=[value, _dynamic_sizes(b, value), sizes], result_types=[type_]))]

    @handles(dyn.RealDynamicSliceOp)
    def _real_dynamic_slice(self, op, b):
        value, start, limit, strides = _operands(op, "operand", "start_indices", "limit_indices", "strides")
        type_ = op.outputs[0].type
        starts, limits, steps = (shape_elements(b, v, op) for v in (start, limit, strides))
        _same_lengths(op, value.type.get_num_dims(), start_indices=starts, limit_indices=limits, strides=steps)
        sizes = []
        for lo, hi, step in zip(starts, limits, steps):
            span = b.add(xarith.AddiOp.build(operands=[_sub(b, hi, lo), _sub(b, step, index_constant(b, 1))],
                                             result_types=[IndexType()]))
            sizes.append(b.add(arith.DivSIOp.build(operands=[span, step], result_types=[IndexType()])))
        mixed = [static if static != DYNAMIC_INDEX else size for static, size in zip(type_.get_shape(), sizes)]
        return [b.add(ExtractSliceOp(value, starts, mixed, steps, type_))]

    @handles(dyn.DynamicPadOp)
    def _dynamic_pad(self, op, b):
        value, padding, low, high, interior = _operands(op, "operand", "padding_value", "edge_padding_low",
                                                        "edge_padding_high", "interior_padding")
        type_ = op.outputs[0].type
        if any(constant_ints(interior) or [1]):
            raise error_at_op(op, f"'{op.name}' with interior padding (or padding not known at compile time) is "
                                  "not supported by rt; give interior padding as a constant of zeros")
        lows, highs = shape_elements(b, low, op), shape_elements(b, high, op)
        _same_lengths(op, value.type.get_num_dims(), edge_padding_low=lows, edge_padding_high=highs)
        zero = index_constant(b, 0)
        for edge in lows + highs:
            _require(b, _compare(b, edge, zero, "sge"), f"{op.name}: negative edge padding is not supported by rt")
        rank = type_.get_num_dims()
        return [b.add(tensor.PadOp(value, lows, highs, _padding_region(b, padding, type_, rank),
                                   [DYNAMIC_INDEX] * rank, [DYNAMIC_INDEX] * rank, type_))]

    @handles(hlo.PadOp)
    def _pad(self, op, b):
        value, padding = _operands(op, "operand", "padding_value")
        type_ = op.outputs[0].type
        if not _is_dynamic(value.type):
            return None  # static: iree-stablehlo-to-iree-input converts it
        low, high = int_list(op, "edge_padding_low"), int_list(op, "edge_padding_high")
        if any(int_list(op, "interior_padding", [0] * len(low))) or min(low + high, default=0) < 0:
            raise error_at_op(op, f"'{op.name}' on {value.type} with interior or negative padding is not supported "
                                  "by rt on dynamic shapes")
        return [b.add(tensor.PadOp(value, [], [], _padding_region(b, padding, type_, len(low)), low, high, type_))]

    @handles(hlo.SliceOp)
    def _slice(self, op, b):
        value, = _operands(op, "operand")
        type_ = op.outputs[0].type
        if not _is_dynamic(value.type):
            return None
        starts, limits = int_list(op, "start_indices"), int_list(op, "limit_indices")
        strides = int_list(op, "strides", [1] * len(starts))
        sizes = []
        for i, (start, limit, stride) in enumerate(zip(starts, limits, strides)):
            size = max(0, -(-(limit - start) // stride))
            if value.type.get_shape()[i] == DYNAMIC_INDEX:  # the limit must lie inside the run-time dim
                dim = b.add(tensor.DimOp(value, index_constant(b, i)))
                _require(b, _compare(b, index_constant(b, limit), dim, "sle"),
                         f"{op.name}: limit {limit} of dim {i} is past the operand's size")
            sizes.append(size if type_.get_shape()[i] != DYNAMIC_INDEX else index_constant(b, size))
        return [b.add(ExtractSliceOp(value, starts, sizes, strides, type_))]

    @handles(hlo.DynamicSliceOp)
    def _dynamic_slice(self, op, b):
        if not op.inputs:
            raise error_at_op(op, f"'{op.name}' takes an operand and its start indices, got no operands")
        value, indices = op.inputs[0], list(op.inputs[1:])
        type_ = op.outputs[0].type
        if not _is_dynamic(value.type):
            return None
        sizes = int_list(op, "slice_sizes")
        starts = self._clamped_starts(op, b, value, indices, [index_constant(b, size) for size in sizes])
        return [b.add(ExtractSliceOp(value, starts, sizes, [1] * len(sizes), type_))]

    @handles(hlo.DynamicUpdateSliceOp)
    def _dynamic_update_slice(self, op, b):
        if len(op.inputs) < 2:
            raise error_at_op(op, f"'{op.name}' takes an operand, an update and start indices, got "
                                  f"{len(op.inputs)} operands")
        value, update, indices = op.inputs[0], op.inputs[1], list(op.inputs[2:])
        if not _is_dynamic(value.type) and not _is_dynamic(update.type):
            return None
        sizes = _dims(b, update)
        starts = self._clamped_starts(op, b, value, indices, sizes)
        mixed = [static if static != DYNAMIC_INDEX else size for static, size in zip(update.type.get_shape(), sizes)]
        rank = len(sizes)
        dynamic_sizes = [size for size in mixed if not isinstance(size, int)]
        return [b.add(InsertSliceOp.build(
            operands=[update, value, starts, dynamic_sizes, []], result_types=[value.type],
            properties={"static_offsets": DenseArrayBase.from_list(i64, [DYNAMIC_INDEX] * rank),
                        "static_sizes": DenseArrayBase.from_list(i64, [m if isinstance(m, int) else DYNAMIC_INDEX
                                                                        for m in mixed]),
                        "static_strides": DenseArrayBase.from_list(i64, [1] * rank)}))]

    @staticmethod
    def _clamped_starts(op, b, value, indices, sizes):
        """``dynamic_slice``'s start indices (0-d tensors) clamped to ``[0, dim - size]`` per dim."""
        if len(indices) != value.type.get_num_dims() or len(sizes) != len(indices):
            raise error_at_op(op, f"'{op.name}': {len(indices)} start indices and {len(sizes)} sizes for {value.type}")
        zero = index_constant(b, 0)
        return [_clamp(b, shape_elements(b, index, op)[0], zero, _sub(b, dim, size))
                for index, dim, size in zip(indices, _dims(b, value), sizes)]

    @handles(dyn.DynamicGatherOp)
    def _dynamic_gather(self, op, b):
        value, indices, slice_sizes = _operands(op, "operand", "start_indices", "slice_sizes")
        numbers = op.attributes.get("dimension_numbers")
        known = constant_ints(slice_sizes)
        if known is not None:
            attributes = dict(op.attributes)
            attributes["slice_sizes"] = DenseArrayBase.from_list(i64, known)
            return [b.add(hlo.GatherOp.create(operands=[value, indices], result_types=[op.outputs[0].type],
                                              attributes=attributes))]
        if not isinstance(numbers, hlo.GatherDimensionNumbersAttr):
            raise error_at_op(op, f"'{op.name}' needs dimension_numbers = #stablehlo.gather<...>")
        start_map = numbers.get("start_index_map")
        rank = value.type.get_num_dims()
        if (numbers.get("collapsed_slice_dims") or numbers.get("operand_batching_dims")
                or indices.type.get_num_dims() != 1 or numbers.get("index_vector_dim", 0) != 0):
            return [self._gather_whole_dims(op, b, numbers)]
        sizes = shape_elements(b, slice_sizes, op)
        positions = shape_elements(b, indices, op)
        dims = _dims(b, value)
        starts = [index_constant(b, 0)] * rank
        for k, d in enumerate(start_map):
            starts[d] = _clamp(b, positions[k], index_constant(b, 0), _sub(b, dims[d], sizes[d]))
        type_ = op.outputs[0].type
        mixed = [static if static != DYNAMIC_INDEX else size for static, size in zip(type_.get_shape(), sizes)]
        return [b.add(ExtractSliceOp(value, starts, mixed, [1] * rank, type_))]

    @staticmethod
    def _gather_whole_dims(op, b, numbers):
        """A ``dynamic_gather`` whose run-time slice sizes are whole dims that no index moves along
        (``x[:, ::2]`` on a symbolic dim ``b``: ``slice_sizes = [b, 1]``) -> ``stablehlo.gather``
        with those sizes marked dynamic (``windows.convert_gather`` takes the whole dim); a host
        ``cf.assert`` checks each equals its dim."""
        value, indices, slice_sizes = op.inputs
        sizes = shape_elements(b, slice_sizes, op)
        fixed = set(numbers.get("start_index_map")) | set(numbers.get("collapsed_slice_dims")) \
            | set(numbers.get("operand_batching_dims"))
        static = []
        for d, size in enumerate(sizes):
            if isinstance(size.owner, xarith.ConstantOp):
                static.append(size.owner.value.value.data)
                continue
            if d in fixed:
                raise error_at_op(op, f"'{op.name}': slice size {d} is known only at run time but dim {d} is indexed, "
                                      "collapsed or batched; rt takes run-time slice sizes only for whole dims")
            whole = b.add(tensor.DimOp(value, index_constant(b, d)))
            _require(b, _compare(b, size, whole, "eq"), f"{op.name}: slice size {d} must be the whole dim (rt takes "
                                                        "run-time slice sizes only for whole dims)")
            static.append(DYNAMIC_INDEX)
        attributes = dict(op.attributes)
        attributes["slice_sizes"] = DenseArrayBase.from_list(i64, static)
        return b.add(hlo.GatherOp.create(operands=[value, indices], result_types=[op.outputs[0].type],
                                         attributes=attributes))

    @handles(hlo.CustomCallOp)
    def _custom_call(self, op, b):
        target = op.attributes.get("call_target_name")
        if target is not None and target.data == "stablehlo.dynamic_reduce_window":
            return convert_dynamic_reduce_window(op, b)
        if target is None or target.data != "shape_assertion" or op.outputs or not op.inputs:
            return None  # iree-stablehlo-to-iree-input reports the others (and drops other assertions)
        if op.inputs[0].type.get_num_dims() != 0:
            return None  # not JAX's scalar form: dropped, as IREE drops every shape assertion
        message = op.attributes.get("error_message")
        text = message.data if isinstance(message, StringAttr) else "shape assertion failed"
        ok = b.add(tensor.ExtractOp(op.inputs[0], [], element_type(op.inputs[0].type)))
        _require(b, ok, "jax.export shape assertion: " + re.sub(r"\{\d+\}", "?", text))
        return []

