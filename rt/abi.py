"""The calling ABI of exported functions as the Python API sees it (docs/compiled_module_abi.md).

Each export carries ``rt.abi`` reflection: ``{"args": [ARG...], "results": [ARG...]}`` with
ARG ``{"name", "type", "kind": "tensor"|"scalar", "shape": [int|null...], "dtype",
"encoding"}``, ``{"name", "kind": "fence"}`` or ``{"name", "kind": "ref"}`` (a buffer view of
unknown type). :class:`FunctionABI` reads it (or, for modules without it, derives an untyped
ABI from the cconv), checks Python arguments against it before the call and names the
argument and the declared type when they do not match, e.g.
``input 1 of @foo: expected tensor<?x8xf32>, got 4x7xf32``.
Modelled on IREE's ``iree.abi`` reflection (compiler/src/iree/compiler/Bindings/Native/
Transforms/WrapEntryPoints.cpp) and the argument checks of iree-run-module.

Element types are MLIR names (``f32``, ``i8``, ``si32``, ``i1``, ``index``); signless
integers accept numpy arrays of either signedness of the same width; ``index`` is i64.
Types numpy lacks take ``ml_dtypes`` arrays (IREE's Python bindings do the same):
``bf16`` -> ``ml_dtypes.bfloat16``, ``f8E4M3FN`` -> ``float8_e4m3fn`` (and ``f8E5M2``,
``f8E4M3FNUZ``, ``f8E5M2FNUZ``, ``f8E8M0FNU``), ``i4``/``si4`` -> ``int4``, ``ui4`` -> ``uint4``
(``i2``/``ui2`` likewise); a signless ``i4``/``i2`` also takes the unsigned dtype. Plain numpy
integer arrays are accepted for sub-byte types when every value is in range (checked: an
InvalidArgumentError names the argument and the range). Results come back in these dtypes;
``ml_dtypes`` is imported only when one of them is involved.
"""
import functools
import json
import re

import numpy as np

from rt.runtime.errors import InvalidArgumentError, ModuleFormatError, UnimplementedError
from rt.runtime.hal.element_type import ElementType, element_type_name, element_type_to_dtype

#: MLIR element type name -> HAL element type (``index`` is stored as i64, as IREE does).
ELEMENT_TYPES = {element_type_name(e): e for e in ElementType if not element_type_name(e).startswith("0x")}
ELEMENT_TYPES["index"] = ElementType.INT_64

#: cconv letter -> scalar type name, for modules without ``rt.abi`` reflection.
_LETTER_TYPES = {"i": "i32", "I": "i64", "f": "f32", "F": "f64"}
_INT_TYPES = {"index", "i64", "i32", "i16", "i8", "i1", "si64", "si32", "si16", "si8", "ui64", "ui32",
              "ui16", "ui8"}
_FLOAT_TYPES = {"f64", "f32", "f16", "bf16", "f8E5M2", "f8E4M3FN", "f8E5M2FNUZ", "f8E4M3FNUZ", "f8E8M0FNU"}


_DTYPE_NAMES = {np.dtype(np.bool_): "i1", np.dtype(np.int8): "i8", np.dtype(np.uint8): "ui8",
                np.dtype(np.int16): "i16", np.dtype(np.uint16): "ui16", np.dtype(np.int32): "i32",
                np.dtype(np.uint32): "ui32", np.dtype(np.int64): "i64", np.dtype(np.uint64): "ui64",
                np.dtype(np.float16): "f16", np.dtype(np.float32): "f32", np.dtype(np.float64): "f64"}
#: ml_dtypes type name -> MLIR element name, for the types numpy lacks
_ML_DTYPE_NAMES = {"bfloat16": "bf16", "float8_e5m2": "f8E5M2", "float8_e4m3fn": "f8E4M3FN",
                   "float8_e5m2fnuz": "f8E5M2FNUZ", "float8_e4m3fnuz": "f8E4M3FNUZ",
                   "float8_e8m0fnu": "f8E8M0FNU", "int4": "i4", "uint4": "ui4", "int2": "i2", "uint2": "ui2"}
