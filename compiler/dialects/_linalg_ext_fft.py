"""``iree_linalg_ext.fft``: one radix-2 Cooley-Tukey stage over the innermost dim.

::

    %r:2 = iree_linalg_ext.fft ins(%stage, %coeff_re, %coeff_im : index, tensor<8xf32>, tensor<8xf32>)
             outs(%re, %im : tensor<4x16xf32>, tensor<4x16xf32>) : tensor<4x16xf32>, tensor<4x16xf32>

``re``/``im`` (same shape ``[..., n]``, ``n`` a power of two, input already in bit-reversed
order) are the real and imaginary parts; stage ``s`` (``m = 2^s``, ``h = m / 2``) replaces, for
every block start ``k`` (a multiple of ``m``) and ``j < h``, ``u = x[k + j]`` and
``t = w[j] * x[k + j + h]`` by ``x[k + j] = u + t`` and ``x[k + j + h] = u - t``. ``w`` is the
optional coefficient pair (``h`` elements; without it ``w[j] = exp(-2 pi i j / m)``, the forward
transform). On tensors the op has the two updated parts as results; on buffers none.
``rt-decompose-linalg-ext`` lowers it (``helpers/linalg_ext/fft.py``); rt needs a constant stage.

Source followed: IREE ``LinalgExtOps.td`` (``IREELinalgExt_FftOp``: operands, assembly format)
and ``TilingInterfaceImpl.cpp`` (``FftOp::generateScalarImplementation``: the stage semantics).
"""
from typing import ClassVar

from xdsl.dialects.builtin import IndexType, IntegerType, ShapedType
from xdsl.irdl import AttrSizedOperandSegments, irdl_op_definition, var_operand_def, var_result_def
from xdsl.utils.exceptions import VerifyException

from rt.compiler.dialects._format import AttrDict, FormattedOp, Lit, OpFormat, Opt
from rt.compiler.dialects._linalg_ext_syntax import OUTS, ResultTypes, group


@irdl_op_definition
class FftOp(FormattedOp):
    """``iree_linalg_ext.fft ins(%stage[, %coeff_re, %coeff_im] : ...) outs(%re, %im : ...) [: t, t]``."""

    name = "iree_linalg_ext.fft"
    inputs = var_operand_def()
    outputs = var_operand_def()
    result = var_result_def()
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    FORMAT: ClassVar = OpFormat(AttrDict(), *group("ins", "inputs"), *OUTS, Opt(Lit(" : "), ResultTypes()))

    @property
    def stage(self):
        return self.inputs[0]

    @property
    def coefficients(self):
        """(real, imag) coefficient operands, or None when the op has none."""
        return tuple(self.inputs[1:3]) if len(self.inputs) == 3 else None

    def verify_(self):
        if len(self.inputs) not in (1, 3) or len(self.outputs) != 2:
            raise VerifyException(f"takes ins(stage[, coeff_re, coeff_im]) and outs(re, im), got "
                                  f"{len(self.inputs)} inputs and {len(self.outputs)} outputs")
        if not isinstance(self.stage.type, IndexType | IntegerType):
            raise VerifyException(f"stage must be an index, got {self.stage.type}")
        re, im = (v.type for v in self.outputs)
        if not isinstance(re, ShapedType) or re != im or re.get_num_dims() < 1:
            raise VerifyException(f"outs must be two shaped values of one type of rank >= 1, got {re} and {im}")
        n = re.get_shape()[-1]
        if n > 0 and n & (n - 1):
            raise VerifyException(f"the innermost dim ({n}) must be a power of two")
        for coeff in self.coefficients or ():
            if (not isinstance(coeff.type, ShapedType) or coeff.type.get_num_dims() != 1
                    or coeff.type.get_element_type() != re.get_element_type()):
                raise VerifyException(f"coefficients must be 1-D of element type {re.get_element_type()}, "
                                      f"got {coeff.type}")
        if self.result and [r.type for r in self.result] != [re, im]:
            raise VerifyException(f"result types must equal the outs types {re}, {im}")


#: op classes of this module
OPS = (FftOp,)
