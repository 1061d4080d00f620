"""IREE's textual tensor syntax: ``--input=`` specs in, ``iree-run-module`` style text out.

Inputs (iree/hal/string_util.c, iree-run-module ``--input``):

* ``2x3xf32=1,2,3,4,5,6`` or ``2x3xf32=[1 2 3][4 5 6]``: shape, element type, values
  separated by spaces, commas or brackets;
* ``4xf32=0.5``: one value for several elements is a splat; ``4xf32`` alone is zeros;
* ``i32=4`` / ``f32=2.5``: a typed scalar (a rank-0 tensor where the function takes a tensor);
  a bare ``2.5`` or ``4`` takes the type of the function's argument;
* ``@x.npy``: the first array of a ``.npy`` file; ``+x.npy``: the array after the one the
  previous ``@x.npy`` / ``+x.npy`` of the same path read (so ``--input=@a.npy --input=@a.npy``
  passes the first array twice and ``--input=@a.npy --input=+a.npy`` the first two);
  ``2x3xf32=@x.bin`` / ``2x3xf32=+x.bin``: raw little-endian bytes from the file's start / from
  where the previous read of that path stopped. As IREE's iree_io_stream_list_open
  (runtime/src/iree/tooling/function_io.c): ``@`` seeks to 0, ``+`` continues.

Outputs: ``2x2xf32=[1 2][3 4]`` (rows bracketed, elements space-separated, floats ``%G``; bf16
and f8 values as floats, i4 as integers), ``4xi32=1 2 3 4``, scalars ``i32=4``. ``--output=``
(empty) drops the result, ``-`` prints it, ``@FILE`` writes and ``+FILE`` appends: ``.npy``
an ndarray, any other name (``.bin``, ``.txt`` too) the raw bytes of the buffer (packed as the
buffer holds sub-byte types), as iree-run-module 3.13 writes them (measured, and
iree_tooling_write_variant_to_file in runtime/src/iree/tooling/function_io.c). .npy has no bf16/f8/int4
types: bf16 and f8 are saved as raw ``|V2`` / ``|V1`` bits (as iree-run-module saves them) and
read back as the argument's type; i4/i2 are saved as int8 (uint8 for ui4/ui2), one value per
byte. Files are replaced whole (rt.runtime.atomic_write).
Errors: InvalidArgumentError naming the spec, what is wrong and the expected form.
"""
import io
import os
import re

import numpy as np

from rt.abi import ELEMENT_TYPES, dtype_is_float, dtype_name, numpy_dtype
from rt.runtime.atomic_write import atomic_file
from rt.runtime.hal.buffer_view_text import MAX_PRINTED_ELEMENTS, element_text, format_array
from rt.runtime.hal.element_type import (dtype_to_element_type, is_sub_byte, pack_sub_byte,
                                           packed_byte_count, unpack_sub_byte)
from rt.runtime.errors import InvalidArgumentError, NotFoundError, UnimplementedError

_TYPE = re.compile(r"(?:(\d+(?:x\d+)*)x)?([A-Za-z][\w<>]*)")
_SEPARATORS = re.compile(r"[\s,\[\]]+")
FORM = ("SHAPExTYPE=VALUES (e.g. 2x3xf32=1,2,3,4,5,6), TYPE=VALUE (i32=4), a number, @file.npy, +file.npy "
        "or SHAPExTYPE=@file.bin")


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
        import ml_dtypes  # a sub-byte integer: ml_dtypes is loaded already

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
    """The input files of one run, each read from where the previous ``+`` read of that path
    stopped (IREE's stream list: ``@`` reopens at offset 0, ``+`` continues)."""

    def __init__(self):
        self._files = {}

    def _open(self, path, spec, append):
        f = self._files.get(path)
        if f is None:
            try:
                f = self._files[path] = open(path, "rb")
            except FileNotFoundError:
                raise NotFoundError(f"--input={spec}: file {path!r} does not exist") from None
            except OSError as e:
                raise InvalidArgumentError(f"--input={spec}: cannot open {path!r}: {e.strerror}") from None
        elif not append:
            f.seek(0)
        return f

    def next_array(self, path, spec, append=False):
        """The array of ``.npy`` file ``path`` at its start (``append`` False) or after the
        previous read; InvalidArgumentError when there is none or the file is not ``.npy``."""
        f = self._open(path, spec, append)
        try:
            return np.load(f, allow_pickle=False)
        except EOFError:
            raise InvalidArgumentError(f"--input={spec}: {path!r} has no more arrays (@{path} reads the first "
                                       f"array, each +{path} the next one)") from None
        except ValueError as e:
            raise InvalidArgumentError(f"--input={spec}: {path!r} is not a .npy file: {e}") from None

    def read_bytes(self, path, spec, count, append=False):
        """``count`` bytes of ``path`` from its start or from where the previous read stopped."""
        f = self._open(path, spec, append)
        offset = f.tell()
        data = f.read(count)
        if len(data) != count:
            raise InvalidArgumentError(f"--input={spec}: {path!r} has {len(data)} bytes after offset {offset}; "
                                       f"needs {count}")
        return data

    def close(self):
        for f in self._files.values():
            f.close()
        self._files.clear()


