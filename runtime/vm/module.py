"""Module: a loaded, verified ``.vmfb`` (read-only; state lives in a Context).

``Module.load(path)`` maps the file (mmap) and exposes segments as memoryviews into it, so
rodata and executables are used without copying (``np.frombuffer(m.rodata[0].data, ...)``).
``Module.from_bytes(b)`` does the same over a bytes-like object. Either verifies the container,
the manifest and every function's bytecode before returning.
Source: iree/vm/bytecode/module.c (iree_vm_bytecode_module_create: verify then expose).

Errors: :class:`ModuleFormatError` for any malformed input (never another exception type);
:class:`NotFoundError` for a missing file or export.
"""
import bisect
import mmap
import os
from collections import namedtuple

from rt.runtime.errors import ModuleFormatError, NotFoundError
from rt.runtime.vm.cconv import parse_cconv
from rt.runtime.vm.format import read_module, split_signature
from rt.runtime.vm.verifier import verify_module

FunctionDef = namedtuple("FunctionDef", "ordinal name signature registers code reflection locations")
ImportDef = namedtuple("ImportDef", "ordinal name module_name function_name signature optional")
RodataDef = namedtuple("RodataDef", "ordinal name alignment data")
ExecutableDef = namedtuple("ExecutableDef", "ordinal name format rodata metadata data")


class Module:
    """A verified bytecode module.

    Attributes: ``name``, ``version``, ``attributes`` (dict), ``functions`` (list of
    FunctionDef), ``exports`` (name -> ordinal), ``imports`` (ImportDef), ``globals`` (bank ->
    list of (name, initial)), ``strings``, ``rodata`` (RodataDef; ``data`` a memoryview),
    ``executables`` (ExecutableDef), ``segments`` (list of (offset, size)), ``size`` (bytes),
    ``signature`` (a ``format.ModuleSignature`` if the file carries one, else None; verified
    only by a caller that asks, see ``rt.runtime.trust``).
    """

    def __init__(self, data, source="<bytes>"):
        self.source = source
        self._backing = data
        manifest, segs = read_module(data)
        _, self.signature = split_signature(data)
        self.size = len(memoryview(data).cast("B"))
        self.name, self.version = manifest["name"], manifest["version"]
        self.attributes = manifest["attributes"]
        self.segments = [(s["offset"], s["size"]) for s in manifest["segments"]]
        self.functions = [
            FunctionDef(k, f["name"], parse_cconv(f["cconv"]), tuple(f["registers"]), segs[f["bytecode"]],
                        f["reflection"], [(pc, f"{file}:{line}:{col}") for pc, file, line, col in f["locations"]])
            for k, f in enumerate(manifest["functions"])
        ]
        self.bytecode_segments = [f["bytecode"] for f in manifest["functions"]]
        self.exports = dict(manifest["exports"])
        self.imports = []
        for k, i in enumerate(manifest["imports"]):
            mod, _, fname = i["name"].partition(".")
            self.imports.append(ImportDef(k, i["name"], mod, fname, parse_cconv(i["cconv"]), i["optional"]))
        self.globals = {b: [(g["name"], g["initial"]) for g in v] for b, v in manifest["globals"].items()}
        self.strings = list(manifest["strings"])
        self.rodata = [RodataDef(k, r["name"], r["alignment"], segs[r["segment"]]) for k, r in enumerate(manifest["rodata"])]
        self.rodata_segments = [r["segment"] for r in manifest["rodata"]]
        self.executables = [
            ExecutableDef(k, e["name"], e["format"], e["rodata"], e["metadata"], self.rodata[e["rodata"]].data)
            for k, e in enumerate(manifest["executables"])
        ]
        verify_module(self)
        self._program = None

    @classmethod
    def from_bytes(cls, data):
        """Load from a bytes-like object (kept alive and referenced, not copied)."""
        return cls(data)

    @classmethod
    def load(cls, path):
        """Map the file at ``path`` read-only and load it."""
        path = os.fspath(path)
        try:
            with open(path, "rb") as f:
                size = os.fstat(f.fileno()).st_size
                if size == 0:
                    raise ModuleFormatError(f"{path}: empty file is not a .vmfb")
                data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        except FileNotFoundError:
            raise NotFoundError(f"module file {path!r} does not exist") from None
        except IsADirectoryError:
            raise ModuleFormatError(f"{path!r} is a directory, not a .vmfb file") from None
        try:
            return cls(data, source=path)
        except ModuleFormatError as e:
            raise ModuleFormatError(f"{path}: {e}") from None

    def lookup_function(self, name):
        """The FunctionDef exported as ``name``; NotFoundError listing the exports otherwise."""
        ordinal = self.exports.get(name)
        if ordinal is None:
            raise NotFoundError(
                f"module '{self.name}' has no exported function {name!r}; exports: {', '.join(sorted(self.exports)) or '(none)'}"
            )
        return self.functions[ordinal]

    @property
    def function_names(self):
        return [f.name for f in self.functions]

    def location(self, ordinal, pc):
        """``file:line:col`` of the instruction at ``pc`` in function ``ordinal``, or None."""
        locs = self.functions[ordinal].locations
        k = bisect.bisect_right(locs, (pc, "\U0010ffff")) - 1
        return locs[k][1] if k >= 0 else None

    def __repr__(self):
        return f"<Module {self.name} ({len(self.functions)} functions, {len(self.exports)} exports) from {self.source}>"
