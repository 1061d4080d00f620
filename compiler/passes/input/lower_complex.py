"""``iree-stablehlo-preprocessing-lower-complex``: complex tensors -> pairs of real tensors.

rt's codegen has no complex element type. This pass, run before the StableHLO input conversion,
holds every ``tensor<..xcomplex<fN>>`` value inside a function as a (real, imaginary) pair of
``tensor<..xfN>`` values and rewrites each op on complex values into stablehlo ops on the parts
(``helpers/stablehlo/complex.py``):

* ``complex`` -> the pair; ``real`` / ``imag`` -> one part (of a real operand: itself / zeros);
  complex constants (``stablehlo.constant``, ``util.unfoldable_constant``) -> two constants;
* ``add``, ``subtract``, ``multiply``, ``divide``, ``negate``, ``exponential``, ``log``,
  ``sine``, ``cosine``, ``tanh``, ``sqrt`` -> their formulas on the parts; ``abs`` -> the
  modulus (a real tensor); ``compare`` EQ/NE; ``convert`` real<->complex and between widths;
* ``broadcast_in_dim``, ``broadcast``, ``reshape``, ``transpose``, ``slice``, ``reverse``,
  ``concatenate``, ``pad``, ``dynamic_slice``, ``dynamic_update_slice``, ``select``,
  ``gather``, ``torch_index_select`` -> the same op on each part;
  ``dot`` / ``dot_general`` -> four real products (ac - bd, ad + bc);
* ``fft`` (FFT, IFFT, RFFT, IRFFT) -> ``iree_linalg_ext.fft`` stages for power-of-two lengths, a
  DFT matmul otherwise (``helpers/stablehlo/complex_fft.py``).

Calls to private functions with complex arguments or results (JAX outlines ``jnp.fft`` so) are
inlined first (``helpers/stablehlo/complex_calls.py``). Complex arguments and results of public
functions, complex tensors of dynamic shape, complex values carried through regions
(``while``/``if``/``reduce``...) and any other op on complex values are a located CompileError
saying what is supported (return ``stablehlo.real`` / ``stablehlo.imag`` of the value).

Source followed: IREE ``compiler/plugins/input/StableHLO/Conversion/Preprocessing/LowerComplex.cpp``
(same pass name; IREE keeps complex element types for its codegen, rt splits them all).
"""
import dataclasses

from xdsl.dialects import func

from rt.compiler.dialects import stablehlo as hlo
from rt.compiler.dialects import util
from rt.compiler.frontend.diagnostics import error_at_op
from rt.compiler.frontend.elements import elements_to_numpy, make_elements
from rt.compiler.helpers.stablehlo import complex as cx
from rt.compiler.helpers.stablehlo.complex_calls import inline_complex_calls
from rt.compiler.helpers.stablehlo.complex_fft import lower_fft
from rt.compiler.helpers.stablehlo.elementwise import OpSink
from rt.compiler.op_handlers import OpHandlers, handles
from rt.compiler.passes.base import Pass

#: ops that act on each part alone (their other operands, indices and predicates, are real)
PER_PART = (hlo.BroadcastInDimOp, hlo.BroadcastOp, hlo.ReshapeOp, hlo.TransposeOp, hlo.SliceOp, hlo.ReverseOp,
            hlo.ConcatenateOp, hlo.PadOp, hlo.DynamicSliceOp, hlo.DynamicUpdateSliceOp, hlo.SelectOp, hlo.GatherOp,
            hlo.TorchIndexSelectOp)

SUPPORTED = ("stablehlo.complex, real, imag, constant, add, subtract, multiply, divide, negate, exponential, log, "
             "sine, cosine, tanh, sqrt, abs, compare EQ/NE, convert, dot, dot_general, fft and the shape ops "
             "(broadcast_in_dim, reshape, transpose, slice, concatenate, pad, select, ...)")


def _touches_complex(op):
    return isinstance(op, hlo.RealOp | hlo.ImagOp) or any(cx.is_complex(v.type) for v in (*op.operands, *op.results))


@dataclasses.dataclass(frozen=True)
class LowerComplexPass(Pass):
    """Split every complex value into real and imaginary tensors (see the module docstring)."""

    name = "iree-stablehlo-preprocessing-lower-complex"

    def run(self, module, ctx):
        inline_complex_calls(module)
        ops = [op for op in module.walk() if _touches_complex(op)]
        for fn in module.walk():
            if isinstance(fn, func.FuncOp):
                _check_signature(fn)
        if not ops:
            return
        lowering = _Lowering()
        for op in ops:
            lowering.lower(op)
        for op in reversed(ops):
            op.parent_block().erase_op(op)


def _check_signature(fn):
    kinds = (("argument", fn.function_type.inputs.data), ("result", fn.function_type.outputs.data))
    for what, types in kinds:
        for k, type_ in enumerate(types):
            if cx.is_complex(type_):
                raise error_at_op(fn, f"{what} {k} of @{fn.sym_name.data} has complex type {type_}; rt takes "
                                      f"complex numbers inside a function only: pass or return the real and "
                                      f"imaginary parts as {cx.part_type(type_)} (stablehlo.complex / "
                                      "stablehlo.real / stablehlo.imag)")