#: signless sub-byte element -> the ml_dtypes types it accepts (either signedness).
_SUB_BYTE_SIGNLESS = {"i4": ("int4", "uint4"), "i2": ("int2", "uint2")}


@functools.cache
def _ml_dtype(name):
    """``np.dtype(ml_dtypes.<name>)``, importing ml_dtypes on first use."""
    import ml_dtypes

    return np.dtype(getattr(ml_dtypes, name))


def dtype_is_float(dtype):
    """True for numpy floating dtypes and ml_dtypes' floating ones (bfloat16, float8_*)."""
    dtype = np.dtype(dtype)
    return dtype.kind == "f" or (dtype.kind == "V" and dtype.name.startswith(("bfloat", "float")))


def is_sub_byte_element(element):
    """True for the MLIR element names stored several to a byte (i2/si2/ui2, i4/si4/ui4)."""
    return element in ("i2", "si2", "ui2", "i4", "si4", "ui4")


def dtype_name(dtype):
    """MLIR spelling of a numpy dtype (``float32`` -> ``f32``), or its numpy name."""
    dtype = np.dtype(dtype)
    name = _DTYPE_NAMES.get(dtype)
    if name is None:
        name = next((mlir for ml, mlir in _ML_DTYPE_NAMES.items() if _ml_dtype(ml) == dtype), str(dtype))
    return name


def type_text(shape, element):
    """``4x7xf32`` for shape (4, 7) and element ``f32``; ``?`` for unknown dims."""
    return "x".join(["?" if d is None else str(d) for d in shape] + [element])


def numpy_dtype(element):
    """numpy dtype for MLIR element type ``element``; UnimplementedError if numpy has none."""
    if element not in ELEMENT_TYPES:
        raise UnimplementedError(f"element type {element!r} is not supported by the Python API; "
                                 "expected one of " + ", ".join(sorted(ELEMENT_TYPES)))
    return element_type_to_dtype(ELEMENT_TYPES[element])


@functools.lru_cache(maxsize=256)
def dtype_accepted(element, dtype):
    """True if a numpy array of ``dtype`` may be passed for elements of type ``element``
    (cached: it is asked for every tensor argument of every call)."""
    dtype = np.dtype(dtype)
    if element == "i1":
        return dtype == np.bool_ or dtype in (np.int8, np.uint8)
    if element == "index":
        return dtype in (np.int64, np.uint64)
    if re.fullmatch(r"i(8|16|32|64)", element):
        return dtype.kind in "iu" and dtype.itemsize * 8 == int(element[1:])
    if element in _SUB_BYTE_SIGNLESS:
        return dtype in [_ml_dtype(d) for d in _SUB_BYTE_SIGNLESS[element]]
    try:
        return numpy_dtype(element) == dtype
    except UnimplementedError:
        return False


class ArgType:
    """One argument or result of an export.

    kind: "tensor", "scalar", "fence" (IREE's coarse-fences ABI: a wait or signal
    ``!hal.fence``) or "ref" (a non-tensor ref without reflection); name; type (the
    MLIR type text); shape: tuple of int or None (dynamic) for tensors; element: MLIR element
    type name or None when unknown; encoding: None or the encoding attribute text; device:
    ordinal of the device the value lives on.
    """

    __slots__ = ("kind", "name", "type", "shape", "element", "encoding", "device")

    def __init__(self, kind, name, type_, shape=None, element=None, encoding=None, device=0):
        self.kind, self.name, self.type = kind, name, type_
        self.shape, self.element, self.encoding, self.device = shape, element, encoding, device

    @property
    def element_type(self):
        """HAL ElementType for the declared element, or None when unknown."""
        return ELEMENT_TYPES.get(self.element)

    def __repr__(self):
        return f"ArgType({self.name}: {self.type})"


