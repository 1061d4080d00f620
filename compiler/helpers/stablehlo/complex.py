"""Complex arithmetic on (real, imaginary) pairs of real StableHLO tensors.

``passes/input/lower_complex.py`` holds every ``tensor<..xcomplex<fN>>`` value as a
:class:`Pair` of ``tensor<..xfN>`` values of the same shape and emits, through :class:`Hlo`,
stablehlo ops on those parts (the StableHLO input conversion then lowers them like any real
program). The formulas are the textbook ones numpy and XLA:CPU use, z = a + bi, w = c + di:

==============  =====================================================================
op              parts
==============  =====================================================================
add / subtract  (a +- c, b +- d)
multiply        (ac - bd, ad + bc)
divide          ((ac + bd) / (c^2 + d^2), (bc - ad) / (c^2 + d^2))
negate          (-a, -b)
exponential     (e^a cos b, e^a sin b)
log             (log |z|, atan2(b, a))
sine            (sin a cosh b, cos a sinh b)
cosine          (cos a cosh b, -sin a sinh b)
tanh            (sinh 2a, sin 2b) / (cosh 2a + cos 2b)
sqrt            (sqrt((|z| + a) / 2), sign(b) sqrt((|z| - a) / 2)), the principal root
abs             |z| = sqrt(a^2 + b^2) (a real result)
compare EQ/NE   (a == c) and (b == d) / (a != c) or (b != d)
==============  =====================================================================

Source followed: the StableHLO specification (``docs/spec.md``: complex semantics of each
elementwise op); IREE's ``Preprocessing/LowerComplex.cpp`` rewrites the same ops the same way.
"""
import collections

from xdsl.dialects.builtin import ComplexType, IntegerType, StringAttr, TensorType

from rt.compiler.dialects import chlo, stablehlo as hlo
from rt.compiler.frontend.elements import make_elements
from rt.compiler.op_handlers import OpTable

#: a complex tensor as its real and imaginary parts (real tensors of one type)
Pair = collections.namedtuple("Pair", "re im")


def is_complex(type_):
    """Whether ``type_`` is a tensor of complex elements."""
    return isinstance(type_, TensorType) and isinstance(type_.get_element_type(), ComplexType)


def part_type(type_):
    """``tensor<SHAPExcomplex<fN>>`` -> ``tensor<SHAPExfN>``; other types unchanged."""
    if not is_complex(type_):
        return type_
    return TensorType(type_.get_element_type().element_type, type_.get_shape())


class Hlo:
    """Emits stablehlo ops on real tensors into an ``OpSink``; each method returns the result."""

    def __init__(self, sink):
        self.sink = sink

    def op(self, cls, operands, type_, **attributes):
        return self.sink.add(cls.create(operands=list(operands), result_types=[type_], attributes=attributes))

    def const(self, value, type_):
        """A splat constant ``value`` of tensor type ``type_``, or the tensor of array ``value``."""
        return self.op(hlo.ConstantOp, [], type_, value=make_elements(type_, value))

    def zeros_like(self, x):
        return self.const(0.0, x.type)

    def add(self, x, y):
        return self.op(hlo.AddOp, [x, y], x.type)

    def sub(self, x, y):
        return self.op(hlo.SubtractOp, [x, y], x.type)

    def mul(self, x, y):
        return self.op(hlo.MulOp, [x, y], x.type)

    def div(self, x, y):
        return self.op(hlo.DivOp, [x, y], x.type)

    def scale(self, x, factor):
        return self.mul(x, self.const(factor, x.type))

    def unary(self, cls, x):
        return self.op(cls, [x], x.type)

    def compare(self, direction, x, y):
        return self.op(hlo.CompareOp, [x, y], TensorType(IntegerType(1), x.type.get_shape()),
                       comparison_direction=hlo.ComparisonDirectionAttr(StringAttr(direction)))

    def select(self, pred, x, y):
        return self.op(hlo.SelectOp, [pred, x, y], x.type)

    def abs2(self, z):
        """a^2 + b^2 of ``Pair`` z."""
        return self.add(self.mul(z.re, z.re), self.mul(z.im, z.im))

    def modulus(self, z):
        return self.unary(hlo.SqrtOp, self.abs2(z))


