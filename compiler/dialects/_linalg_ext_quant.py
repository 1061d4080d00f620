"""``iree_linalg_ext.quantize_affine`` and ``dequantize_affine``: affine (scale, zero point) casts.

Printed as IREE 3.13 prints them (what its ONNX importer writes for QuantizeLinear and
DequantizeLinear)::

    %q = iree_linalg_ext.quantize_affine <indexing_maps = [#x, #scale, #zp, #out], quant_min = 0,
           quant_max = 255, storage_unsigned, zp_unsigned>
           ins(%x, %scale, %zp : tensor<6xf32>, f32, i64) outs(%e : tensor<6xi8>) -> tensor<6xi8>
    %d = iree_linalg_ext.dequantize_affine <indexing_maps = [...], quant_min = 0, quant_max = 255,
           input_unsigned> ins(%q, %scale, %zp : tensor<4xi8>, f32, i64) outs(%e : tensor<4xf32>) -> tensor<4xf32>

Operands: the input (a tensor), the scale (a float scalar or tensor) and optionally the zero point
(an integer scalar or tensor), each read through its indexing map over the output's dims (a
per-tensor scale has the map ``(d0, ...) -> ()``, a per-axis one ``(d0, d1, ...) -> (d1)``).
Semantics (IREE 3.13's decomposition of these ops into ``linalg.generic``):

* quantize: ``clamp(roundeven(x / scale) + zp, quant_min, quant_max)`` in the input's float type,
  then ``fptoui`` (``storage_unsigned``) or ``fptosi`` to the output's integer type;
* dequantize: ``(x - zp) * scale``, the subtraction in integers twice the input's width (the
  input extended unsigned under ``input_unsigned``), converted with ``sitofp``.

``zp_unsigned`` says a zero-point tensor holds unsigned integers (extended with ``extui``).

Source followed: IREE 3.13's ``iree_linalg_ext.quantize_affine`` / ``dequantize_affine`` (the
printed form of ``iree-compile --compile-to=input`` on ONNX QuantizeLinear/DequantizeLinear and
the generic ``--compile-to=flow`` makes of them).
"""
from typing import ClassVar

from xdsl.dialects.builtin import AnyFloat, ArrayAttr, IntegerAttr, IntegerType, TensorType, UnitAttr, i64
from xdsl.ir.affine import AffineDimExpr
from xdsl.irdl import AttrSizedOperandSegments, attr_def, irdl_op_definition, opt_attr_def, traits_def, var_operand_def, var_result_def
from xdsl.parser import Parser
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from rt.compiler.dialects import _syntax as syn
from rt.compiler.dialects._format import Custom, FormattedOp, OpFormat


