"""``iree-stablehlo-to-iree-input``: StableHLO ops -> linalg / tensor / arith / math on tensors.

Input: functions whose bodies hold ``stablehlo.*`` and ``chlo.*`` ops (JAX's export, IREE's e2e
tests). Elementwise ops, ``dot``/``dot_general``, ``reduce``, ``transpose`` and
``torch_index_select`` also take dynamic dims (result sizes from ``tensor.dim`` of the
operands); the other ops take static shapes. Output: no stablehlo op; each became:

* elementwise ops (``add``, ``compare``, ``select``, ``convert``, ``exponential``, ...) -> arith/math
  ops on the tensors (``stablehlo_elementwise.py``; ``convert-elementwise-to-linalg`` then makes
  them ``linalg.generic``s); ``clamp`` -> max/min after broadcasting scalar bounds;
* ``constant`` -> ``arith.constant``; ``iota`` -> a ``linalg.generic`` of ``linalg.index``;
* ``broadcast_in_dim``/``broadcast``/``transpose``/``reverse`` -> a ``linalg.generic`` whose input
  map places (or mirrors) the operand's dims; ``reshape`` -> ``flow.tensor.reshape``;
* ``dot``/``dot_general`` -> ``linalg.matmul`` / ``linalg.batch_matmul`` for the canonical layouts
  (``[M,K]x[K,N]``, ``[B,M,K]x[B,K,N]``), otherwise a contraction ``linalg.generic`` over
  (batch, lhs free, rhs free, contracting) dims, accumulating in the result element type
  (``helpers/stablehlo/contraction.py``);
* ``dynamic_slice``/``dynamic_update_slice`` -> ``tensor.extract_slice``/``insert_slice`` at start
  indices clamped into the operand; ``torch_index_select`` -> a gathering ``linalg.generic``
  (``tensor.extract`` at the index); ``batch_norm_inference`` -> its elementwise formula;
* ``while``/``if``/``case`` -> ``scf.while``/``scf.if`` (``case``: nested ``scf.if``s, the last
  branch for an out-of-range index), their regions moved over and converted in place
  (``helpers/stablehlo/control_flow.py``);
* ``sort`` -> ``iree_linalg_ext.sort``; ``chlo.top_k`` -> ``iree_linalg_ext.topk``; ``scatter`` -> ``iree_linalg_ext.scatter`` in the
  canonical form that op takes (``helpers/stablehlo/linalg_ext.py``), lowered with the other
  linalg_ext ops by ``rt-decompose-linalg-ext``; other scatters, ``gather``, ``reduce_window``
  and ``convolution`` -> ``linalg.generic``s (``helpers/stablehlo/windows.py``);
* ``rng_bit_generator`` -> ``linalg.generic``s computing XLA:CPU's Philox / ThreeFry bits and
  the new state (``helpers/stablehlo/bit_generator.py``);
* ``bitcast_convert`` -> ``flow.tensor.bitcast`` (same shape, or the narrower side with a last
  dim of the width ratio, as the spec allows);
* ``reduce`` -> a ``linalg.generic`` with reduction iterators whose body is the reduction region
  with its 0-d tensor ops made scalar; ``concatenate`` -> ``tensor.concat``; ``slice`` ->
  ``tensor.extract_slice``; ``pad`` (no interior padding) -> ``tensor.pad`` and slices for
  negative edges.

An op this pass does not convert (``stablehlo.custom_call`` included) is a located CompileError
naming it and listing the ops it does convert; so is a dynamic shape where static ones are needed.

Source followed: IREE ``compiler/plugins/input/StableHLO/Conversion/StableHLOToIREEInputDialects.cpp``
and ``StableHLOToLinalg*.cpp`` (same mapping of each op), the StableHLO spec for semantics.
"""
import dataclasses

from xdsl.dialects import arith as xarith
from xdsl.dialects import tensor
from xdsl.dialects.builtin import (DYNAMIC_INDEX, DenseArrayBase, DenseIntOrFPElementsAttr, IndexType, IntegerType,
                                   TensorType, i64)
from xdsl.dialects.linalg.ops import IndexOp
from xdsl.ir import Block, Region
from xdsl.ir.affine import AffineExpr
from xdsl.rewriter import Rewriter

