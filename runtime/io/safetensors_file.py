"""``.safetensors`` files as parameter sources, read with the ``safetensors`` package.

The package is imported only when a ``.safetensors`` file is opened, so the runtime imports
and runs without it. Each tensor of the file is one parameter whose key is the tensor's name;
unlike an ``.irpa`` entry it carries a dtype and a shape, which the ``io_parameters`` module
checks against the global the parameter initializes. Tensor bytes are read (copied) through
the package's numpy API when a module loads them; the file's fingerprint (size, modification
time, inode) taken when it was indexed must still hold before and after that read, so a file
changed in between is an error naming it, never new values (``rt.runtime.io.file_snapshot``).

Source followed: the safetensors format (8-byte little-endian header length, JSON header of
``{name: {dtype, shape, data_offsets}}``, then the data) and IREE's
``runtime/src/iree/io/formats/safetensors/safetensors_parser.c`` (each tensor is a parameter).
"""
import dataclasses
import os

import ml_dtypes  # noqa: F401  (registers the bfloat16/float8 numpy dtypes the package returns)
import numpy as np

from rt.runtime.errors import InvalidArgumentError, UnimplementedError
from rt.runtime.io.file_snapshot import Fingerprint, check_unchanged, fingerprint

#: safetensors dtype -> (rt element name, bytes per element)
DTYPES = {
    "BOOL": ("i1", 1), "U8": ("ui8", 1), "I8": ("i8", 1), "U16": ("ui16", 2), "I16": ("i16", 2),
    "U32": ("ui32", 4), "I32": ("i32", 4), "U64": ("ui64", 8), "I64": ("i64", 8), "F16": ("f16", 2),
    "BF16": ("bf16", 2), "F32": ("f32", 4), "F64": ("f64", 8), "F8_E4M3": ("f8E4M3FN", 1),
    "F8_E5M2": ("f8E5M2", 1),
}


@dataclasses.dataclass(frozen=True)
class SafetensorsEntry:
    """One tensor of a ``.safetensors`` file: ``key``, safetensors ``dtype``, ``shape`` and byte
    ``length``; ``read()`` returns its bytes as a uint8 numpy array."""

    key: str
    dtype: str
    shape: tuple
    length: int
    path: str
    fingerprint: Fingerprint

    @property
    def kind(self):
        return f"safetensors {self.dtype} {list(self.shape)}"

    @property
    def element(self):
        """rt's element type name for ``dtype`` (``f32``, ``bf16``, ...), or None if rt has none."""
        return DTYPES.get(self.dtype, (None, 0))[0]

    def read(self):
        """The tensor's bytes (uint8); InvalidArgumentError if the file changed since it was indexed."""
        safe_open = _package().safe_open
        when = f"reading tensor '{self.key}'"
        check_unchanged(self.path, self.fingerprint, when)
        try:
            with safe_open(self.path, framework="numpy") as f:
                array = f.get_tensor(self.key)
        except Exception as e:  # the package raises its own error types
            raise InvalidArgumentError(f"{self.path}: cannot read tensor '{self.key}': {e}") from None
        check_unchanged(self.path, self.fingerprint, when)
        return np.ascontiguousarray(array).reshape(-1).view(np.uint8)


def _package():
    try:
        import safetensors
    except ImportError:
        raise UnimplementedError("reading .safetensors parameter files needs the safetensors package "
                                 "(pip install safetensors==0.8.0)") from None
    return safetensors


def read_safetensors(path):
    """{key: SafetensorsEntry} of the ``.safetensors`` file at ``path`` (header only).

    Raises NotFoundError (no such file), InvalidArgumentError (not a valid file, naming it),
    UnimplementedError (the safetensors package is missing, or a dtype rt has no type for).
    """
    path = os.fspath(path)
    indexed = fingerprint(path)
    safe_open = _package().safe_open
    try:
        with safe_open(path, framework="numpy") as f:
            entries = {}
            for key in f.keys():
                view = f.get_slice(key)
                dtype, shape = view.get_dtype(), tuple(view.get_shape())
                if dtype not in DTYPES:
                    raise UnimplementedError(f"{path}: tensor '{key}' has dtype {dtype}, which rt has no element "
                                             f"type for; supported: {', '.join(sorted(DTYPES))}")
                count = 1
                for d in shape:
                    count *= d
                entries[key] = SafetensorsEntry(key, dtype, shape, count * DTYPES[dtype][1], path, indexed)
    except (UnimplementedError, InvalidArgumentError):
        raise
    except Exception as e:  # SafetensorError, OSError: a file that is not a safetensors file
        raise InvalidArgumentError(f"{path}: not a valid .safetensors file: {e}") from None
    return entries