class _AffineQuantOp(FormattedOp):
    """Fields, syntax and verifier shared by quantize_affine and dequantize_affine."""

    inputs = var_operand_def()
    outputs = var_operand_def()
    result = var_result_def()
    indexing_maps = attr_def(ArrayAttr)
    quant_min = attr_def(IntegerAttr)
    quant_max = attr_def(IntegerAttr)
    zp_unsigned = opt_attr_def(UnitAttr)
    traits = traits_def(Pure())
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    FORMAT: ClassVar = OpFormat(Custom())
    #: the unit flag saying the integer side (output of quantize, input of dequantize) is unsigned
    UNSIGNED: ClassVar[str]
    #: ``<...>`` entries, in IREE's printed order
    PROPERTIES: ClassVar[tuple]

    @classmethod
    def parse_syntax(cls, parser):
        pos = parser.pos
        attrs = {}
        parser.parse_punctuation("<")
        while True:
            at = parser.pos
            name = parser.parse_identifier()
            if name not in cls.PROPERTIES:
                parser.raise_error(f"unknown property '{name}'; expected one of {', '.join(cls.PROPERTIES)}", at)
            if name in (cls.UNSIGNED, "zp_unsigned"):
                attrs[name] = UnitAttr()
            else:
                parser.parse_punctuation("=")
                attrs[name] = (IntegerAttr(parser.parse_integer(), i64) if name.startswith("quant_")
                               else parser.parse_attribute())
            if parser.parse_optional_punctuation(",") is None:
                break
        parser.parse_punctuation(">")
        attrs |= parser.parse_optional_attr_dict()
        ins = syn.parse_operand_group(parser, "ins")
        outs = syn.parse_operand_group(parser, "outs")
        if len(ins) not in (2, 3) or len(outs) != 1:
            parser.raise_error(f"{cls.name} takes ins(input, scale[, zero_point]) and one outs operand; "
                               f"got {len(ins)} and {len(outs)}", pos)
        results = []
        if parser.parse_optional_punctuation("->"):
            results = parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_type)
        return cls.build(operands=[ins, outs], result_types=[results], attributes=attrs)

    def print_syntax(self, printer):
        present = [(name, self.attributes[name]) for name in self.PROPERTIES if name in self.attributes]
        printer.print_string(" <")
        for k, (name, value) in enumerate(present):
            printer.print_string(", " if k else "")
            if isinstance(value, UnitAttr):
                printer.print_string(name)
            elif isinstance(value, IntegerAttr):
                printer.print_string(f"{name} = {value.value.data}")
            else:
                printer.print_string(f"{name} = ")
                printer.print_attribute(value)
        printer.print_string(">")
        syn.print_attr_dict(printer, {k: v for k, v in self.attributes.items() if k not in self.PROPERTIES})
        for keyword, values in ((" ins(", list(self.inputs)), (" outs(", list(self.outputs))):
            printer.print_string(keyword)
            printer.print_list(values, printer.print_operand)
            printer.print_string(" : ")
            printer.print_list([v.type for v in values], printer.print_attribute)
            printer.print_string(")")
        if self.results:
            printer.print_string(" -> ")
            printer.print_list([r.type for r in self.results], printer.print_attribute)

    def maps(self):
        """The indexing maps as xDSL AffineMaps: input, scale, [zero point,] output."""
        return [m.data for m in self.indexing_maps.data]

    def unsigned(self):
        """True when the integer side (quantize's output, dequantize's input) is unsigned."""
        return self.UNSIGNED in self.attributes

    def verify_(self):
        ins, outs = list(self.inputs), list(self.outputs)
        if len(ins) not in (2, 3) or len(outs) != 1:
            raise VerifyException(f"takes ins(input, scale[, zero_point]) and one output; got {len(ins)} and {len(outs)}")
        names = ["input", "scale", "zero point"][:len(ins)] + ["output"]
        operands = ins + outs
        maps = self.maps()
        if len(maps) != len(operands):
            raise VerifyException(f"expected {len(operands)} indexing maps (one per operand: {', '.join(names)}); "
                                  f"got {len(maps)}")
        out_type = outs[0].type
        if not isinstance(out_type, TensorType):
            raise VerifyException(f"the output must be a ranked tensor; got {out_type}")
        rank = out_type.get_num_dims()
        for what, value, m in zip(names, operands, maps):
            shape = value.type.get_shape() if isinstance(value.type, TensorType) else ()
            if m.num_dims != rank or m.num_symbols or len(m.results) != len(shape) or \
                    not all(isinstance(r, AffineDimExpr) for r in m.results):
                raise VerifyException(f"the indexing map of the {what} ({m}) must map the output's {rank} dims "
                                      f"to one dim per dim of its type {value.type}")
        element = [v.type.element_type if isinstance(v.type, TensorType) else v.type for v in operands]
        if not isinstance(element[1], AnyFloat):
            raise VerifyException(f"the scale must be floats; got {operands[1].type}")
        if len(ins) == 3 and not isinstance(element[2], IntegerType):
            raise VerifyException(f"the zero point must be integers; got {operands[2].type}")
        floats, ints = (element[0], element[-1]) if self.name.endswith(".quantize_affine") else (element[-1], element[0])
        if not isinstance(floats, AnyFloat) or not isinstance(ints, IntegerType):
            side = ("input", "output") if self.name.endswith(".quantize_affine") else ("output", "input")
            raise VerifyException(f"the {side[0]} must be floats and the {side[1]} integers; got {floats} and {ints}")
        low, high = self.quant_min.value.data, self.quant_max.value.data
        if low > high:
            raise VerifyException(f"quant_min ({low}) must not exceed quant_max ({high})")
        if self.results and [r.type for r in self.results] != [out_type]:
            raise VerifyException(f"the result type must be the output type {out_type}; got "
                                  f"{', '.join(str(r.type) for r in self.results)}")


@irdl_op_definition
class QuantizeAffineOp(_AffineQuantOp):
    """``quantize_affine``: floats to integers (see the module docstring)."""

    name = "iree_linalg_ext.quantize_affine"
    storage_unsigned = opt_attr_def(UnitAttr)
    UNSIGNED: ClassVar = "storage_unsigned"
    PROPERTIES: ClassVar = ("indexing_maps", "quant_min", "quant_max", "storage_unsigned", "zp_unsigned")


@irdl_op_definition
class DequantizeAffineOp(_AffineQuantOp):
    """``dequantize_affine``: integers to floats (see the module docstring)."""

    name = "iree_linalg_ext.dequantize_affine"
    input_unsigned = opt_attr_def(UnitAttr)
    UNSIGNED: ClassVar = "input_unsigned"
    PROPERTIES: ClassVar = ("indexing_maps", "quant_min", "quant_max", "input_unsigned", "zp_unsigned")


OPS = (QuantizeAffineOp, DequantizeAffineOp)