from rt.compiler.dialects import arith, chlo, stablehlo as hlo
from rt.compiler.dialects.flow_tensor_shape import TensorBitCastOp, TensorReshapeOp
from rt.compiler.dialects.linalg import FillOp
from rt.compiler.dialects.tensor import ExtractSliceOp, InsertSliceOp
from rt.compiler.frontend.diagnostics import error_at_op
from rt.compiler.op_handlers import OpHandlers, handles
from rt.compiler.passes.base import Pass
from rt.compiler.passes.pipeline import INPUT_TYPES
from rt.runtime.errors import InvalidArgumentError
from rt.compiler.helpers.stablehlo.builders import (affine_maps, dim_exprs, empty, generic, int_list, iota, require_ranked,
                                                          require_static)
from rt.compiler.helpers.stablehlo.bit_generator import convert_rng_bit_generator
from rt.compiler.helpers.stablehlo.contraction import convert_dot, convert_dot_general
from rt.compiler.helpers.stablehlo.control_flow import convert_case, convert_if, convert_while
from rt.compiler.helpers.stablehlo.random import box_muller_constants
from rt.compiler.helpers.stablehlo.windows import (convert_convolution, convert_gather, convert_reduce_window,
                                                         convert_scatter)
from rt.compiler.helpers.stablehlo.linalg_ext import to_scatter, to_sort, to_topk
from rt.compiler.helpers.stablehlo.regions import region_function
from rt.compiler.helpers.stablehlo.elementwise import (OpSink, constant, element_type,
                                                            emit_elementwise, is_elementwise, is_float)


def _broadcast(b, op, value, result_type, dims):
    """``value`` broadcast to ``result_type``: operand dim i becomes result dim ``dims[i]``."""
    src = value.type
    require_static(op, src, result_type)
    rank = result_type.get_num_dims()
    if len(dims) != src.get_num_dims() or any(not 0 <= d < rank for d in dims):
        raise error_at_op(op, f"'{op.name}': broadcast dimensions {dims} do not fit {src} -> {result_type}")
    exprs = []
    for i, d in enumerate(dims):
        size, target = src.get_shape()[i], result_type.get_shape()[d]
        if size == target:
            exprs.append(AffineExpr.dimension(d))
        elif size == 1:
            exprs.append(AffineExpr.constant(0))
        else:
            raise error_at_op(op, f"'{op.name}': operand dim {i} of size {size} cannot broadcast to "
                                  f"result dim {d} of size {target}")
    if src == result_type and dims == list(range(rank)):
        return value
    return generic(b, [value], [empty(b, result_type)], affine_maps(rank, exprs, dim_exprs(rank)), ["parallel"] * rank,
                    [result_type], lambda s, args: [args[0]])[0]


@dataclasses.dataclass(frozen=True)
class StableHLOToIREEInputPass(Pass):
    """Convert every stablehlo op (see the module docstring); a no-op for programs without them."""

    name = "iree-stablehlo-to-iree-input"
    #: IREE's --iree-input-type: auto / stablehlo / stablehlo_xla convert, none rejects stablehlo ops
    input_type: str = "auto"

    def run(self, module, ctx):
        if self.input_type not in INPUT_TYPES:
            raise InvalidArgumentError(f"input type '{self.input_type}' is not supported by rt; input types: "
                                       f"{', '.join(INPUT_TYPES)} (torch and onnx are not read yet)")
        ops = [op for op in module.walk() if op.dialect_name() in ("stablehlo", "chlo")]  # both dialects go
        if not ops:
            return
        if self.input_type == "none":
            raise error_at_op(ops[0], f"'{ops[0].name}' with --iree-input-type=none; StableHLO programs need "
                                      "--iree-input-type=auto (the default) or stablehlo")
        converter = _Converter()
        for op in ops:
            if op.parent is None or isinstance(op.parent_op(), hlo.ReduceOp):
                continue  # a reduction body: converted with its reduce
            converter.convert(op)


