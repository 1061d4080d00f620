"""``arith`` as xDSL 0.74.0 defines it, with ``arith.constant`` accepting rt's constant handles.

xDSL's ``arith.constant`` only admits ``DenseIntOrFPElementsAttr``; large and splat tensor
constants are :class:`~rt.compiler.frontend.elements.ElementsAttr` in rt (see
rt.compiler.frontend.elements), so ``ConstantOp`` here parses any typed value and verifies that
the result type equals the value's type.

Source followed: MLIR ``arith.constant`` (ArithOps.td).
"""
from xdsl.dialects import arith as xarith
from xdsl.ir import Dialect, TypedAttribute
from xdsl.utils.exceptions import VerifyException

from rt.compiler.dialects import _syntax as syn
from rt.compiler.frontend.elements import ElementsAttr


class ConstantOp(xarith.ConstantOp):
    """``arith.constant <value>``; ``value`` may be an ElementsAttr handle."""

    @classmethod
    def parse(cls, parser):
        attrs = parser.parse_optional_attr_dict()
        pos = parser.pos
        value = parser.parse_attribute()
        if not isinstance(value, TypedAttribute):
            parser.raise_error(f"arith.constant needs a typed value, got {value}", pos)
        op = cls.create(result_types=[value.get_type()], properties={"value": value})
        op.attributes.update(attrs)
        return op

    def print(self, printer):
        syn.print_attr_dict(printer, self.attributes)
        printer.print_string(" ")
        printer.print_attribute(self.value)

    def verify_(self):
        if isinstance(self.value, ElementsAttr):
            if self.value.get_type() != self.result.type:
                raise VerifyException(
                    f"arith.constant: value type {self.value.get_type()} differs from result type {self.result.type}"
                )
            return
        super().verify_()


def build_dialect():
    """xDSL's arith Dialect with ConstantOp replaced."""
    ops = [ConstantOp if op is xarith.ConstantOp else op for op in xarith.Arith.operations]
    return Dialect("arith", ops, list(xarith.Arith.attributes))
