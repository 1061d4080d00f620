"""``stablehlo.fft`` on (real, imaginary) pairs (helper of ``iree-stablehlo-preprocessing-lower-complex``).

The transform runs over the last ``len(fft_length)`` dims (1 to 3), one dim at a time: the
innermost directly, the others moved innermost by a ``transpose`` and back. Along one dim of
length n:

* n a power of two: the input in bit-reversed order (a ``reshape`` to ``[.., 2, .., 2]``, a
  ``transpose`` reversing those dims, a ``reshape`` back), then log2(n) ``iree_linalg_ext.fft``
  stages with ``exp(-+2 pi i j / m)`` coefficient constants (O(n log n));
* any other n: a DFT as a ``dot_general`` against cos/sin constant matrices ``[n, n']``
  (O(n n') per row, one matmul per part).

FFT is the forward transform, IFFT the inverse scaled by 1/n (numpy's convention, as the spec
says), RFFT the forward transform of real input keeping the first ``n / 2 + 1`` outputs, IRFFT
the inverse of such a half spectrum (the rest is its Hermitian mirror) keeping the real part.
Coefficients are computed in float64 and rounded once to the element type.

Source followed: the StableHLO specification (``fft``: types, shapes, normalization); IREE
``rewriteFft`` / ``rewriteRfft`` (``LinalgExt/Utils``) for the bit reversal + stages scheme.
"""
import numpy as np
from xdsl.dialects.builtin import ArrayAttr, DenseArrayBase, IndexType, IntegerAttr, TensorType, i64

from rt.compiler.dialects import arith
from rt.compiler.dialects import stablehlo as hlo
from rt.compiler.dialects._linalg_ext_fft import FftOp as LinalgExtFftOp
from rt.compiler.frontend.diagnostics import error_at_op
from rt.compiler.frontend.elements import make_elements, storage_dtype
from rt.compiler.helpers.stablehlo.builders import int_list, require_static
from rt.compiler.helpers.stablehlo.complex import Pair, is_complex


def _array(values):
    return DenseArrayBase.from_list(i64, list(values))


def _with_last(type_, size):
    return TensorType(type_.get_element_type(), list(type_.get_shape()[:-1]) + [size])


def lower_fft(op, h, source):
    """``stablehlo.fft`` ``op`` of ``source`` (a Pair; ``im`` None for real input) -> a Pair
    (FFT, IFFT, RFFT) or the real result value (IRFFT). Located errors for shapes the spec
    does not allow."""
    kind_attr = op.attributes.get("fft_type")
    if not isinstance(kind_attr, hlo.FftTypeAttr):
        raise error_at_op(op, "'stablehlo.fft' needs fft_type = #stablehlo<fft_type FFT|IFFT|RFFT|IRFFT>")
    kind = kind_attr.value.data
    lengths = int_list(op, "fft_length")
    operand, result = op.inputs[0].type, op.outputs[0].type
    require_static(op, operand, result)
    k = len(lengths)
    in_shape, out_shape = list(operand.get_shape()), list(result.get_shape())
    expected_in, expected_out = list(lengths), list(lengths)
    if kind == "RFFT":
        expected_out[-1] = lengths[-1] // 2 + 1
    if kind == "IRFFT":
        expected_in[-1] = lengths[-1] // 2 + 1
    complex_in, complex_out = kind != "RFFT", kind != "IRFFT"
    if (not 1 <= k <= 3 or len(in_shape) < k or in_shape[-k:] != expected_in or out_shape[-k:] != expected_out
            or in_shape[:-k] != out_shape[:-k] or is_complex(operand) != complex_in
            or is_complex(result) != complex_out):
        raise error_at_op(op, f"'stablehlo.fft' type = {kind}, length = {lengths}: {operand} -> {result} does not "
                              f"fit; the last {k} dims must be {expected_in} -> {expected_out} "
                              f"({'complex' if complex_in else 'real'} -> {'complex' if complex_out else 'real'})")
    rank = len(in_shape)
    axes = list(range(rank - 1, rank - 1 - k, -1))
    z = source
    if kind == "IRFFT":
        for axis in axes[1:]:
            z = _along(h, z, axis, lambda y: _transform(h, y, inverse=True))
        return _transform(h, _hermitian(h, z, lengths[-1]), inverse=True).re
    inverse = kind == "IFFT"
    z = _transform(h, z, inverse, keep=expected_out[-1])
    for axis in axes[1:]:
        z = _along(h, z, axis, lambda y: _transform(h, y, inverse))
    return z


def _along(h, z, axis, fn):
    """``fn`` applied along dim ``axis`` of Pair ``z`` (moved innermost and back)."""
    rank = z.re.type.get_num_dims()
    perm = list(range(rank))
    perm[axis], perm[-1] = perm[-1], perm[axis]
    moved = Pair(*(_transpose(h, v, perm) for v in z))
    done = fn(moved)
    return Pair(*(_transpose(h, v, perm) for v in done))


def _transpose(h, value, perm):
    shape = value.type.get_shape()
    type_ = TensorType(value.type.get_element_type(), [shape[p] for p in perm])
    return h.op(hlo.TransposeOp, [value], type_, permutation=_array(perm))