class _Converter:
    handler = OpHandlers()

    def convert(self, op):
        b = OpSink(op.location)
        if is_elementwise(op):
            result = emit_elementwise(b, op, list(op.operands), op.results[0].type)
            results = [result]
        else:
            fn = self.handler(op)
            if fn is None:
                supported = sorted(c.name for c in hlo.STABLEHLO_OPS + chlo.BROADCASTING_OPS + chlo.UNARY_OPS
                                   + [chlo.TopKOp] if c is not hlo.ReturnOp)
                raise error_at_op(op, f"'{op.name}' is not supported by rt's StableHLO input conversion; "
                                      f"supported ops: {', '.join(supported)}")
            results = fn(op, b)
        Rewriter.replace_op(op, b.ops, list(results))

    @handles(*chlo.BROADCASTING_OPS)
    def _broadcasting(self, op, b):
        type_ = op.result.type
        require_static(op, op.lhs.type, op.rhs.type, type_)
        rank = type_.get_num_dims()
        given = int_list(op, "broadcast_dimensions", []) if "broadcast_dimensions" in op.attributes else None
        operands = []
        for value in (op.lhs, op.rhs):
            shape = value.type.get_shape()
            if list(shape) == list(type_.get_shape()):
                operands.append(value)
                continue
            own = value.type.get_num_dims()
            dims = given if given is not None and own < rank else list(range(rank - own, rank))
            operands.append(_broadcast(b, op, value, TensorType(element_type(value.type), type_.get_shape()), dims))
        return [emit_elementwise(b, op, operands, type_, kind=op.ELEMENTWISE)]

    @handles(hlo.CustomCallOp)
    def _custom_call(self, op, b):
        target = op.attributes.get("call_target_name")
        name = target.data if target is not None else "?"
        if name == "shape_assertion" and not op.outputs:
            return []  # JAX's shape assertions: IREE drops them (shapes are static here)
        raise error_at_op(op, f"'stablehlo.custom_call' @{name} is not supported by rt: a custom call names "
                              "code outside the program; rt converts only @shape_assertion")

    @handles(hlo.ConstantOp)
    def _constant(self, op, b):
        value = op.attributes.get("value")
        if value is None:
            raise error_at_op(op, "'stablehlo.constant' needs a 'value' attribute (dense<...> : tensor<...>)")
        return [b.add(arith.ConstantOp.create(result_types=[op.outputs[0].type], properties={"value": value}))]

    @handles(hlo.ClampOp)
    def _clamp(self, op, b):
        low, x, high = op.inputs
        type_ = op.outputs[0].type
        low = _broadcast(b, op, low, type_, []) if low.type.get_num_dims() == 0 and type_.get_num_dims() else low
        high = _broadcast(b, op, high, type_, []) if high.type.get_num_dims() == 0 and type_.get_num_dims() else high
        raised = emit_elementwise(b, op, [x, low], type_, kind=hlo.MaxOp)
        return [emit_elementwise(b, op, [raised, high], type_, kind=hlo.MinOp)]

    @handles(hlo.IotaOp)
    def _iota(self, op, b):
        type_ = op.outputs[0].type
        require_static(op, type_)
        return iota(b, op, type_, empty(b, type_))

    @handles(hlo.BroadcastInDimOp)
    def _broadcast_in_dim(self, op, b):
        return [_broadcast(b, op, op.inputs[0], op.outputs[0].type, int_list(op, "broadcast_dimensions"))]

    @handles(hlo.BroadcastOp)
    def _broadcast_op(self, op, b):
        src, type_ = op.inputs[0].type, op.outputs[0].type
        lead = type_.get_num_dims() - src.get_num_dims()
        return [_broadcast(b, op, op.inputs[0], type_, list(range(lead, type_.get_num_dims())))]

    @handles(hlo.TransposeOp)
    def _transpose(self, op, b):
        value, type_ = op.inputs[0], op.outputs[0].type
        require_ranked(op, value.type, type_)
        perm = int_list(op, "permutation")
        rank = type_.get_num_dims()
        if sorted(perm) != list(range(rank)):
            raise error_at_op(op, f"'stablehlo.transpose': permutation {perm} is not a permutation of 0..{rank - 1}")
        exprs = [None] * rank
        for i, p in enumerate(perm):
            exprs[p] = AffineExpr.dimension(i)
        return generic(b, [value], [empty(b, type_, [(value, p) for p in perm])],
                       affine_maps(rank, exprs, dim_exprs(rank)), ["parallel"] * rank, [type_], lambda s, args: [args[0]])

    @handles(hlo.ReverseOp)
    def _reverse(self, op, b):
        value, type_ = op.inputs[0], op.outputs[0].type
        require_static(op, type_)
        dims = set(int_list(op, "dimensions"))
        rank, shape = type_.get_num_dims(), type_.get_shape()
        exprs = [AffineExpr.constant(shape[i] - 1) - AffineExpr.dimension(i) if i in dims else AffineExpr.dimension(i)
                 for i in range(rank)]
        return generic(b, [value], [empty(b, type_)], affine_maps(rank, exprs, dim_exprs(rank)), ["parallel"] * rank,
                        [type_], lambda s, args: [args[0]])

    @handles(hlo.ReshapeOp)
    def _reshape(self, op, b):
        require_static(op, op.operand.type, op.result.type)
        return [b.add(TensorReshapeOp.build(operands=[op.operand, [], []], result_types=[op.result.type]))]

    @handles(hlo.BitcastConvertOp)
    def _bitcast_convert(self, op, b):
        src, dst = op.operand.type, op.result.type
        require_static(op, src, dst)
        narrow, wide = (src, dst) if src.get_num_dims() > dst.get_num_dims() else (dst, src)
        ratio = element_type(wide).bitwidth // max(element_type(narrow).bitwidth, 1)
        if src.get_shape() != dst.get_shape() and (narrow.get_shape() != wide.get_shape() + (ratio,)
                                                   or element_type(wide).bitwidth != ratio * element_type(
                                                       narrow).bitwidth):
            raise error_at_op(op, f"'stablehlo.bitcast_convert' {src} -> {dst}: shapes must match, or the "
                                  "narrower side must add a last dim of the width ratio")
        return [b.add(TensorBitCastOp.build(operands=[op.operand, [], []], result_types=[dst]))]

    @handles(hlo.ConcatenateOp)
    def _concatenate(self, op, b):
        dim = int_list(op, "dimension")[0]
        return [b.add(tensor.ConcatOp(list(op.inputs), dim, op.outputs[0].type))]

    @handles(hlo.SliceOp)
    def _slice(self, op, b):
        value, type_ = op.inputs[0], op.outputs[0].type
        require_static(op, value.type, type_)
        starts = int_list(op, "start_indices")
        limits = int_list(op, "limit_indices")
        strides = int_list(op, "strides", [1] * len(starts))
        sizes = [max(0, -(-(limit - start) // stride)) for start, limit, stride in zip(starts, limits, strides)]
        if sizes != list(type_.get_shape()):
            raise error_at_op(op, f"'stablehlo.slice': start {starts}, limit {limits}, strides {strides} give "
                                  f"shape {sizes}, but the result is {type_}")
        return [b.add(ExtractSliceOp.from_static_parameters(value, starts, sizes, strides))]

    @handles(hlo.PadOp)
    def _pad(self, op, b):
        value, padding = op.inputs
        type_ = op.outputs[0].type
        require_static(op, value.type, type_)
        low, high = int_list(op, "edge_padding_low"), int_list(op, "edge_padding_high")
        interior = int_list(op, "interior_padding", [0] * len(low))
        if any(interior):
            raise error_at_op(op, f"'stablehlo.pad' with interior padding {interior} is not supported by rt")
        pad_value = b.add(tensor.ExtractOp(padding, [], element_type(type_)))
        grown = [s + max(lo, 0) + max(hi, 0) for s, lo, hi in zip(value.type.get_shape(), low, high)]
        grown_type = TensorType(element_type(type_), grown)
        block = Block(arg_types=[IndexType()] * len(low))
        block.add_op(tensor.YieldOp(pad_value))
        padded = b.add(tensor.PadOp(value, [], [], Region(block), [max(lo, 0) for lo in low],
                                    [max(hi, 0) for hi in high], grown_type))
        if all(lo >= 0 and hi >= 0 for lo, hi in zip(low, high)):
            return [padded]
        offsets = [max(-lo, 0) for lo in low]
        return [b.add(ExtractSliceOp.from_static_parameters(padded, offsets, list(type_.get_shape())))]

    def _start_indices(self, op, b, indices, operand_type, sizes):
        """The start indices (0-d tensors) as ``index`` values clamped to ``[0, dim - size]``."""
        starts = []
        for k, (index, dim, size) in enumerate(zip(indices, operand_type.get_shape(), sizes)):
            if index.type.get_num_dims() != 0:
                raise error_at_op(op, f"'{op.name}': start index {k} must be a 0-d tensor, got {index.type}")
            scalar = b.add(tensor.ExtractOp(index, [], element_type(index.type)))
            value = b.add(arith.IndexCastOp.build(operands=[scalar], result_types=[IndexType()]))
            low = b.add(xarith.MaxSIOp(value, constant(b, 0, IndexType())))
            starts.append(b.add(xarith.MinSIOp(low, constant(b, max(dim - size, 0), IndexType()))))
        return starts

    @handles(hlo.DynamicSliceOp)
    def _dynamic_slice(self, op, b):
        value, indices = op.inputs[0], list(op.inputs[1:])
        type_ = op.outputs[0].type
        require_static(op, value.type, type_)
        sizes = int_list(op, "slice_sizes")
        if len(indices) != value.type.get_num_dims() or sizes != list(type_.get_shape()):
            raise error_at_op(op, f"'stablehlo.dynamic_slice': {len(indices)} start indices and slice_sizes {sizes} "
                                  f"do not fit {value.type} -> {type_}")
        starts = self._start_indices(op, b, indices, value.type, sizes)
        rank = len(sizes)
        return [b.add(ExtractSliceOp.build(
            operands=[value, starts, [], []], result_types=[type_],
            properties={"static_offsets": DenseArrayBase.from_list(i64, [DYNAMIC_INDEX] * rank),
                        "static_sizes": DenseArrayBase.from_list(i64, sizes),
                        "static_strides": DenseArrayBase.from_list(i64, [1] * rank)}))]

    @handles(hlo.DynamicUpdateSliceOp)
    def _dynamic_update_slice(self, op, b):
        value, update, indices = op.inputs[0], op.inputs[1], list(op.inputs[2:])
        require_static(op, value.type, update.type)
        sizes = list(update.type.get_shape())
        if len(indices) != value.type.get_num_dims():
            raise error_at_op(op, f"'stablehlo.dynamic_update_slice': {len(indices)} start indices for {value.type}")
        starts = self._start_indices(op, b, indices, value.type, sizes)
        rank = len(sizes)
        return [b.add(InsertSliceOp.build(
            operands=[update, value, starts, [], []], result_types=[value.type],
            properties={"static_offsets": DenseArrayBase.from_list(i64, [DYNAMIC_INDEX] * rank),
                        "static_sizes": DenseArrayBase.from_list(i64, sizes),
                        "static_strides": DenseArrayBase.from_list(i64, [1] * rank)}))]

    @handles(hlo.TorchIndexSelectOp)
    def _torch_index_select(self, op, b):
        value, index = op.inputs
        type_ = op.outputs[0].type
        require_ranked(op, value.type, index.type, type_)
        dim, batch = int_list(op, "dim")[0], int_list(op, "batch_dims", [0])[0]
        rank, index_rank = type_.get_num_dims(), index.type.get_num_dims()
        dim += value.type.get_num_dims() if dim < 0 else 0  # negative: counted from the end, as in torch
        batch += index_rank if batch < 0 else 0
        if not (0 <= batch <= dim < value.type.get_num_dims() and batch <= index_rank):
            raise error_at_op(op, f"'stablehlo.torch_index_select': dim {dim} and batch_dims {batch} do not fit "
                                  f"{value.type} indexed by {index.type}")
        # result dims: operand[:dim] (the first `batch` shared with index) + index[batch:] + operand[dim+1:]
        d = AffineExpr.dimension
        index_exprs = [d(i) for i in range(batch)] + [d(dim + i - batch) for i in range(batch, index_rank)]

        def body(s, args):
            position = s.add(arith.IndexCastOp.build(operands=[args[0]], result_types=[IndexType()]))
            coords = []
            for k in range(value.type.get_num_dims()):
                if k < dim:
                    coords.append(s.add(IndexOp(k)))
                elif k == dim:
                    coords.append(position)
                else:
                    coords.append(s.add(IndexOp(k + index_rank - batch - 1)))
            return [s.add(tensor.ExtractOp(value, coords, element_type(type_)))]
        sources = ([(value, k) for k in range(dim)] + [(index, i) for i in range(batch, index_rank)]
                   + [(value, k) for k in range(dim + 1, value.type.get_num_dims())])
        return generic(b, [index], [empty(b, type_, sources)], affine_maps(rank, index_exprs, dim_exprs(rank)),
                       ["parallel"] * rank, [type_], body)

    @handles(hlo.BatchNormInferenceOp)
    def _batch_norm_inference(self, op, b):
        x, scale, offset, mean, variance = op.inputs
        type_ = op.outputs[0].type
        require_static(op, type_)
        feature = int_list(op, "feature_index")[0]
        epsilon = op.attributes.get("epsilon")
        if epsilon is None:
            raise error_at_op(op, "'stablehlo.batch_norm_inference' needs an 'epsilon' attribute")
        spread = [_broadcast(b, op, v, type_, [feature]) for v in (scale, offset, mean, variance)]
        scale, offset, mean, variance = spread
        eps = constant(b, epsilon.value.data, type_)
        centered = emit_elementwise(b, op, [x, mean], type_, kind=hlo.SubtractOp)
        stddev = emit_elementwise(b, op, [emit_elementwise(b, op, [variance, eps], type_, kind=hlo.AddOp)], type_,
                                  kind=hlo.SqrtOp)
        normed = emit_elementwise(b, op, [centered, stddev], type_, kind=hlo.DivOp)
        scaled = emit_elementwise(b, op, [normed, scale], type_, kind=hlo.MulOp)
        return [emit_elementwise(b, op, [scaled, offset], type_, kind=hlo.AddOp)]

    @handles(hlo.WhileOp)
    def _while(self, op, b):
        return convert_while(op, b)

    @handles(hlo.IfOp)
    def _if(self, op, b):
        return convert_if(op, b)

    @handles(hlo.CaseOp)
    def _case(self, op, b):
        return convert_case(op, b)

    @handles(hlo.GatherOp)
    def _gather(self, op, b):
        return convert_gather(op, b)

    @handles(hlo.RngOp)
    def _rng(self, op, b):
        """UNIFORM: per element, ``t = (i32(index_k) + t) * 1103515245 + 12345`` over the dims from a
        seed of 0, then ``min + uitofp(t) * (max - min) * 2^-32`` (the stateless LCG of StableHLO's
        linalg conversion, which IREE uses, so results match IREE's)."""
        low, high = op.inputs[0], op.inputs[1]
        type_ = op.outputs[0].type
        require_static(op, type_)
        distribution = op.attributes.get("rng_distribution")
        if distribution is None or not is_float(type_):
            raise error_at_op(op, "'stablehlo.rng' needs rng_distribution (UNIFORM or NORMAL) and a float result")
        if distribution.value.data == "NORMAL":
            return [self._rng_normal(op, b, low, high, type_)]
        rank = type_.get_num_dims()
        element = element_type(type_)
        i32 = IntegerType(32)

        def body(s, args):
            state = constant(s, 0, i32)
            for k in range(rank):
                position = s.add(arith.IndexCastOp.build(operands=[s.add(IndexOp(k))], result_types=[i32]))
                mixed = s.add(xarith.MuliOp(s.add(xarith.AddiOp(position, state)), constant(s, 1103515245, i32)))
                state = s.add(xarith.AddiOp(mixed, constant(s, 12345, i32)))
            lo, hi = args[0], args[1]
            scale = s.add(xarith.MulfOp(s.add(xarith.SubfOp(hi, lo)), constant(s, 2.3283064e-10, element)))
            as_float = s.add(arith.UIToFPOp.build(operands=[state], result_types=[element]))
            return [s.add(xarith.AddfOp(s.add(xarith.MulfOp(as_float, scale)), lo))]
        return generic(b, [low, high], [empty(b, type_)], affine_maps(rank, [], [], dim_exprs(rank)),
                       ["parallel"] * rank, [type_], body)

    def _rng_normal(self, op, b, mu, sigma, type_):
        """``mu + sigma * sqrt(-2 log u1) * (cos | sin)(2 pi u2)`` with IREE's compile-time draws
        (``helpers/stablehlo/random.py``): the cos half, then the sin half, cut to the element count."""
        count = 1
        for size in type_.get_shape():
            count *= size
        logs, cosines, sines = box_muller_constants(count)
        element = element_type(type_)
        half_type = TensorType(element, [len(logs)])

        def table(values):
            return b.add(arith.ConstantOp.create(result_types=[half_type], properties={
                "value": DenseIntOrFPElementsAttr.from_list(half_type, values)}))
        spread = [_broadcast(b, op, v, half_type, []) for v in (mu, sigma)]
        magnitude = emit_elementwise(b, op, [spread[1], emit_elementwise(b, op, [table(logs)], half_type,
                                                                          kind=hlo.SqrtOp)], half_type, kind=hlo.MulOp)
        halves = [emit_elementwise(b, op, [emit_elementwise(b, op, [magnitude, table(t)], half_type, kind=hlo.MulOp),
                                           spread[0]], half_type, kind=hlo.AddOp) for t in (cosines, sines)]
        flat_type = TensorType(element, [2 * len(logs)])
        flat = b.add(tensor.ConcatOp(halves, 0, flat_type))
        if 2 * len(logs) != count:
            flat = b.add(ExtractSliceOp.from_static_parameters(flat, [0], [count]))
        return b.add(TensorReshapeOp.build(operands=[flat, [], []], result_types=[type_]))

    @handles(hlo.RngBitGeneratorOp)
    def _rng_bit_generator(self, op, b):
        return convert_rng_bit_generator(op, b)

    @handles(hlo.SortOp)
    def _sort(self, op, b):
        return to_sort(op, b, region_function(op))

    @handles(chlo.TopKOp)
    def _top_k(self, op, b):
        return to_topk(op, b)

    @handles(hlo.ScatterOp)
    def _scatter(self, op, b):
        combine = _reduction_body(op, 1)
        return to_scatter(op, b, combine) or convert_scatter(op, b, combine)

    @handles(hlo.ReduceWindowOp)
    def _reduce_window(self, op, b):
        return convert_reduce_window(op, b, _reduction_body(op, 1))

    @handles(hlo.ConvolutionOp)
    def _convolution(self, op, b):
        return convert_convolution(op, b)

    @handles(hlo.DotOp)
    def _dot(self, op, b):
        return convert_dot(op, b)

    @handles(hlo.DotGeneralOp)
    def _dot_general(self, op, b):
        return convert_dot_general(op, b)

    @handles(hlo.ReduceOp)
    def _reduce(self, op, b):
        n = len(op.inputs) // 2
        inputs, inits = list(op.inputs[:n]), list(op.inputs[n:])
        dims = sorted(int_list(op, "dimensions"))
        rank = inputs[0].type.get_num_dims()
        require_ranked(op, *(v.type for v in inputs), *(r.type for r in op.results))
        kept = [i for i in range(rank) if i not in dims]
        outs = []
        for init, result in zip(inits, op.results):
            scalar = b.add(tensor.ExtractOp(init, [], element_type(init.type)))
            init_tensor = empty(b, result.type, [(inputs[0], k) for k in kept])
            outs.append(b.add(FillOp([scalar], [init_tensor], [result.type])))
        body = _reduction_body(op, n)
        d = AffineExpr.dimension
        maps = affine_maps(rank, *([dim_exprs(rank)] * n), *([[d(i) for i in kept]] * n))
        iterators = ["reduction" if i in dims else "parallel" for i in range(rank)]
        return generic(b, inputs, outs, maps, iterators, [r.type for r in op.results], body)


def _reduction_body(op, n):
    """A ``generic`` body function computing ``op``'s reduction region (``stablehlo.reduce``,
    ``reduce_window``, ``scatter``) on scalars; StableHLO's region takes (accumulators...,
    elements...), the body function gets (elements..., accumulators...)."""
    region = region_function(op)
    return lambda s, args: region(s, args[n:] + args[:n])