def _parse_arg(entry, where):
    if not isinstance(entry, dict) or not isinstance(entry.get("kind"), str):
        raise ModuleFormatError(f"{where}: expected an object with a 'kind', got {entry!r:.80}")
    name = entry.get("name") if isinstance(entry.get("name"), str) else ""
    if entry["kind"] == "fence":
        return ArgType("fence", name, "!hal.fence")
    if entry["kind"] == "ref":
        return ArgType("ref", name, "!hal.buffer_view (type unknown)")
    type_ = entry.get("type")
    element = entry.get("dtype")
    device = entry.get("device", 0)
    if not isinstance(type_, str) or not isinstance(element, str) or type(device) is not int or device < 0:
        raise ModuleFormatError(f"{where}: 'type' and 'dtype' must be strings and 'device' an "
                                f"ordinal >= 0, got {entry!r:.120}")
    if entry["kind"] == "scalar":
        if element not in _INT_TYPES | _FLOAT_TYPES:
            raise ModuleFormatError(f"{where}: scalar dtype {element!r} is not an integer, index or "
                                    "float type")
        return ArgType("scalar", name, type_, element=element, device=device)
    if entry["kind"] != "tensor":
        raise ModuleFormatError(f"{where}: kind {entry['kind']!r}; expected 'tensor' or 'scalar'")
    shape = entry.get("shape")
    if not isinstance(shape, list) or not all(d is None or (type(d) is int and d >= 0) for d in shape):
        raise ModuleFormatError(f"{where}: 'shape' must be a list of dims (int >= 0 or null), "
                                f"got {shape!r:.80}")
    encoding = entry.get("encoding")
    return ArgType("tensor", name, type_, tuple(shape), element,
                   None if encoding is None else str(encoding), device)


