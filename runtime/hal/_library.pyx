# cython: language_level=3
"""The C dispatch entry of a device library (see _library.pxd): a library that has one
exposes it as ``ExecutableLibrary.c_dispatch``; command buffer replay then calls it with the
GIL released instead of calling ``library.dispatch`` from Python."""


cdef class LibraryEntry:
    """A library's C dispatch function, its state pointer and the object owning both."""

    @property
    def owner(self):
        return self.owner
