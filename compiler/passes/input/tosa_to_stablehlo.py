"""``rt-tosa-to-stablehlo``: TOSA ops -> StableHLO ops, which ``iree-stablehlo-to-iree-input`` then
lowers to linalg/tensor/arith/math (TOSA input takes the StableHLO path's conversions).

Input: ``tosa.*`` ops (``dialects/tosa.py``), static shapes. Output: no tosa op; each became:

* elementwise ops -> the StableHLO op of the same meaning, operands first broadcast to the
  result shape (TOSA broadcasts size-1 dims of equal-rank operands); ``mul`` of integers with a
  non-zero ``shift`` computes ``(a * b + 2^(shift-1)) >> shift`` in i64; ``arithmetic_right_shift``
  with ``round = true`` adds the last bit shifted out; ``reciprocal`` is ``1 / x``;
  ``sigmoid`` is ``stablehlo.logistic``; ``clamp`` takes its ``min_val``/``max_val``;
* ``const`` -> ``stablehlo.constant``; ``const_shape`` values are read by the ops using them
  (``reshape``, ``pad``, ``slice``);
* ``matmul`` -> ``dot_general`` (batch 0, contracting 2 x 1); ``gather`` ->
  ``torch_index_select`` (dim 1, batch dims 1); ``reduce_*`` -> ``reduce`` then a reshape keeping
  the axis as size 1; ``max_pool2d`` -> ``reduce_window`` (NHWC); ``transpose``/``reshape``/
  ``pad``/``concat``/``reverse``/``slice``/``cast`` -> their StableHLO counterparts;
* ``cond_if``/``while_loop`` -> ``stablehlo.if``/``while`` with the regions moved over, each
  ``tosa.yield`` a ``stablehlo.return``.

``table`` gathers from its table (i16: with the spec's interpolation). Non-zero zero points,
``avg_pool2d``, ``tile`` and ``rescale`` are a located CompileError naming the op.

Source followed: MLIR ``TosaToLinalg.cpp`` / ``TosaToLinalgNamed.cpp`` (the semantics of each op
as IREE's TOSA path lowers them) and the TOSA 1.0 specification.
"""
import dataclasses

from xdsl.dialects.builtin import (ArrayAttr, DenseArrayBase, DenseIntOrFPElementsAttr, FloatAttr, IntegerAttr,
                                   IntegerType, StringAttr, TensorType, i1, i64)
from xdsl.ir import Block, Region
from xdsl.rewriter import Rewriter

from rt.compiler.dialects import chlo, stablehlo as hlo, tosa
from rt.compiler.dialects._stablehlo_attrs import ComparisonDirectionAttr, DotDimensionNumbersAttr
from rt.compiler.frontend.diagnostics import error_at_op
from rt.compiler.op_handlers import OpHandlers, OpTable, handles
from rt.compiler.passes.base import Pass
from rt.compiler.helpers.stablehlo.elementwise import OpSink, element_type, is_float

T = tosa.TOSA_OPS

