"""A content-keyed cache of serialized executables: (backend, name, Kernel IR, config) -> bytes.

``iree-hal-translate-executables`` asks it before running a code generator. The key is the
SHA-256 of the pickled Kernel IR of one executable variant together with everything else that
decides the bytes: the backend, the executable name (it is embedded in the object), the target
configuration, and a fingerprint of the code generators themselves (the source of
``rt.compiler.codegen``, ``rt.compiler.targets`` and ``rt.devices.llvm_cpu.abi``, and the
llvmlite version), so an entry written by another version of rt is never reused. Entries live
for one compilation in memory and, when a ``directory`` is given, on disk as
``<directory>/<key[:2]>/<key>.bin`` (a JSON header with the format, metadata and the data's
SHA-256, then the bytes; written atomically; a missing, truncated or mismatching entry is a
miss, and nothing executable is ever loaded from the directory), so recompiling a model
reuses the code of every executable that did not change.

Source followed: the content-addressed object caches of ccache and of IREE's
``--iree-hal-executable-object-search-path`` (reuse of externally built objects).
"""
import functools
import hashlib
import json
import os
import pickle
import struct

from rt.runtime.atomic_write import atomic_write
from rt.runtime.errors import InvalidArgumentError

#: bump when the entry format changes
CACHE_FORMAT = 1


@functools.cache
def codegen_fingerprint():
    """SHA-256 over the source of the code generators and the llvmlite version."""
    import llvmlite

    import rt.compiler.codegen
    import rt.compiler.targets
    import rt.devices.llvm_cpu.abi

    digest = hashlib.sha256(f"{CACHE_FORMAT} llvmlite {llvmlite.__version__}".encode())
    roots = [os.path.dirname(rt.compiler.codegen.__file__), os.path.dirname(rt.compiler.targets.__file__)]
    files = [rt.devices.llvm_cpu.abi.__file__]
    for root in roots:
        for folder, _, names in os.walk(root):
            files += [os.path.join(folder, n) for n in names if n.endswith(".py")]
    for path in sorted(files):
        with open(path, "rb") as f:
            digest.update(os.path.relpath(path, os.path.dirname(roots[0])).encode() + b"\0" + f.read())
    return digest.hexdigest()


class CodegenCache:
    """``get(key)`` / ``put(key, entry)`` with ``key(...)`` computed from one variant's inputs;
    entries are ``(format, data, metadata)`` tuples."""

    def __init__(self, directory=None):
        self.directory = directory
        self._memory = {}
        self.hits = self.misses = 0

    def key(self, backend, name, kernels, config):
        """The content key of one executable variant (hex SHA-256), or None when its Kernel IR
        cannot be pickled (then it is neither cached nor sent to a worker process)."""
        try:
            payload = pickle.dumps((codegen_fingerprint(), backend, name, list(kernels), sorted(config.items())),
                                   protocol=4)
        except (pickle.PicklingError, TypeError, AttributeError):
            return None
        return hashlib.sha256(payload).hexdigest()

    def get(self, key):
        """The cached ``(format, data, metadata)`` or None (always None for key None)."""
        if key is None:
            return None
        entry = self._memory.get(key)
        if entry is None and self.directory:
            entry = _read(self._path(key))
        if entry is None:
            self.misses += 1
            return None
        self.hits += 1
        self._memory[key] = entry
        return entry

    def put(self, key, entry):
        """Remember ``entry`` for this compilation and, with a directory, on disk."""
        if key is None:
            return
        self._memory[key] = entry
        if self.directory:
            _write(self._path(key), entry)

    def _path(self, key):
        return os.path.join(self.directory, key[:2], key + ".bin")


def _write(path, entry):
    """``<8-byte header length><JSON header><data>``: no pickle is ever loaded from disk."""
    fmt, data, metadata = entry
    header = json.dumps({"format": fmt, "metadata": metadata, "sha256": hashlib.sha256(data).hexdigest(),
                         "size": len(data)}, sort_keys=True).encode()
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        atomic_write(path, struct.pack("<Q", len(header)) + header + data)
    except (OSError, InvalidArgumentError):
        pass  # a cache that cannot be written only makes the next compile slower


def _read(path):
    """The entry at ``path``, or None when it is missing, truncated or does not match its hash."""
    try:
        with open(path, "rb") as f:
            blob = f.read()
        (length,) = struct.unpack_from("<Q", blob)
        header = json.loads(blob[8:8 + length])
        data = blob[8 + length:]
    except (OSError, struct.error, ValueError):
        return None
    if (not isinstance(header, dict) or header.get("size") != len(data)
            or header.get("sha256") != hashlib.sha256(data).hexdigest()
            or not isinstance(header.get("format"), str) or not isinstance(header.get("metadata"), dict)):
        return None
    return header["format"], data, header["metadata"]