def _hermitian(h, z, n):
    """The full length-``n`` spectrum from its first ``n // 2 + 1`` entries: X[n - j] = conj(X[j])."""
    mirrored = n - n // 2 - 1
    if mirrored == 0:
        return z
    rank = z.re.type.get_num_dims()
    shape = list(z.re.type.get_shape())
    sliced = _with_last(z.re.type, mirrored)
    full = _with_last(z.re.type, n)
    parts = []
    for k, value in enumerate(z):
        piece = h.op(hlo.SliceOp, [value], sliced, start_indices=_array([0] * (rank - 1) + [1]),
                     limit_indices=_array(shape[:-1] + [1 + mirrored]), strides=_array([1] * rank))
        piece = h.op(hlo.ReverseOp, [piece], sliced, dimensions=_array([rank - 1]))
        if k == 1:
            piece = h.unary(hlo.NegOp, piece)
        parts.append(h.op(hlo.ConcatenateOp, [value, piece], full, dimension=IntegerAttr(rank - 1, i64)))
    return Pair(*parts)


def _transform(h, z, inverse, keep=None):
    """The DFT of Pair ``z`` (``im`` None: real input) along its last dim (inverse: conjugate
    twiddles and 1/n), cut to the first ``keep`` outputs."""
    n = z.re.type.get_shape()[-1]
    keep = n if keep is None else keep
    if n & (n - 1) == 0 and n >= 2:
        out = _radix2(h, z, n, inverse)
        if keep != n:
            out = Pair(*(_cut(h, v, keep) for v in out))
    else:
        out = _dft_matmul(h, z, n, keep, inverse)
    if inverse:
        out = Pair(*(h.scale(v, 1.0 / n) for v in out))
    return out


def _cut(h, value, keep):
    rank = value.type.get_num_dims()
    shape = list(value.type.get_shape())
    return h.op(hlo.SliceOp, [value], _with_last(value.type, keep), start_indices=_array([0] * rank),
                limit_indices=_array(shape[:-1] + [keep]), strides=_array([1] * rank))


def _bit_reversed(h, value, n):
    bits = n.bit_length() - 1
    if bits < 2:
        return value
    shape = list(value.type.get_shape())
    lead = len(shape) - 1
    element = value.type.get_element_type()
    split = TensorType(element, shape[:-1] + [2] * bits)
    perm = list(range(lead)) + list(range(lead + bits - 1, lead - 1, -1))
    spread = h.op(hlo.ReshapeOp, [value], split)
    reversed_ = h.op(hlo.TransposeOp, [spread], split, permutation=_array(perm))
    return h.op(hlo.ReshapeOp, [reversed_], value.type)


def _radix2(h, z, n, inverse):
    re = _bit_reversed(h, z.re, n)
    im = h.zeros_like(re) if z.im is None else _bit_reversed(h, z.im, n)
    element = re.type.get_element_type()
    dtype = storage_dtype(element)
    sign = 1.0 if inverse else -1.0
    for stage in range(1, n.bit_length()):
        m = 1 << stage
        angle = sign * 2.0 * np.pi * np.arange(m // 2) / m
        coeff_type = TensorType(element, [m // 2])
        coefficients = [h.const(np.cos(angle).astype(dtype), coeff_type),
                        h.const(np.sin(angle).astype(dtype), coeff_type)]
        index = h.sink.add(arith.ConstantOp.create(result_types=[IndexType()],
                                                   properties={"value": IntegerAttr(stage, IndexType())}))
        stage_op = LinalgExtFftOp.build(operands=[[index, *coefficients], [re, im]], result_types=[[re.type, im.type]])
        h.sink.add(stage_op)
        re, im = stage_op.results
    return Pair(re, im)


def _dft_matmul(h, z, n, keep, inverse):
    """``z @ W`` with ``W[j, k] = exp(-+2 pi i j k / n)``, ``k < keep``: four real matmuls."""
    element = z.re.type.get_element_type()
    dtype = storage_dtype(element)
    sign = 1.0 if inverse else -1.0
    angle = sign * 2.0 * np.pi * (np.outer(np.arange(n), np.arange(keep)) % n) / n
    matrix_type = TensorType(element, [n, keep])
    w_re, w_im = (h.const(v.astype(dtype), matrix_type) for v in (np.cos(angle), np.sin(angle)))
    rank = z.re.type.get_num_dims()
    out_type = _with_last(z.re.type, keep)
    dims = hlo.DotDimensionNumbersAttr(ArrayAttr([]), ArrayAttr([]), ArrayAttr([IntegerAttr(rank - 1, i64)]),
                                       ArrayAttr([IntegerAttr(0, i64)]))

    def dot(x, w):
        return h.op(hlo.DotGeneralOp, [x, w], out_type, dot_dimension_numbers=dims)
    if z.im is None:  # real input (RFFT): two products
        return Pair(dot(z.re, w_re), dot(z.re, w_im))
    return Pair(h.sub(dot(z.re, w_re), dot(z.im, w_im)), h.add(dot(z.re, w_im), dot(z.im, w_re)))