#: TOSA elementwise op -> the StableHLO op with the same meaning (after broadcasting)
_ELEMENTWISE = OpTable({
    T["add"]: hlo.AddOp, T["sub"]: hlo.SubtractOp, T["maximum"]: hlo.MaxOp, T["minimum"]: hlo.MinOp,
    T["pow"]: hlo.PowOp, T["intdiv"]: hlo.DivOp, T["bitwise_and"]: hlo.AndOp, T["bitwise_or"]: hlo.OrOp,
    T["bitwise_xor"]: hlo.XorOp, T["logical_and"]: hlo.AndOp, T["logical_or"]: hlo.OrOp,
    T["logical_xor"]: hlo.XorOp, T["logical_left_shift"]: hlo.ShiftLeftOp,
    T["logical_right_shift"]: hlo.ShiftRightLogicalOp, T["select"]: hlo.SelectOp, T["abs"]: hlo.AbsOp,
    T["ceil"]: hlo.CeilOp, T["floor"]: hlo.FloorOp, T["clz"]: hlo.CountLeadingZerosOp, T["exp"]: hlo.ExpOp,
    T["log"]: hlo.LogOp, T["rsqrt"]: hlo.RsqrtOp, T["sigmoid"]: hlo.LogisticOp, T["tanh"]: hlo.TanhOp,
    T["sin"]: hlo.SineOp, T["cos"]: hlo.CosineOp, T["erf"]: chlo.ErfOp, T["bitwise_not"]: hlo.NotOp,
    T["logical_not"]: hlo.NotOp,
})
_COMPARE = OpTable({T["equal"]: "EQ", T["greater"]: "GT", T["greater_equal"]: "GE"})
#: reduce op -> (StableHLO combiner, init for floats, init for integers (None: by width), init for i1)
_REDUCE = OpTable({T["reduce_sum"]: (hlo.AddOp, 0.0, 0, False), T["reduce_product"]: (hlo.MulOp, 1.0, 1, True),
           T["reduce_max"]: (hlo.MaxOp, float("-inf"), "min", False),
           T["reduce_min"]: (hlo.MinOp, float("inf"), "max", True),
           T["reduce_all"]: (hlo.AndOp, None, None, True), T["reduce_any"]: (hlo.OrOp, None, None, False)})


def _attr(op, key, *alternatives):
    for name in (key, *alternatives):
        if name in op.attributes:
            return op.attributes[name]
    raise error_at_op(op, f"'{op.name}' needs the attribute '{key}'")


def _ints(attr):
    if isinstance(attr, DenseArrayBase):
        return [int(v) for v in attr.get_values()]
    if isinstance(attr, DenseIntOrFPElementsAttr):
        return [int(v) for v in attr.get_values()]
    if isinstance(attr, IntegerAttr):
        return [attr.value.data]
    raise ValueError(attr)


def _const_values(op, value, what):
    """The integers a ``tosa.const`` / ``tosa.const_shape`` operand holds."""
    owner = getattr(value, "op", None)
    if not isinstance(owner, (T["const"], T["const_shape"], hlo.ConstantOp)):
        raise error_at_op(op, f"'{op.name}': the {what} must be a tosa.const or tosa.const_shape")
    return _ints(owner.attributes.get("values") or owner.attributes.get("value"))


def _scalar_constant(b, value, element):
    type_ = TensorType(element, [])
    if isinstance(element, IntegerType) and element.width.data == 1:
        value = int(bool(value))
    return b.add(hlo.ConstantOp.create(result_types=[type_], attributes={
        "value": DenseIntOrFPElementsAttr.from_list(type_, [value])}))


def _hlo(b, cls, operands, result_type, **attributes):
    return b.add(cls.create(operands=list(operands), result_types=[result_type], attributes=attributes))


def _int_extreme(element, which):
    width = element.width.data
    return -(1 << (width - 1)) if which == "min" else (1 << (width - 1)) - 1


@dataclasses.dataclass(frozen=True)
class TosaToStableHLOPass(Pass):
    """Convert every tosa op to StableHLO (see the module docstring); a no-op without tosa ops."""

    name = "rt-tosa-to-stablehlo"

    #: IREE's --iree-input-type (``none`` rejects tosa ops; see CompileOptions.input_type)
    input_type: str = "auto"

    def run(self, module, ctx):
        ops = [op for op in module.walk() if op.dialect_name() == "tosa"]  # the whole dialect goes
        if ops and self.input_type == "none":
            raise error_at_op(ops[0], f"'{ops[0].name}' with --iree-input-type=none; TOSA programs need "
                                      "--iree-input-type=auto (the default) or tosa")
        converter = _Converter()
        shapes = []
        for op in ops:
            if op.parent is None:
                continue
            if isinstance(op, T["const_shape"]):
                shapes.append(op)  # read by its users; erased once they are converted
                continue
            converter.convert(op)
        for op in shapes:
            if op.parent is not None and not op.results[0].uses:
                op.parent.erase_op(op)


