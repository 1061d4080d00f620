"""Executables: one loaded variant of a ``hal.executable`` on one device.

Follows ``iree_hal_executable_t`` (runtime/src/iree/hal/executable.h): exports are dispatched
by ordinal; ``lookup_function`` maps an export name to its ordinal
(``hal.executable.lookup.function``).
"""
from rt.runtime.errors import InvalidArgumentError, NotFoundError
from rt.runtime.hal.executable_library import ExecutableLibrary


class Executable:
    """``library`` (an ``ExecutableLibrary``) loaded on ``device`` from a ``format`` variant.

    name: a label for errors (defaults to the library's ``name`` attribute if it has one,
    else the format and the first export).
    """

    __slots__ = ("device", "library", "format", "name", "exports")

    def __init__(self, device, library, format, name=None):
        if not isinstance(library, ExecutableLibrary):
            raise InvalidArgumentError(
                f"executable on {device.label}: the loader for {format!r} returned "
                f"{type(library).__name__}, expected an ExecutableLibrary"
            )
        self.device, self.library, self.format = device, library, format
        self.exports = tuple(library.exports)
        first = self.exports[0].name if self.exports else "no exports"
        self.name = name or getattr(library, "name", None) or f"{format}:{first}"

    def export(self, ordinal, where="dispatch"):
        """The ``ExportInfo`` at ``ordinal``; ``InvalidArgumentError`` if out of range."""
        if isinstance(ordinal, bool) or not isinstance(ordinal, int) or not 0 <= ordinal < len(self.exports):
            names = ", ".join(f"{i}={e.name}" for i, e in enumerate(self.exports))
            raise InvalidArgumentError(
                f"{where}: export ordinal {ordinal!r} out of range for executable {self.name} "
                f"with {len(self.exports)} exports ({names})"
            )
        return self.exports[ordinal]

    def lookup_function(self, name):
        """Ordinal of the export called ``name``; ``NotFoundError`` listing the exports."""
        for i, export in enumerate(self.exports):
            if export.name == name:
                return i
        raise NotFoundError(
            f"executable {self.name} has no export {name!r}; exports: "
            + ", ".join(e.name for e in self.exports)
        )

    def __repr__(self):
        return f"<Executable {self.name} on {self.device.label}, {len(self.exports)} exports>"