def parse_input(spec, arg=None, npy=None):
    """Parse one ``--input`` spec for argument ``arg`` (an ``rt.abi.ArgType`` or None).

    Returns a numpy array for tensors and a Python int/float for scalars. ``npy``: an
    NpyReader shared by all inputs of one run (``+file`` continues where it stopped).
    """
    if npy is None:
        npy = NpyReader()
        try:
            return parse_input(spec, arg, npy)
        finally:
            npy.close()
    text = spec.strip()
    if not text:
        raise InvalidArgumentError(f"--input= is empty; expected {FORM}")
    if text[:1] in "@+":
        return _typed_npy(npy.next_array(text[1:], spec, append=text[0] == "+"), arg)
    head, sep, data = text.partition("=")
    if not sep:
        if arg is not None and arg.kind == "scalar":
            return _parse_value(text, arg.element, spec)
        number = _number(text)
        if number is not None:
            return number
    shape, element = _split_type(head.strip(), spec)
    if data[:1] in ("@", "+"):
        return _raw_file(npy, data, shape, element, spec)
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


def _raw_file(npy, data, shape, element, spec):
    """``SHAPExTYPE=@path`` / ``=+path``: the tensor's bytes as a buffer holds them."""
    element_type = ELEMENT_TYPES[element]
    need = packed_byte_count(element_type, int(np.prod(shape, dtype=np.int64)))
    raw = np.frombuffer(npy.read_bytes(data[1:], spec, need, append=data[0] == "+"), np.uint8)
    if is_sub_byte(element_type):  # packed as a buffer stores it, two i4 per byte
        return unpack_sub_byte(raw, element_type, shape)
    return raw.view(numpy_dtype(element)).reshape(shape).copy()


def format_tensor(array, element=None, max_elements=MAX_PRINTED_ELEMENTS):
    """``2x2xf32=[1 2][3 4]`` for a numpy array (``element``: MLIR name, default from dtype);
    a dry run's ``rt.NotComputed`` prints as ``2x2xf32=<not computed>``."""
    from rt.not_computed import NotComputed

    if isinstance(array, NotComputed):
        return str(array)
    array = np.asarray(array)
    return format_array(array, element or dtype_name(array.dtype), max_elements)


def format_scalar(value, element):
    """``i32=4`` / ``f32=2.5`` for a scalar result of MLIR type ``element``."""
    kind = "f" if isinstance(value, float) else "b" if isinstance(value, bool) else "i"
    return f"{element}={element_text(value, kind)}"


def output_kind(spec):
    """What ``--output=SPEC`` does: ``"drop"`` (empty), ``"print"`` (``-``), or ``(mode, path,
    format)`` with mode ``"wb"`` (``@``) / ``"ab"`` (``+``) and format ``npy`` for a ``.npy``
    file, else ``bin`` (raw bytes), as iree-run-module decides.
    InvalidArgumentError for a spec that is none of these."""
    if spec == "":
        return "drop"
    if spec == "-":
        return "print"
    mode = {"@": "wb", "+": "ab"}.get(spec[:1])
    path = spec[1:]
    if mode is None or not path:
        raise InvalidArgumentError(f"--output={spec}: expected @FILE (write) or +FILE (append) with FILE .npy "
                                   "(an ndarray) or any other name (raw bytes), '-' to print, or empty to drop")
    return mode, path, "npy" if path.endswith(".npy") else "bin"


def result_text(value, element, max_elements=MAX_PRINTED_ELEMENTS):
    """A result as iree-run-module prints it after ``result[i]: ``: ``hal.buffer_view`` and the
    tensor on the next line, or ``i32=4`` for a scalar (``element``: its MLIR type)."""
    from rt.not_computed import NotComputed

    if isinstance(value, (bool, int, float)):
        return format_scalar(value, element)
    array = value if isinstance(value, NotComputed) else np.asarray(value)  # a dry run's result has no values
    return "hal.buffer_view\n" + format_tensor(array, element if element and element != "index" else None,
                                               max_elements)


def _as_array(value, element):
    if isinstance(value, np.ndarray):
        return value
    if element in ELEMENT_TYPES:
        return np.asarray(value, dtype=numpy_dtype(element))
    return np.asarray(value)


def _npy_bytes(array, spec):
    if array.dtype.kind == "V":  # ml_dtypes: .npy has no names for them
        if dtype_is_float(array.dtype):  # bf16 / f8: their bits, as iree-run-module saves them
            array = array.view(f"V{array.dtype.itemsize}")
        else:  # i4 / i2: one integer per byte
            import ml_dtypes  # loaded already: the array is of one of its types

            array = array.astype(np.int8 if ml_dtypes.iinfo(array.dtype).min < 0 else np.uint8)
    out = io.BytesIO()
    try:
        np.save(out, array, allow_pickle=False)
    except ValueError as e:
        raise UnimplementedError(f"--output={spec}: cannot save this result as .npy: {e}") from None
    return out.getvalue()


def _raw_bytes(array):
    element_type = dtype_to_element_type(array.dtype) if array.dtype.kind == "V" else None
    if element_type is not None and is_sub_byte(element_type):
        return pack_sub_byte(array, element_type).tobytes()
    return np.ascontiguousarray(array).tobytes()


def write_output(spec, value, element=None):
    """Write one result for ``--output=@FILE`` / ``+FILE`` (:func:`output_kind`).

    value: a numpy array (any shape and dtype) or a Python scalar of MLIR type ``element``.
    ``.npy``: an ndarray; others: the raw bytes.
    The file is replaced whole (rt.runtime.atomic_write). Returns the absolute path written.
    Raises InvalidArgumentError for a bad spec or an unwritable path.
    """
    kind = output_kind(spec)
    if not isinstance(kind, tuple):
        raise InvalidArgumentError(f"--output={spec}: expected @FILE or +FILE here")
    mode, path, fmt = kind
    if fmt == "npy":
        data = _npy_bytes(_as_array(value, element), spec)
    else:
        data = _raw_bytes(_as_array(value, element))
    try:
        with atomic_file(path, mode) as f:
            f.write(data)
    except InvalidArgumentError as e:
        raise InvalidArgumentError(f"--output={spec}: {e}") from None
    return os.path.abspath(path)
