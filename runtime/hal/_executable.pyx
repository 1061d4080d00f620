# cython: language_level=3
"""Executables: one loaded variant of a ``hal.executable`` on one device.

Follows ``iree_hal_executable_t`` (runtime/src/iree/hal/executable.h): exports are dispatched
by ordinal; ``lookup_function`` maps an export name to its ordinal
(``hal.executable.lookup.function``). The export table is also kept as C arrays (binding and
constant counts) for recording without Python lookups, with the library's C dispatch entry
(``ExecutableLibrary.c_dispatch``) when it has one.

Binding encodings: a variant's metadata may declare, per export, the tensor encoding each
binding expects (``metadata["binding_encodings"] = {"export": ["enc" or None, ...]}``, one
entry per binding; the identifiers are the ones specialize-encodings resolves per device).
Command buffers reject a dispatch whose binding buffer is tagged with another encoding.
"""
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from libc.stdint cimport uint32_t

from rt.runtime.errors import InvalidArgumentError, ModuleFormatError, NotFoundError
from rt.runtime.hal._library cimport LibraryEntry
from rt.runtime.hal.executable_library import ExecutableLibrary

BINDING_ENCODINGS = "binding_encodings"
#: metadata key of per-export work estimates: ``{"export": {"flops": int, "bytes": int}}`` (the
#: simulator's roofline model reads ``Executable.costs``; exports without an entry have unknown
#: flops; "bytes", the bytes its ops read and write, may be absent).
COSTS = "costs"


cdef class Executable:
    """``library`` (an ``ExecutableLibrary``) loaded on ``device`` from a ``format`` variant.

    name: a label for errors (defaults to the library's ``name`` attribute if it has one,
    else the format and the first export). metadata: the variant's metadata dict (its
    ``binding_encodings`` are read; ``ModuleFormatError`` if malformed). source: the
    ``(format, data, metadata)`` variant it was loaded from, or None (set by ExecutableCache;
    HAL replay records it).
    """

    def __init__(self, device, library, format, name=None, metadata=None):
        cdef Py_ssize_t i
        if not isinstance(library, ExecutableLibrary):
            raise InvalidArgumentError(
                f"executable on {device.label}: the loader for {format!r} returned "
                f"{type(library).__name__}, expected an ExecutableLibrary")
        self.device, self.library, self.format = device, library, format
        self.exports = tuple(library.exports)
        first = self.exports[0].name if self.exports else "no exports"
        self.name = name or getattr(library, "name", None) or f"{format}:{first}"
        self._encodings = self._parse_encodings((metadata or {}).get(BINDING_ENCODINGS))
        self.costs = self._parse_costs((metadata or {}).get(COSTS))
        n = len(self.exports)
        self.binding_counts = <uint32_t*>PyMem_Malloc(max(n, 1) * sizeof(uint32_t))
        self.constant_counts = <uint32_t*>PyMem_Malloc(max(n, 1) * sizeof(uint32_t))
        if self.binding_counts == NULL or self.constant_counts == NULL:
            raise MemoryError()
        for i in range(n):
            self.binding_counts[i] = self.exports[i].binding_count
            self.constant_counts[i] = self.exports[i].constant_count
        self.export_count = n
        entry = getattr(library, "c_dispatch", None)
        self.entry = entry if isinstance(entry, LibraryEntry) else None

    def __dealloc__(self):
        PyMem_Free(self.binding_counts)
        PyMem_Free(self.constant_counts)

    def _parse_costs(self, table):
        """``{ordinal: {"flops": int[, "bytes": int]}}`` from the metadata's ``costs`` (malformed
        entries of an optional estimate are ignored)."""
        if not isinstance(table, dict):
            return {}
        by_name = {e.name: i for i, e in enumerate(self.exports)}
        return {by_name[name]: {key: int(cost[key]) for key in ("flops", "bytes") if isinstance(cost.get(key), int)}
                for name, cost in table.items()
                if name in by_name and isinstance(cost, dict) and isinstance(cost.get("flops"), int)}

    def _parse_encodings(self, table):
        if table is None:
            return {}
        where = f"executable {self.name}: metadata {BINDING_ENCODINGS!r}"
        if not isinstance(table, dict):
            raise ModuleFormatError(f"{where} must map export names to lists, got "
                                    f"{type(table).__name__}")
        by_name = {e.name: i for i, e in enumerate(self.exports)}
        parsed = {}
        for name, entries in table.items():
            if name not in by_name:
                raise ModuleFormatError(f"{where} names export {name!r}, which the executable "
                                        f"lacks; exports: {', '.join(by_name) or '(none)'}")
            count = self.exports[by_name[name]].binding_count
            if not isinstance(entries, (list, tuple)) or len(entries) != count:
                raise ModuleFormatError(f"{where} for export {name!r} must list {count} "
                                        f"entries (one per binding), got {entries!r}")
            for i, entry in enumerate(entries):
                if entry is not None and (not isinstance(entry, str) or not entry):
                    raise ModuleFormatError(f"{where} for export {name!r}, binding {i}: expected "
                                            f"an encoding identifier or null, got {entry!r}")
            parsed[by_name[name]] = tuple(entries)
        return parsed

    cdef object encodings_of(self, uint32_t ordinal):
        if not self._encodings:
            return None
        return self._encodings.get(ordinal)

    def binding_encodings(self, ordinal):
        """Expected encoding per binding of export ``ordinal`` (tuple; None entries accept any
        encoding), or None when the export declares none."""
        return self._encodings.get(ordinal)

    def export(self, ordinal, where="dispatch"):
        """The ``ExportInfo`` at ``ordinal``; ``InvalidArgumentError`` if out of range."""
        if isinstance(ordinal, bool) or not isinstance(ordinal, int) or not 0 <= ordinal < len(self.exports):
            names = ", ".join(f"{i}={e.name}" for i, e in enumerate(self.exports))
            raise InvalidArgumentError(
                f"{where}: export ordinal {ordinal!r} out of range for executable {self.name} "
                f"with {len(self.exports)} exports ({names})")
        return self.exports[ordinal]

    def lookup_function(self, name):
        """Ordinal of the export called ``name``; ``NotFoundError`` listing the exports."""
        for i, export in enumerate(self.exports):
            if export.name == name:
                return i
        raise NotFoundError(
            f"executable {self.name} has no export {name!r}; exports: "
            + ", ".join(e.name for e in self.exports))

    def __repr__(self):
        return f"<Executable {self.name} on {self.device.label}, {len(self.exports)} exports>"