class FunctionABI:
    """Arguments and results of one export, and the checks the API runs before calling it.

    name: export name; args / results: lists of :class:`ArgType`; declaration: the source
    declaration (``iree.abi.declaration``) or a cconv-derived one; source: ``file:line:col``
    or None; typed: False when derived from the cconv only.
    """

    def __init__(self, name, args, results, declaration, source=None, typed=True):
        self.name, self.args, self.results = name, list(args), list(results)
        self.declaration, self.source, self.typed = declaration, source, typed

    @classmethod
    def from_function(cls, function):
        """The ABI of ``function`` (a vm ``FunctionDef``); ModuleFormatError if malformed."""
        refl = function.reflection
        sig = function.signature
        where = f"rt.abi reflection of @{function.name}"
        text = refl.get("rt.abi")
        if text is None:
            args = [_untyped(letter, f"arg{k}") for k, letter in enumerate(sig.args)]
            results = [_untyped(letter, f"result{k}") for k, letter in enumerate(sig.results)]
            decl = refl.get("iree.abi.declaration") or f"func @{function.name} (cconv {sig.text})"
            return cls(function.name, args, results, decl, refl.get("rt.source"), typed=False)
        try:
            data = json.loads(text)
        except ValueError as e:
            raise ModuleFormatError(f"{where} is not JSON: {e}") from None
        if not isinstance(data, dict) or not isinstance(data.get("args"), list) or \
                not isinstance(data.get("results"), list):
            raise ModuleFormatError(f"{where}: expected {{\"args\": [...], \"results\": [...]}}")
        args = [_parse_arg(a, f"{where} args[{k}]") for k, a in enumerate(data["args"])]
        results = [_parse_arg(a, f"{where} results[{k}]") for k, a in enumerate(data["results"])]
        _check_cconv(function.name, args, sig.args, "arguments", where)
        _check_cconv(function.name, results, sig.results, "results", where)
        decl = refl.get("iree.abi.declaration") or f"func @{function.name}"
        return cls(function.name, args, results, decl, refl.get("rt.source"))

    def check_count(self, count):
        """InvalidArgumentError unless ``count`` arguments were given."""
        if count != len(self.args):
            listed = ", ".join(f"{a.name or k}: {a.type}" for k, a in enumerate(self.args)) or "none"
            raise InvalidArgumentError(f"@{self.name} takes {len(self.args)} input(s) ({listed}), "
                                       f"got {count}")

    def mismatch(self, index, got):
        """InvalidArgumentError ``input <index> of @name: expected <type>, got <got>``."""
        return InvalidArgumentError(f"input {index} of @{self.name}: expected {self.args[index].type}, "
                                    f"got {got}")

    def check_tensor(self, index, shape, dtype):
        """Check a host array's shape/dtype against tensor argument ``index``."""
        arg = self.args[index]
        if arg.kind == "scalar":
            raise self.mismatch(index, f"a {type_text(shape, dtype_name(dtype))} array")
        if (arg.shape is not None and (len(shape) != len(arg.shape) or any(
                d is not None and d != s for d, s in zip(arg.shape, shape)))) or \
                (arg.element is not None and not dtype_accepted(arg.element, dtype)):
            raise self.mismatch(index, type_text(shape, dtype_name(dtype)))

    def check_view(self, index, shape, element_type):
        """Check a buffer view's shape and HAL element type against tensor argument ``index``."""
        arg = self.args[index]
        got = type_text(shape, element_type_name(element_type))
        if arg.kind == "scalar" or (arg.shape is not None and (len(shape) != len(arg.shape) or any(
                d is not None and d != s for d, s in zip(arg.shape, shape)))):
            raise self.mismatch(index, got)
        if arg.element_type is not None and arg.element_type != element_type:
            raise self.mismatch(index, got)

    def check_scalar(self, index, value):
        """The Python number to pass for scalar argument ``index`` (checked, converted)."""
        arg = self.args[index]
        if arg.kind != "scalar":
            raise self.mismatch(index, f"{type(value).__name__} {value!r:.40}")
        if isinstance(value, np.generic):
            value = value.item()
        if arg.element in _FLOAT_TYPES:
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise self.mismatch(index, f"{type(value).__name__} {value!r:.40}")
            return float(value)
        if isinstance(value, bool):
            if arg.element == "i1":
                return int(value)
            raise self.mismatch(index, f"bool {value!r}")
        if not isinstance(value, int):
            raise self.mismatch(index, f"{type(value).__name__} {value!r:.40}")
        lo, hi = _int_range(arg.element)
        if not lo <= value < hi:
            raise self.mismatch(index, f"{value}, which does not fit {arg.element} (range "
                                       f"[{lo}, {hi}); it would wrap around)")
        return value

    def scalar_range(self, index):
        """For scalar argument ``index``: None if it takes floats, else the [lo, hi) of the
        Python ints it accepts unchanged (what :meth:`check_scalar` lets through as is)."""
        element = self.args[index].element
        return None if element in _FLOAT_TYPES else _int_range(element)

    def __repr__(self):
        return f"<FunctionABI {self.declaration}>"


def _int_range(element):
    """[lo, hi) a Python int may take for a scalar of ``element``: signed index and siN,
    unsigned uiN, and either reading for signless iN (as IREE's bindings accept)."""
    if element == "index":
        return -(1 << 63), 1 << 63
    bits = int("".join(c for c in element if c.isdigit()) or 64)
    if element.startswith("si"):
        return -(1 << (bits - 1)), 1 << (bits - 1)
    if element.startswith("ui"):
        return 0, 1 << bits
    return -(1 << (bits - 1)), 1 << bits


def _untyped(letter, name):
    if letter == "r":
        return ArgType("ref", name, "!vm.ref (tensor or object)")
    return ArgType("scalar", name, _LETTER_TYPES[letter], element=_LETTER_TYPES[letter])


def _check_cconv(fname, entries, letters, what, where):
    want = ["r" if e.kind in ("tensor", "fence", "ref") else "s" for e in entries]
    have = ["r" if letter == "r" else "s" for letter in letters]
    if want != have:
        raise ModuleFormatError(f"{where}: {len(entries)} {what} ({', '.join(e.type for e in entries)}) "
                                f"do not match the cconv of @{fname} ({''.join(letters) or 'v'})")