class _Lowering:
    handler = OpHandlers()

    def __init__(self):
        self.parts = {}

    def pair(self, op, value):
        """The (re, im) parts of complex operand ``value`` of ``op``."""
        if value in self.parts:
            return self.parts[value]
        raise error_at_op(op, f"'{op.name}': a complex operand of type {value.type} that rt cannot split (a "
                              "function or region argument); complex values may live only between ops "
                              f"of this list: {SUPPORTED}")

    def lower(self, op):
        fn = self.handler(op)
        if fn is None:
            raise error_at_op(op, f"'{op.name}' on complex numbers is not supported by rt; supported: {SUPPORTED}")
        for value in (*op.operands, *op.results):
            if cx.is_complex(value.type) and any(d < 0 for d in value.type.get_shape()):
                raise error_at_op(op, f"'{op.name}' on {value.type}: rt splits complex tensors of static shape "
                                      "only; give the dims static sizes")
        sink = OpSink(op.location)
        results = fn(op, cx.Hlo(sink))
        block = op.parent_block()
        for new in sink.ops:
            block.insert_op_before(new, op)
        for result, new in zip(op.results, results):
            if isinstance(new, cx.Pair):
                self.parts[result] = new
            else:
                result.replace_all_uses_with(new)

    @handles(hlo.ComplexOp)
    def _complex(self, op, h):
        return [cx.Pair(op.lhs, op.rhs)]

    @handles(hlo.RealOp)
    def _real(self, op, h):
        return [self.pair(op, op.operand).re if cx.is_complex(op.operand.type) else op.operand]

    @handles(hlo.ImagOp)
    def _imag(self, op, h):
        return [self.pair(op, op.operand).im if cx.is_complex(op.operand.type) else h.zeros_like(op.operand)]

    @handles(hlo.ConstantOp)
    def _constant(self, op, h):
        if "value" not in op.attributes:
            raise error_at_op(op, "'stablehlo.constant' needs a 'value' attribute (dense<...> : tensor<...>)")
        return [self._split(op.outputs[0].type, op.attributes["value"],
                            lambda part, attr: h.op(hlo.ConstantOp, [], part, value=attr))]

    @handles(util.UnfoldableConstantOp)
    def _unfoldable_constant(self, op, h):
        def build(part, attr):
            return h.sink.add(util.UnfoldableConstantOp.create(properties={"value": attr}, result_types=[part]))
        return [self._split(op.result.type, op.value, build)]

    @staticmethod
    def _split(type_, attr, build):
        values = elements_to_numpy(attr)
        part = cx.part_type(type_)
        return cx.Pair(*(build(part, make_elements(part, v)) for v in (values.real, values.imag)))

    @handles(*cx.ELEMENTWISE.keys())
    def _elementwise(self, op, h):
        return [cx.ELEMENTWISE[op](h, *(self.pair(op, v) for v in op.operands))]

    @handles(hlo.AbsOp)
    def _abs(self, op, h):
        return [h.modulus(self.pair(op, op.operand))]

    @handles(hlo.CompareOp)
    def _compare(self, op, h):
        direction = op.attributes.get("comparison_direction")
        if not isinstance(direction, hlo.ComparisonDirectionAttr):
            raise error_at_op(op, "'stablehlo.compare' needs comparison_direction "
                                  "(#stablehlo<comparison_direction EQ>)")
        direction = direction.value.data
        if direction not in ("EQ", "NE"):
            raise error_at_op(op, f"'stablehlo.compare' {direction} of complex numbers: complex numbers have no "
                                  "order; compare them with EQ or NE, or compare their real/imag parts")
        return [cx.compare(h, direction, self.pair(op, op.lhs), self.pair(op, op.rhs))]

    @handles(hlo.ConvertOp)
    def _convert(self, op, h):
        source, target = op.operand.type, op.result.type
        part = cx.part_type(target)
        if not cx.is_complex(source):
            re = op.operand if source == part else h.op(hlo.ConvertOp, [op.operand], part)
            return [cx.Pair(re, h.zeros_like(re))]
        z = self.pair(op, op.operand)
        converted = [v if v.type == part else h.op(hlo.ConvertOp, [v], part) for v in z]
        return [cx.Pair(*converted) if cx.is_complex(target) else converted[0]]

    @handles(*PER_PART)
    def _per_part(self, op, h):
        parts = []
        for k in range(2):
            operands = [self.pair(op, v)[k] if cx.is_complex(v.type) else v for v in op.operands]
            parts.append(h.sink.add(type(op).create(
                operands=operands, result_types=[cx.part_type(r.type) for r in op.results],
                attributes=dict(op.attributes), properties=dict(op.properties))))
        return [cx.Pair(*parts)]

    @handles(hlo.DotOp, hlo.DotGeneralOp)
    def _dot(self, op, h):
        lhs, rhs = (self.pair(op, v) if cx.is_complex(v.type) else cx.Pair(v, None) for v in op.operands)
        part = cx.part_type(op.outputs[0].type)

        def product(x, y):
            if x is None or y is None:
                return None
            return h.sink.add(type(op).create(operands=[x, y], result_types=[part],
                                              attributes=dict(op.attributes), properties=dict(op.properties)))
        rr, ii, ri, ir = product(lhs.re, rhs.re), product(lhs.im, rhs.im), product(lhs.re, rhs.im), product(
            lhs.im, rhs.re)
        re = rr if ii is None else h.sub(rr, ii)
        im = [v for v in (ri, ir) if v is not None]
        return [cx.Pair(re, im[0] if len(im) == 1 else h.add(*im))]

    @handles(hlo.FftOp)
    def _fft(self, op, h):
        source = self.pair(op, op.inputs[0]) if cx.is_complex(op.inputs[0].type) else cx.Pair(op.inputs[0], None)
        return [lower_fft(op, h, source)]
