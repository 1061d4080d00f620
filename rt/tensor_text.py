"""IREE's textual tensor syntax: ``--input=`` specs in, ``iree-run-module`` style text out.

Inputs (iree/hal/string_util.c, iree-run-module ``--input``):

* ``2x3xf32=1,2,3,4,5,6`` or ``2x3xf32=[1 2 3][4 5 6]``: shape, element type, values
  separated by spaces, commas or brackets;
* ``4xf32=0.5``: one value for several elements is a splat; ``4xf32`` alone is zeros;
* ``i32=4`` / ``f32=2.5``: a typed scalar (a rank-0 tensor where the function takes a tensor);
  a bare ``2.5`` or ``4`` takes the type of the function's argument;
* ``@x.npy``: the next array of a ``.npy`` file (repeating ``@x.npy`` reads the following
  array, as IREE does); ``2x3xf32=@x.bin``: raw little-endian bytes.

Outputs: ``2x2xf32=[1 2][3 4]`` (rows bracketed, elements space-separated, floats ``%G``; bf16
and f8 values as floats, i4 as integers), ``4xi32=1 2 3 4``, scalars ``i32=4``;
``--output=@y.npy`` writes, ``--output=+y.npy`` appends. .npy has no bf16/f8/int4 types: bf16
and f8 are saved as raw ``|V2`` / ``|V1`` bits (as iree-run-module saves them) and read back as
the argument's type; i4/i2 are saved as int8 (uint8 for ui4/ui2), one value per byte.
Errors: InvalidArgumentError naming the spec, what is wrong and the expected form.
"""
import os
import re

import ml_dtypes
import numpy as np

from rt.abi import ELEMENT_TYPES, dtype_is_float, dtype_name, numpy_dtype
from rt.runtime.hal.element_type import is_sub_byte, packed_byte_count, unpack_sub_byte
from rt.runtime.errors import InvalidArgumentError, NotFoundError, UnimplementedError

#: iree-run-module's default ``--print_max_element_count``.
MAX_PRINTED_ELEMENTS = 1024
_TYPE = re.compile(r"(?:(\d+(?:x\d+)*)x)?([A-Za-z][\w<>]*)")
_SEPARATORS = re.compile(r"[\s,\[\]]+")
FORM = "SHAPExTYPE=VALUES (e.g. 2x3xf32=1,2,3,4,5,6), TYPE=VALUE (i32=4), a number, or @file.npy"


def _split_type(head, spec):
    """``"2x3xf32"`` -> ((2, 3), "f32"); ``"i32"`` -> ((), "i32")."""
    m = _TYPE.fullmatch(head)
    if m is None or m.group(2) not in ELEMENT_TYPES:
        raise InvalidArgumentError(f"--input={spec}: {head!r} is not SHAPExTYPE or TYPE; expected {FORM} "
                                   "with TYPE e.g. f16, bf16, f32, f64, f8E4M3FN, i1, i4, i8, i16, i32, i64, index, si32, ui8")
    return tuple(int(d) for d in (m.group(1) or "").split("x") if d), m.group(2)


def _parse_value(token, element, spec):
    try:
        if element in ("f16", "f32", "f64") or (element in ELEMENT_TYPES and dtype_is_float(numpy_dtype(element))):
            return float(token)
        if element == "i1" and token.lower() in ("true", "false"):
            return token.lower() == "true"
        return int(token, 0)
    except ValueError:
        raise InvalidArgumentError(f"--input={spec}: {token!r} is not a valid {element} value") from None


def _values(text, shape, element, spec):
    dtype = numpy_dtype(element)
    count = int(np.prod(shape, dtype=np.int64))
    tokens = [t for t in _SEPARATORS.split(text) if t]
    if not tokens:
        return np.zeros(shape, dtype)
    values = [_parse_value(t, element, spec) for t in tokens]
    if len(values) == 1 and count != 1:
        values = values * count
    if len(values) != count:
        raise InvalidArgumentError(f"--input={spec}: {len(values)} values for a {count}-element tensor; "
                                   "give every element or one value to splat")
    if dtype.kind == "V" and not dtype_is_float(dtype):
        info = ml_dtypes.iinfo(dtype)
        if not all(info.min <= v <= info.max for v in values):
            raise InvalidArgumentError(f"--input={spec}: a value is out of range of {element} "
                                       f"({info.min}..{info.max})")
    try:
        with np.errstate(over="raise"):
            array = np.array(values, dtype=dtype)
    except (OverflowError, FloatingPointError):
        raise InvalidArgumentError(f"--input={spec}: a value does not fit {element}") from None
    return array.reshape(shape)


class NpyReader:
    """Reads successive arrays of ``.npy`` files for repeated ``@file.npy`` inputs."""

    def __init__(self):
        self._files = {}

    def next_array(self, path, spec):
        f = self._files.get(path)
        if f is None:
            try:
                f = self._files[path] = open(path, "rb")
            except FileNotFoundError:
                raise NotFoundError(f"--input={spec}: file {path!r} does not exist") from None
            except OSError as e:
                raise InvalidArgumentError(f"--input={spec}: cannot open {path!r}: {e.strerror}") from None
        try:
            return np.load(f, allow_pickle=False)
        except EOFError:
            raise InvalidArgumentError(f"--input={spec}: {path!r} has no more arrays (each @{path} reads "
                                       "the next one)") from None
        except ValueError as e:
            raise InvalidArgumentError(f"--input={spec}: {path!r} is not a .npy file: {e}") from None

    def close(self):
        for f in self._files.values():
            f.close()
        self._files.clear()


