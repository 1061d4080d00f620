"""Complex dense literals: ``dense<[(re, im), ...]> : tensor<Nxcomplex<fN>>`` parse into complex64 /
complex128 payloads, print back in MLIR's form, and bad literals are located errors."""
import numpy as np
import pytest

import rt
from rt.compiler.dialects import stablehlo as hlo
from rt.compiler.frontend import elements_to_numpy, parse_module


def _constant(text):
    module = parse_module(f"func.func @f() {{\n  %c = stablehlo.constant {text}\n  return\n}}\n")
    op = next(op for op in module.walk() if isinstance(op, hlo.ConstantOp))
    return module, op.attributes["value"]


@pytest.mark.parametrize("element, dtype", [("f32", np.complex64), ("f64", np.complex128)])
def test_complex_literal_values_and_round_trip(element, dtype):
    module, attr = _constant(f"dense<[[(1.5,-2.0), (0.0,3.25)], [(-1.0,0.5), (2.0,0.0)]]> "
                             f": tensor<2x2xcomplex<{element}>>")
    values = elements_to_numpy(attr)
    assert values.dtype == dtype
    np.testing.assert_array_equal(values, np.array([[1.5 - 2j, 3.25j], [-1 + 0.5j, 2]], dtype))
    printed = str(module)
    assert f"(1.500000e+00,-2.000000e+00)" in printed
    again = next(op for op in parse_module(printed).walk() if isinstance(op, hlo.ConstantOp))
    np.testing.assert_array_equal(elements_to_numpy(again.attributes["value"]), values)


def test_complex_splat_literal():
    _, attr = _constant("dense<(1.0,2.0)> : tensor<3xcomplex<f32>>")
    np.testing.assert_array_equal(elements_to_numpy(attr), np.full(3, 1 + 2j, np.complex64))


@pytest.mark.parametrize("literal, message", [
    ("dense<[1.0, 2.0]> : tensor<2xcomplex<f32>>", "complex literal (re, im) and element type complex<f32>"),
    ("dense<[(1.0,2.0)]> : tensor<1xf32>", "complex literal (re, im) and element type f32"),
    ("dense<[(1.0,2.0)]> : tensor<1xcomplex<f16>>", "constants of element type complex<f16> are not supported"),
    ("dense<[(1.0e40,2.0)]> : tensor<1xcomplex<f32>>", "out of range for f32"),
])
def test_bad_complex_literals_are_located_errors(literal, message):
    with pytest.raises(rt.CompileError, match="<input>:2:") as info:
        _constant(literal)
    assert message in str(info.value)