class _Converter:
    handler = OpHandlers()

    def convert(self, op):
        b = OpSink(op.location)
        fn = self.handler(op)
        if fn is None:
            raise error_at_op(op, f"'{op.name}' is not supported by rt's TOSA input yet; supported ops: "
                                  f"{', '.join(sorted(c.name for c in _Converter.handler.table))}")
        results = fn(op, b)
        Rewriter.replace_op(op, b.ops, list(results))

    @staticmethod
    def _broadcast(b, op, value, shape):
        if list(value.type.get_shape()) == list(shape):
            return value
        if len(value.type.get_shape()) != len(shape):
            raise error_at_op(op, f"'{op.name}': TOSA operands have the result's rank; got {value.type} for "
                                  f"a result of shape {list(shape)}")
        target = TensorType(element_type(value.type), shape)
        return _hlo(b, hlo.BroadcastInDimOp, [value], target,
                    broadcast_dimensions=DenseArrayBase.from_list(i64, list(range(len(shape)))))

    @handles(*_ELEMENTWISE)
    def _elementwise(self, op, b):
        type_ = op.outputs[0].type
        shape = type_.get_shape()
        operands = [self._broadcast(b, op, v, shape) for v in op.inputs]
        return [_hlo(b, _ELEMENTWISE[op], operands, type_)]

    @handles(*_COMPARE)
    def _compare(self, op, b):
        shape = op.outputs[0].type.get_shape()
        operands = [self._broadcast(b, op, v, shape) for v in op.inputs]
        direction = ComparisonDirectionAttr(StringAttr(_COMPARE[op]))
        return [_hlo(b, hlo.CompareOp, operands, op.outputs[0].type, comparison_direction=direction)]

    @handles(T["reciprocal"])
    def _reciprocal(self, op, b):
        type_ = op.outputs[0].type
        return [_hlo(b, hlo.DivOp, [self._splat(b, 1.0, type_), op.inputs[0]], type_)]

    @handles(T["negate"])
    def _negate(self, op, b):
        for zp in op.inputs[1:]:
            if not is_float(zp.type) and any(_const_values(op, zp, "zero point")):
                raise error_at_op(op, "'tosa.negate' with a non-zero zero point is not supported by rt")
        return [_hlo(b, hlo.NegOp, [op.inputs[0]], op.outputs[0].type)]

    @handles(T["mul"])
    def _mul(self, op, b):
        type_ = op.outputs[0].type
        shape = type_.get_shape()
        lhs, rhs = (self._broadcast(b, op, v, shape) for v in op.inputs[:2])
        shift = _const_values(op, op.inputs[2], "shift")[0] if len(op.inputs) > 2 else 0
        if is_float(type_) or shift == 0:
            return [_hlo(b, hlo.MulOp, [lhs, rhs], type_)]
        wide = TensorType(i64, shape)
        a, c = (_hlo(b, hlo.ConvertOp, [v], wide) for v in (lhs, rhs))
        product = _hlo(b, hlo.MulOp, [a, c], wide)
        bias = self._splat(b, 1 << (shift - 1), wide)
        rounded = _hlo(b, hlo.AddOp, [product, bias], wide)
        shifted = _hlo(b, hlo.ShiftRightArithmeticOp, [rounded, self._splat(b, shift, wide)], wide)
        return [_hlo(b, hlo.ConvertOp, [shifted], type_)]

    def _splat(self, b, value, type_):
        return _hlo(b, hlo.BroadcastInDimOp, [_scalar_constant(b, value, element_type(type_))], type_,
                    broadcast_dimensions=DenseArrayBase.from_list(i64, []))

    @handles(T["arithmetic_right_shift"])
    def _arithmetic_right_shift(self, op, b):
        type_ = op.outputs[0].type
        shape = type_.get_shape()
        value, amount = (self._broadcast(b, op, v, shape) for v in op.inputs)
        shifted = _hlo(b, hlo.ShiftRightArithmeticOp, [value, amount], type_)
        round_attr = op.attributes.get("round")
        if round_attr is None or not round_attr.value.data:
            return [shifted]
        one = self._splat(b, 1, type_)
        last_out = _hlo(b, hlo.AndOp, [_hlo(b, hlo.ShiftRightArithmeticOp,
                                             [value, _hlo(b, hlo.SubtractOp, [amount, one], type_)], type_), one],
                        type_)
        positive = _hlo(b, hlo.CompareOp, [amount, self._splat(b, 0, type_)], TensorType(i1, shape),
                        comparison_direction=ComparisonDirectionAttr(StringAttr("GT")))
        rounded = _hlo(b, hlo.AddOp, [shifted, last_out], type_)
        return [_hlo(b, hlo.SelectOp, [positive, rounded, shifted], type_)]

    @handles(T["clamp"])
    def _clamp(self, op, b):
        type_ = op.outputs[0].type
        element = element_type(type_)
        bounds = []
        for key in ("min_val", "max_val"):
            attr = _attr(op, key, key.replace("_val", "_fp"), key.replace("_val", "_int"))
            value = attr.value.data if isinstance(attr, (FloatAttr, IntegerAttr)) else None
            if value is None:
                raise error_at_op(op, f"'tosa.clamp' {key} must be a number, got {attr}")
            bounds.append(_scalar_constant(b, float(value) if is_float(type_) else int(value), element))
        return [_hlo(b, hlo.ClampOp, [bounds[0], op.inputs[0], bounds[1]], type_)]

    @handles(T["const"])
    def _const(self, op, b):
        value = _attr(op, "values", "value")
        return [b.add(hlo.ConstantOp.create(result_types=[op.outputs[0].type], attributes={"value": value}))]

    @handles(T["reshape"])
    def _reshape(self, op, b):
        return [_hlo(b, hlo.ReshapeOp, [op.inputs[0]], op.outputs[0].type)]

    @handles(T["transpose"])
    def _transpose(self, op, b):
        perms = _ints(_attr(op, "perms"))
        return [_hlo(b, hlo.TransposeOp, [op.inputs[0]], op.outputs[0].type,
                     permutation=DenseArrayBase.from_list(i64, perms))]

    @handles(T["reverse"])
    def _reverse(self, op, b):
        axis = _ints(_attr(op, "axis"))
        return [_hlo(b, hlo.ReverseOp, [op.inputs[0]], op.outputs[0].type,
                     dimensions=DenseArrayBase.from_list(i64, axis))]

    @handles(T["concat"])
    def _concat(self, op, b):
        return [_hlo(b, hlo.ConcatenateOp, list(op.inputs), op.outputs[0].type,
                     dimension=IntegerAttr(_ints(_attr(op, "axis"))[0], i64))]

    @handles(T["slice"])
    def _slice(self, op, b):
        start = _const_values(op, op.inputs[1], "start")
        size = _const_values(op, op.inputs[2], "size")
        return [_hlo(b, hlo.SliceOp, [op.inputs[0]], op.outputs[0].type,
                     start_indices=DenseArrayBase.from_list(i64, start),
                     limit_indices=DenseArrayBase.from_list(i64, [s + n for s, n in zip(start, size)]),
                     strides=DenseArrayBase.from_list(i64, [1] * len(start)))]

    @handles(T["pad"])
    def _pad(self, op, b):
        value = op.inputs[0]
        padding = _const_values(op, op.inputs[1], "padding")
        element = element_type(value.type)
        if len(op.inputs) > 2:
            pad_value = _hlo(b, hlo.ReshapeOp, [op.inputs[2]], TensorType(element, []))
        else:
            pad_value = _scalar_constant(b, 0.0 if is_float(value.type) else 0, element)
        rank = len(value.type.get_shape())
        return [_hlo(b, hlo.PadOp, [value, pad_value], op.outputs[0].type,
                     edge_padding_low=DenseArrayBase.from_list(i64, padding[0::2][:rank]),
                     edge_padding_high=DenseArrayBase.from_list(i64, padding[1::2][:rank]),
                     interior_padding=DenseArrayBase.from_list(i64, [0] * rank))]

    @handles(T["cast"])
    def _cast(self, op, b):
        value, type_ = op.inputs[0], op.outputs[0].type
        if is_float(value.type) and not is_float(type_) and element_type(type_) != i1:
            value = _hlo(b, hlo.RoundNearestEvenOp, [value], value.type)  # TOSA casts round to nearest
        return [_hlo(b, hlo.ConvertOp, [value], type_)]

    @handles(T["table"])
    def _table(self, op, b):
        """i8: ``table[x + 128]``; i16: the 513-entry table interpolated, ``(t[i] << 7) + (t[i+1] - t[i]) *
        frac`` in i32 with ``i = (x + 32768) >> 7`` and ``frac`` its low 7 bits (the TOSA spec's TABLE)."""
        value, table = op.inputs
        type_ = op.outputs[0].type
        shape, element = list(value.type.get_shape()), element_type(value.type)
        wide = TensorType(element_type(type_) if element.width.data == 16 else IntegerType(32), shape)
        index_type = TensorType(IntegerType(32), shape)
        index = _hlo(b, hlo.ConvertOp, [value], index_type)
        if element.width.data == 8:
            index = _hlo(b, hlo.AddOp, [index, self._splat(b, 128, index_type)], index_type)
            return [_hlo(b, hlo.TorchIndexSelectOp, [table, index], type_, dim=IntegerAttr(0, i64),
                         batch_dims=IntegerAttr(0, i64))]
        if element.width.data != 16 or table.type.get_shape() != (513,):
            raise error_at_op(op, f"'tosa.table' takes i8 with 256 entries or i16 with 513, got {value.type} and "
                                  f"{table.type}")
        biased = _hlo(b, hlo.AddOp, [index, self._splat(b, 32768, index_type)], index_type)
        low = _hlo(b, hlo.ShiftRightLogicalOp, [biased, self._splat(b, 7, index_type)], index_type)
        frac = _hlo(b, hlo.AndOp, [biased, self._splat(b, 127, index_type)], index_type)
        high = _hlo(b, hlo.AddOp, [low, self._splat(b, 1, index_type)], index_type)
        base, step = (_hlo(b, hlo.ConvertOp, [_hlo(b, hlo.TorchIndexSelectOp, [table, i],
                                                   TensorType(element_type(table.type), shape),
                                                   dim=IntegerAttr(0, i64), batch_dims=IntegerAttr(0, i64))], wide)
                      for i in (low, high))
        scaled = _hlo(b, hlo.ShiftLeftOp, [base, self._splat(b, 7, wide)], wide)
        delta = _hlo(b, hlo.MulOp, [_hlo(b, hlo.SubtractOp, [step, base], wide),
                                     _hlo(b, hlo.ConvertOp, [frac], wide)], wide)
        return [_hlo(b, hlo.AddOp, [scaled, delta], wide)]

    @handles(T["matmul"])
    def _matmul(self, op, b):
        lhs, rhs = op.inputs[:2]
        for zp in op.inputs[2:]:
            if not is_float(zp.type) and any(_const_values(op, zp, "zero point")):
                raise error_at_op(op, "'tosa.matmul' with non-zero zero points is not supported by rt")
        def dims(values):
            return ArrayAttr([IntegerAttr(v, i64) for v in values])
        numbers = DotDimensionNumbersAttr(dims([0]), dims([0]), dims([2]), dims([1]))
        return [_hlo(b, hlo.DotGeneralOp, [lhs, rhs], op.outputs[0].type, dot_dimension_numbers=numbers)]

    @handles(T["gather"])
    def _gather(self, op, b):
        return [_hlo(b, hlo.TorchIndexSelectOp, list(op.inputs[:2]), op.outputs[0].type,
                     dim=IntegerAttr(1, i64), batch_dims=IntegerAttr(1, i64))]

    @handles(*_REDUCE)
    def _reduce(self, op, b):
        combiner, float_init, int_init, bool_init = _REDUCE[op]
        value, type_ = op.inputs[0], op.outputs[0].type
        axis = _ints(_attr(op, "axis"))[0]
        element = element_type(type_)
        if element == i1:
            init = bool_init
        elif is_float(type_):
            init = float_init
        else:
            init = _int_extreme(element, int_init) if isinstance(int_init, str) else int_init
        if init is None:
            raise error_at_op(op, f"'{op.name}' takes i1 tensors, got {value.type}")
        shape = list(value.type.get_shape())
        reduced = TensorType(element, shape[:axis] + shape[axis + 1:])
        result = self._hlo_reduce(b, value, _scalar_constant(b, init, element), combiner, [axis], reduced)
        return [_hlo(b, hlo.ReshapeOp, [result], type_)]

    @staticmethod
    def _hlo_reduce(b, value, init, combiner, dims, result_type, window=None):
        scalar = init.type
        block = Block(arg_types=[scalar, scalar])
        combined = combiner.create(operands=[block.args[0], block.args[1]], result_types=[scalar])
        block.add_ops([combined, hlo.ReturnOp.create(operands=[combined.results[0]])])
        if window is None:
            op = hlo.ReduceOp.create(operands=[value, init], result_types=[result_type], regions=[Region(block)],
                                     attributes={"dimensions": DenseArrayBase.from_list(i64, dims)})
        else:
            op = hlo.ReduceWindowOp.create(operands=[value, init], result_types=[result_type],
                                           regions=[Region(block)], attributes=window)
        return b.add(op)

    @handles(T["max_pool2d"])
    def _max_pool2d(self, op, b):
        value, type_ = op.inputs[0], op.outputs[0].type
        kernel, stride = _ints(_attr(op, "kernel")), _ints(_attr(op, "stride"))
        top, bottom, left, right = _ints(_attr(op, "pad"))
        element = element_type(type_)
        init = float("-inf") if is_float(type_) else _int_extreme(element, "min")
        padding = DenseIntOrFPElementsAttr.from_list(TensorType(i64, [4, 2]), [0, 0, top, bottom, left, right, 0, 0])
        window = {"window_dimensions": DenseArrayBase.from_list(i64, [1, *kernel, 1]),
                  "window_strides": DenseArrayBase.from_list(i64, [1, *stride, 1]), "padding": padding}
        return [self._hlo_reduce(b, value, _scalar_constant(b, init, element), hlo.MaxOp, None, type_, window)]

    @handles(tosa.CondIfOp)
    def _cond_if(self, op, b):
        regions = [op.detach_region(r) for r in (op.then_branch, op.else_branch)]
        for region in regions:
            _yield_to_return(region)
        new = hlo.IfOp.create(operands=[op.condition], result_types=[r.type for r in op.outputs], regions=regions)
        b.add(new)
        return new.results

    @handles(tosa.WhileLoopOp)
    def _while_loop(self, op, b):
        regions = [op.detach_region(r) for r in (op.cond, op.body)]
        for region in regions:
            _yield_to_return(region)
        new = hlo.WhileOp.create(operands=list(op.inputs), result_types=[r.type for r in op.outputs],
                                 regions=regions)
        b.add(new)
        return new.results


def _yield_to_return(region):
    """Replace the ``tosa.yield`` ending each block of ``region`` by ``stablehlo.return``."""
    for block in region.blocks:
        term = block.last_op
        if isinstance(term, tosa.YieldOp):
            ret = hlo.ReturnOp.create(operands=list(term.values))
            ret.location = term.location
            block.insert_op_before(ret, term)
            block.erase_op(term)