def parse_input(spec, arg=None, npy=None):
    """Parse one ``--input`` spec for argument ``arg`` (an ``rt.abi.ArgType`` or None).

    Returns a numpy array for tensors and a Python int/float for scalars. ``npy``: an
    NpyReader shared by all inputs of one run.
    """
    text = spec.strip()
    if not text:
        raise InvalidArgumentError(f"--input= is empty; expected {FORM}")
    if text.startswith("@"):
        return _typed_npy((npy or NpyReader()).next_array(text[1:], spec), arg)
    head, sep, data = text.partition("=")
    if not sep:
        if arg is not None and arg.kind == "scalar":
            return _parse_value(text, arg.element, spec)
        number = _number(text)
        if number is not None:
            return number
    shape, element = _split_type(head.strip(), spec)
    if data.startswith("@"):
        return _raw_file(data[1:], shape, element, spec)
    if not shape and sep and (arg is None or arg.kind == "scalar"):
        return _parse_value(data.strip(), element, spec)
    return _values(data, shape, element, spec)


def _typed_npy(array, arg):
    """A raw ``|V2`` / ``|V1`` .npy array (how iree-run-module and :func:`write_output` save bf16
    and f8) read as the argument's type when the widths agree."""
    if array.dtype.kind == "V" and arg is not None and arg.element in ELEMENT_TYPES:
        target = numpy_dtype(arg.element)
        if dtype_is_float(target) and target.itemsize == array.dtype.itemsize:
            return array.view(target)
    return array


def _number(text):
    """``text`` as a Python int or float, or None if it is neither."""
    for parse in (lambda t: int(t, 0), float):
        try:
            return parse(text)
        except ValueError:
            pass
    return None


def _raw_file(path, shape, element, spec):
    dtype = numpy_dtype(element)
    try:
        raw = np.fromfile(path, dtype=np.uint8)
    except FileNotFoundError:
        raise NotFoundError(f"--input={spec}: file {path!r} does not exist") from None
    element_type = ELEMENT_TYPES[element]
    need = packed_byte_count(element_type, int(np.prod(shape, dtype=np.int64)))
    if raw.size != need:
        raise InvalidArgumentError(f"--input={spec}: {path!r} has {raw.size} bytes; "
                                   f"{'x'.join(map(str, shape)) or 'a scalar'} of {element} needs {need}")
    if is_sub_byte(element_type):  # packed as a buffer stores it, two i4 per byte
        return unpack_sub_byte(raw, element_type, shape)
    return raw.view(dtype).reshape(shape)


def _element_text(value, kind):
    if kind == "f":
        return "%G" % value
    if kind == "b":
        return "1" if value else "0"
    return str(value)


def _nested(array, kind, budget):
    """Bracketed rows of ``array``; ``budget`` = [elements left]; stops with ``...``."""
    if array.ndim == 1:
        items = [_element_text(v, kind) for v in array[:budget[0]].tolist()]
        budget[0] -= len(items)
        if len(items) < array.shape[0]:
            budget[0] = -1
            return " ".join(items) + "..."
        return " ".join(items)
    parts = []
    for row in array:
        parts.append("[" + _nested(row, kind, budget) + ("" if budget[0] < 0 else "]"))
        if budget[0] < 0:
            break
    return "".join(parts)


def format_tensor(array, element=None, max_elements=MAX_PRINTED_ELEMENTS):
    """``2x2xf32=[1 2][3 4]`` for a numpy array (``element``: MLIR name, default from dtype);
    a dry run's ``rt.NotComputed`` prints as ``2x2xf32=<not computed>``."""
    from rt.not_computed import NotComputed

    if isinstance(array, NotComputed):
        return str(array)
    array = np.asarray(array)
    element = element or dtype_name(array.dtype)
    if array.dtype.kind == "V":  # ml_dtypes (bf16, f8, i4): printed as iree-run-module does
        array = array.astype(np.float32 if dtype_is_float(array.dtype) else np.int64)
    kind = array.dtype.kind
    head = "x".join([str(d) for d in array.shape] + [element])
    if array.ndim == 0:
        return f"{head}={_element_text(array.item(), kind)}"
    return f"{head}={_nested(array, kind, [max_elements])}"


def format_scalar(value, element):
    """``i32=4`` / ``f32=2.5`` for a scalar result of MLIR type ``element``."""
    kind = "f" if isinstance(value, float) else "b" if isinstance(value, bool) else "i"
    return f"{element}={_element_text(value, kind)}"


def write_output(spec, array):
    """Handle ``--output=@path.npy`` (write) or ``--output=+path.npy`` (append)."""
    mode = {"@": "wb", "+": "ab"}.get(spec[:1])
    path = spec[1:]
    if mode is None or not path:
        raise InvalidArgumentError(f"--output={spec}: expected @FILE.npy (write) or +FILE.npy (append), "
                                   "or '-' to print")
    if not isinstance(array, np.ndarray):
        array = np.asarray(array)
    if array.dtype.kind == "V":  # ml_dtypes: .npy has no names for them
        if dtype_is_float(array.dtype):  # bf16 / f8: their bits, as iree-run-module saves them
            array = array.view(f"V{array.dtype.itemsize}")
        else:  # i4 / i2: one integer per byte
            array = array.astype(np.int8 if ml_dtypes.iinfo(array.dtype).min < 0 else np.uint8)
    try:
        with open(path, mode) as f:
            np.save(f, array, allow_pickle=False)
    except OSError as e:
        raise InvalidArgumentError(f"--output={spec}: cannot write {path!r}: {e.strerror}") from None
    except ValueError as e:
        raise UnimplementedError(f"--output={spec}: cannot save this result as .npy: {e}") from None
    return os.path.abspath(path)
