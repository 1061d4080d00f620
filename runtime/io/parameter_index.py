"""ParameterIndex: named parameters by scope and key, gathered from parameter files.

A compiled module names each parameter as IREE does, ``"scope"::"key"`` or just ``"key"``
(the empty scope). The index maps every scope to the entries of the files given for it:
``.irpa`` archives (``rt.runtime.io.irpa``), ``.safetensors`` files
(``rt.runtime.io.safetensors_file``) and in-memory arrays. A key found twice in one scope is
an error naming both sources. :meth:`ParameterIndex.lookup` is where a missing scope or key is
reported, naming the parameter, the files searched and what the module expects.

Source followed: IREE ``runtime/src/iree/io/parameter_index.h`` and
``parameter_index_provider.h`` (one index per scope; ``iree-run-module --parameters=scope=file``).
"""
import os

import numpy as np

from rt.runtime.errors import InvalidArgumentError, NotFoundError
from rt.runtime.record import Record


class ArrayEntry(Record):
    """An in-memory parameter: a numpy array (bytes as stored, C order), with its element type
    (``element``, MLIR spelling) and ``shape`` checked against the module like a safetensors one."""

    __slots__ = ("key", "array")

    @property
    def length(self):
        return len(self.read()) if self._sub_byte() else self.array.nbytes

    def _sub_byte(self):
        from rt.runtime.hal.element_type import dtype_to_element_type, is_sub_byte

        return self.array.dtype.kind == "V" and is_sub_byte(dtype_to_element_type(self.array.dtype))

    @property
    def shape(self):
        return self.array.shape

    @property
    def element(self):
        from rt.runtime.hal.element_type import dtype_to_element_type, element_type_name

        return element_type_name(dtype_to_element_type(self.array.dtype))

    @property
    def kind(self):
        return f"numpy {self.array.dtype} {list(self.array.shape)}"

    def read(self):
        """The bytes as the module stores them (i4/i2 packed two/four per byte, as IREE does)."""
        if self._sub_byte():
            from rt.runtime.hal.element_type import dtype_to_element_type, pack_sub_byte

            return np.frombuffer(pack_sub_byte(self.array, dtype_to_element_type(self.array.dtype)), np.uint8)
        return np.ascontiguousarray(self.array).reshape(-1).view(np.uint8)


def parameter_name(scope, key):
    """``"scope"::"key"`` (or ``"key"`` for the empty scope), as IREE's IR writes it."""
    return f'"{scope}"::"{key}"' if scope else f'"{key}"'


def read_parameter_file(path):
    """{key: entry} of an ``.irpa`` or ``.safetensors`` file (chosen by its first bytes)."""
    path = os.fspath(path)
    try:
        with open(path, "rb") as f:
            head = f.read(4)
    except FileNotFoundError:
        raise NotFoundError(f"parameter file {path!r} does not exist") from None
    except OSError as e:
        raise InvalidArgumentError(f"cannot read parameter file {path!r}: {e.strerror}") from None
    if head == b"IRPA" or path.endswith(".irpa"):
        from rt.runtime.io.irpa import read_irpa

        return read_irpa(path)
    if path.endswith(".safetensors"):
        from rt.runtime.io.safetensors_file import read_safetensors

        return read_safetensors(path)
    raise InvalidArgumentError(f"parameter file {path!r} is neither an IREE parameter archive (.irpa, magic "
                               f"'IRPA') nor a .safetensors file")


class ParameterIndex:
    """Parameters by scope: ``{scope: {key: (entry, source)}}``; scope "" is the unscoped one."""

    def __init__(self):
        self._scopes = {}

    def add_file(self, path, scope=""):
        """Index every parameter of the file at ``path`` under ``scope``; returns self."""
        for key, entry in read_parameter_file(path).items():
            self._add(scope, key, entry, os.fspath(path))
        return self

    def add_array(self, key, array, scope=""):
        """Index ``array`` (numpy or array-like) as parameter ``key`` of ``scope``; returns self."""
        self._add(scope, key, ArrayEntry(key, np.asarray(array)), "<array>")
        return self

    def _add(self, scope, key, entry, source):
        entries = self._scopes.setdefault(scope, {})
        if key in entries:
            raise InvalidArgumentError(f"parameter {parameter_name(scope, key)} is in both {entries[key][1]} and "
                                       f"{source}; give each key once per scope")
        entries[key] = (entry, source)

    @property
    def scopes(self):
        return sorted(self._scopes)

    def sources(self, scope):
        """The files (or ``<array>``) indexed under ``scope``."""
        return sorted({source for _, source in self._scopes.get(scope, {}).values()})

    def __len__(self):
        return sum(len(entries) for entries in self._scopes.values())

    def lookup(self, scope, key, expected=""):
        """(entry, source) of parameter ``key`` in ``scope``; NotFoundError naming the parameter,
        the files searched and ``expected`` (what the module wants, e.g. ``tensor<4xf32>``)."""
        want = f" (the module expects {expected})" if expected else ""
        name = parameter_name(scope, key)
        entries = self._scopes.get(scope)
        if entries is None:
            given = ", ".join(f"'{s}'" if s else "(unscoped)" for s in self.scopes) or "none"
            hint = f"--parameters={scope}=FILE" if scope else "--parameters=FILE"
            what = f"scope '{scope}'" if scope else "unscoped parameters"
            raise NotFoundError(f"parameter {name}{want}: no parameter file was given for {what} (scopes given: "
                                f"{given}); pass {hint} or rt.load(parameters=...)")
        found = entries.get(key)
        if found is None:
            files = ", ".join(self.sources(scope))
            import difflib  # an error path

            near = difflib.get_close_matches(key, list(entries), n=3)
            hint = f"; nearest keys: {', '.join(near)}" if near else ""
            count = f"{len(entries)} parameter{'s' if len(entries) != 1 else ''}"
            raise NotFoundError(f"parameter {name}{want} is not in {files} ({count}"
                                f"{hint})")
        return found
