"""``iree_linalg_ext.quantize_affine`` / ``dequantize_affine`` as one ``linalg.generic`` (helper of
``rt-decompose-linalg-ext``).

The generic iterates over the output with the op's own indexing maps (a scalar scale or zero
point is a scalar ``ins`` operand with the map ``(d...) -> ()``) and computes, per element:

* quantize: ``v = roundeven(x / scale) + float(zp)`` in the input's float type, clamped to
  ``[quant_min, quant_max]`` (``maxnumf``/``minnumf``), then ``fptoui`` when the storage is
  unsigned, else ``fptosi``;
* dequantize: ``x`` and ``zp`` in integers twice the input's width (``x`` extended unsigned when
  ``input_unsigned``, a zero-point tensor unsigned when ``zp_unsigned``), ``float(x - zp) *
  scale``.

Source followed: the ``linalg.generic`` IREE 3.13 makes of these ops (``iree-compile
--compile-to=flow`` on ONNX QuantizeLinear/DequantizeLinear).
"""
from xdsl.dialects import arith as xarith
from xdsl.dialects import math as xmath
from xdsl.dialects.builtin import IntegerType

from rt.compiler.dialects import arith
from rt.compiler.helpers.stablehlo.builders import generic
from rt.compiler.helpers.stablehlo.elementwise import constant, element_type


def _cast(b, cls, value, type_):
    return b.add(cls.build(operands=[value], result_types=[type_]))


def _float(b, value, type_):
    """Float ``value`` as float ``type_`` (``extf``/``truncf`` by width)."""
    if value.type == type_:
        return value
    cls = arith.ExtFOp if value.type.bitwidth < type_.bitwidth else arith.TruncFOp
    return _cast(b, cls, value, type_)


def _integer(b, value, type_, unsigned):
    """Integer ``value`` as integer ``type_`` (``extui``/``extsi``/``trunci`` by width)."""
    if value.type == type_:
        return value
    if value.type.width.data > type_.width.data:
        return _cast(b, arith.TruncIOp, value, type_)
    return _cast(b, arith.ExtUIOp if unsigned else arith.ExtSIOp, value, type_)


def _zp_unsigned(op):
    """A zero-point tensor is read unsigned under ``zp_unsigned``; a scalar one is already i64."""
    return "zp_unsigned" in op.attributes


def quantize(b, op):
    """``quantize_affine`` -> the generic's result (see the module docstring)."""
    ftype = element_type(op.inputs[0].type)
    storage = element_type(op.outputs[0].type)
    low, high = op.quant_min.value.data, op.quant_max.value.data

    def body(s, args):
        x, scale, zp = args[0], _float(s, args[1], ftype), args[2] if len(op.inputs) == 3 else None
        v = s.add(xmath.RoundEvenOp(s.add(xarith.DivfOp(x, scale))))
        if zp is not None:
            zp = _integer(s, zp, IntegerType(64), _zp_unsigned(op))
            v = s.add(xarith.AddfOp(v, _cast(s, arith.SIToFPOp, zp, ftype)))
        v = s.add(xarith.MaxnumfOp(v, constant(s, low, ftype)))
        v = s.add(xarith.MinnumfOp(v, constant(s, high, ftype)))
        return [_cast(s, arith.FPToUIOp if op.unsigned() else arith.FPToSIOp, v, storage)]
    return generic(b, list(op.inputs), list(op.outputs), list(op.indexing_maps.data), ["parallel"] * _rank(op),
                   [op.outputs[0].type], body)


def dequantize(b, op):
    """``dequantize_affine`` -> the generic's result (see the module docstring)."""
    ftype = element_type(op.outputs[0].type)
    wide = IntegerType(2 * element_type(op.inputs[0].type).width.data)

    def body(s, args):
        x = _integer(s, args[0], wide, op.unsigned())
        if len(op.inputs) == 3:
            x = s.add(xarith.SubiOp(x, _integer(s, args[2], wide, _zp_unsigned(op))))
        v = _cast(s, arith.SIToFPOp, x, ftype)
        return [s.add(xarith.MulfOp(v, _float(s, args[1], ftype)))]
    return generic(b, list(op.inputs), list(op.outputs), list(op.indexing_maps.data), ["parallel"] * _rank(op),
                   [op.outputs[0].type], body)


def _rank(op):
    return op.outputs[0].type.get_num_dims()