def add(h, z, w):
    return Pair(h.add(z.re, w.re), h.add(z.im, w.im))


def subtract(h, z, w):
    return Pair(h.sub(z.re, w.re), h.sub(z.im, w.im))


def multiply(h, z, w):
    return Pair(h.sub(h.mul(z.re, w.re), h.mul(z.im, w.im)), h.add(h.mul(z.re, w.im), h.mul(z.im, w.re)))


def divide(h, z, w):
    denominator = h.abs2(w)
    re = h.add(h.mul(z.re, w.re), h.mul(z.im, w.im))
    im = h.sub(h.mul(z.im, w.re), h.mul(z.re, w.im))
    return Pair(h.div(re, denominator), h.div(im, denominator))


def negate(h, z):
    return Pair(h.unary(hlo.NegOp, z.re), h.unary(hlo.NegOp, z.im))


def exponential(h, z):
    magnitude = h.unary(hlo.ExpOp, z.re)
    return Pair(h.mul(magnitude, h.unary(hlo.CosineOp, z.im)), h.mul(magnitude, h.unary(hlo.SineOp, z.im)))


def log(h, z):
    return Pair(h.scale(h.unary(hlo.LogOp, h.abs2(z)), 0.5), h.op(hlo.Atan2Op, [z.im, z.re], z.re.type))


def sine(h, z):
    cosh, sinh = h.unary(chlo.CoshOp, z.im), h.unary(chlo.SinhOp, z.im)
    return Pair(h.mul(h.unary(hlo.SineOp, z.re), cosh), h.mul(h.unary(hlo.CosineOp, z.re), sinh))


def cosine(h, z):
    cosh, sinh = h.unary(chlo.CoshOp, z.im), h.unary(chlo.SinhOp, z.im)
    return Pair(h.mul(h.unary(hlo.CosineOp, z.re), cosh),
                h.unary(hlo.NegOp, h.mul(h.unary(hlo.SineOp, z.re), sinh)))


def tanh(h, z):
    a2, b2 = h.scale(z.re, 2.0), h.scale(z.im, 2.0)
    denominator = h.add(h.unary(chlo.CoshOp, a2), h.unary(hlo.CosineOp, b2))
    return Pair(h.div(h.unary(chlo.SinhOp, a2), denominator), h.div(h.unary(hlo.SineOp, b2), denominator))


def sqrt(h, z):
    modulus = h.modulus(z)
    re = h.unary(hlo.SqrtOp, h.scale(h.add(modulus, z.re), 0.5))
    magnitude = h.unary(hlo.SqrtOp, h.scale(h.sub(modulus, z.re), 0.5))
    negative = h.compare("LT", z.im, h.zeros_like(z.im))
    return Pair(re, h.select(negative, h.unary(hlo.NegOp, magnitude), magnitude))


def compare(h, direction, z, w):
    """``EQ``/``NE`` of two complex tensors (an i1 tensor); other directions have no order."""
    if direction == "EQ":
        return h.op(hlo.AndOp, [h.compare("EQ", z.re, w.re), h.compare("EQ", z.im, w.im)], _bool_like(z.re))
    return h.op(hlo.OrOp, [h.compare("NE", z.re, w.re), h.compare("NE", z.im, w.im)], _bool_like(z.re))


def _bool_like(x):
    return TensorType(IntegerType(1), x.type.get_shape())


#: stablehlo op class -> fn(hlo, *pairs) -> Pair, for the elementwise ops with complex results
ELEMENTWISE = OpTable({
    hlo.AddOp: add, hlo.SubtractOp: subtract, hlo.MulOp: multiply, hlo.DivOp: divide, hlo.NegOp: negate,
    hlo.ExpOp: exponential, hlo.LogOp: log, hlo.SineOp: sine, hlo.CosineOp: cosine, hlo.TanhOp: tanh,
    hlo.SqrtOp: sqrt,
})
