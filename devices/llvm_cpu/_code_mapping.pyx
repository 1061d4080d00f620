"""Anonymous memory that holds one loaded llvm-cpu object, and the symbols it may import.

``CodeMapping`` owns one private anonymous mapping (``mmap``): the loader writes the relocated
image into it while it is read-write, then seals each page range with ``mprotect`` (code
read+execute, constants read-only, data read-write). The mapping is released (``munmap``) when
the object is garbage collected, so whoever calls into the code holds the ``CodeMapping``
(the library's launcher does). ``import_address`` looks a C symbol up with ``dlsym`` in the
process and libm, as a dynamic linker would. Source: IREE's embedded ELF loader maps its
segments the same way (runtime/src/iree/hal/local/elf/elf_module.c, platform/linux/mmap).
"""
from libc.stdint cimport uintptr_t
from libc.string cimport memcpy

from rt.runtime.errors import InvalidArgumentError, ResourceExhaustedError

cdef extern from "<sys/mman.h>" nogil:
    void* mmap(void* addr, size_t length, int prot, int flags, int fd, long offset)
    int munmap(void* addr, size_t length)
    int mprotect(void* addr, size_t length, int prot)
    int PROT_READ, PROT_WRITE, PROT_EXEC, MAP_PRIVATE, MAP_ANONYMOUS
    void* MAP_FAILED

cdef extern from "<dlfcn.h>" nogil:
    void* dlopen(const char* filename, int flags)
    void* dlsym(void* handle, const char* symbol)
    void* RTLD_DEFAULT
    int RTLD_NOW, RTLD_LOCAL

cdef extern from "<unistd.h>" nogil:
    long sysconf(int name)
    int _SC_PAGESIZE

cdef void* _libm = NULL

#: Bytes per page; region boundaries passed to ``CodeMapping.protect`` are multiples of it.
PAGE_SIZE = sysconf(_SC_PAGESIZE)


def import_address(str name):
    """Address of C symbol ``name`` in this process or libm (``libm.so.6``), or 0 if absent."""
    global _libm
    cdef bytes key = name.encode("ascii")
    cdef void* found = dlsym(RTLD_DEFAULT, key)
    if found == NULL:
        if _libm == NULL:
            _libm = dlopen(b"libm.so.6", RTLD_NOW | RTLD_LOCAL)
        if _libm != NULL:
            found = dlsym(_libm, key)
    return <uintptr_t>found


cdef class CodeMapping:
    """``size`` bytes (a positive multiple of ``PAGE_SIZE``) of zeroed read-write memory.

    ``address`` is where it starts. Raises InvalidArgumentError for a bad size,
    ResourceExhaustedError if the OS refuses the mapping.
    """

    cdef char* _base
    cdef readonly size_t size

    def __cinit__(self, size_t size):
        if size == 0 or size % PAGE_SIZE:
            raise InvalidArgumentError(f"code mapping: size {size} is not a positive multiple "
                                       f"of the {PAGE_SIZE}-byte page")
        cdef void* p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        if p == MAP_FAILED:
            raise ResourceExhaustedError(f"code mapping: mmap of {size} bytes failed")
        self._base = <char*>p
        self.size = size

    def __dealloc__(self):
        if self._base != NULL:
            munmap(self._base, self.size)

    @property
    def address(self):
        """The first byte's address (int)."""
        return <uintptr_t>self._base

    def write(self, size_t offset, const unsigned char[::1] data):
        """Copy ``data`` to ``offset``; InvalidArgumentError if it does not fit the mapping."""
        cdef size_t n = data.shape[0]
        if offset > self.size or n > self.size - offset:
            raise InvalidArgumentError(f"code mapping: {n} bytes at offset {offset} do not fit "
                                       f"its {self.size} bytes")
        if n:
            memcpy(self._base + offset, &data[0], n)

    def protect(self, size_t offset, size_t length, bint writable, bint executable):
        """Set the access of ``[offset, offset + length)`` (page-aligned, inside the mapping).

        Always readable; ``writable`` and ``executable`` add write and execute. Raises
        InvalidArgumentError for a range that is not page-aligned or leaves the mapping,
        ResourceExhaustedError if ``mprotect`` fails.
        """
        if (offset % PAGE_SIZE or length % PAGE_SIZE or offset > self.size
                or length > self.size - offset):
            raise InvalidArgumentError(f"code mapping: range {offset}+{length} is not "
                                       f"page-aligned inside its {self.size} bytes")
        if length == 0:
            return
        cdef int prot = PROT_READ | (PROT_WRITE if writable else 0) | (PROT_EXEC if executable else 0)
        if mprotect(self._base + offset, length, prot) != 0:
            raise ResourceExhaustedError(f"code mapping: mprotect of {length} bytes at offset "
                                         f"{offset} failed")
