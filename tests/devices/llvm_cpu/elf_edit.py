"""Edits the tables of an llvm-cpu ELF object in place (tests and the ELF fuzzer use it).

Finds where each section header, symbol and relocation lives in the file so that a test can
patch one field (an addend, a flag, a symbol value, a descriptor pointer) and check what the
loader says. Follows the ELF64 little-endian layout (System V gABI, x86-64 psABI).
"""
import hashlib
import struct

SHDR = struct.Struct("<IIQQQQIIQQ")
SYM = struct.Struct("<IBBHQQ")
RELA = struct.Struct("<QQq")
#: (byte offset, width) of the fields of a section header, a symbol and a relocation.
SHDR_FIELDS = {"name": (0, 4), "type": (4, 4), "flags": (8, 8), "addr": (16, 8),
               "offset": (24, 8), "size": (32, 8), "link": (40, 4), "info": (44, 4),
               "align": (48, 8), "entsize": (56, 8)}
SYM_FIELDS = {"name": (0, 4), "info": (4, 1), "other": (5, 1), "shndx": (6, 2),
              "value": (8, 8), "size": (16, 8)}
RELA_FIELDS = {"offset": (0, 8), "info": (8, 8), "addend": (16, 8)}
_FORMATS = {1: "<B", 2: "<H", 4: "<I", 8: "<Q"}


class ElfEdit:
    """A mutable copy of an object: ``sections`` / ``symbols`` / ``relocations`` list the file
    offsets of their entries (relocations as ``(rela section index, entry offset)``)."""

    def __init__(self, data):
        self.data = bytearray(data)
        shoff = struct.unpack_from("<Q", self.data, 0x28)[0]
        shnum, shstrndx = struct.unpack_from("<HH", self.data, 0x3C)
        self.sections = [shoff + SHDR.size * i for i in range(shnum)]
        headers = [SHDR.unpack_from(self.data, at) for at in self.sections]
        names_at = headers[shstrndx][4]
        self.names = [self._cstr(names_at + h[0]) for h in headers]
        self.symbols, self.relocations, self.symbol_names = [], [], []
        for i, h in enumerate(headers):
            if h[1] == 2:
                strtab = headers[h[6]][4]
                for k in range(h[5] // SYM.size):
                    at = h[4] + SYM.size * k
                    self.symbols.append(at)
                    self.symbol_names.append(self._cstr(strtab + SYM.unpack_from(self.data, at)[0]))
            elif h[1] == 4:
                self.relocations += [(i, h[4] + RELA.size * k) for k in range(h[5] // RELA.size)]

    def _cstr(self, at):
        end = self.data.index(b"\0", at)
        return self.data[at:end].decode("utf-8", "replace")

    def section(self, name):
        """Index of the section called ``name``."""
        return self.names.index(name)

    def symbol(self, name):
        """File offset of the symbol called ``name``."""
        return self.symbols[self.symbol_names.index(name)]

    def get(self, at, field, table):
        """Read ``field`` of the entry at file offset ``at`` (``table`` is a *_FIELDS dict)."""
        offset, width = table[field]
        fmt = "<q" if table is RELA_FIELDS and field == "addend" else _FORMATS[width]
        return struct.unpack_from(fmt, self.data, at + offset)[0]

    def set(self, at, field, table, value):
        """Write ``field`` of the entry at file offset ``at``, wrapping to the field's width."""
        offset, width = table[field]
        struct.pack_into(_FORMATS[width], self.data, at + offset, value % (1 << 8 * width))

    def header(self, index, field, value=None):
        """Get (or set, if ``value`` is given) a field of section header ``index``."""
        if value is None:
            return self.get(self.sections[index], field, SHDR_FIELDS)
        self.set(self.sections[index], field, SHDR_FIELDS, value)

    def relocations_of(self, section_name):
        """File offsets of the relocations patching section ``section_name``."""
        target = self.section(section_name)
        return [at for rela, at in self.relocations if self.header(rela, "info") == target]

    def executable(self, obj):
        """An ``ExecutableObject``-like triple (format, data, metadata) with a matching sha256."""
        data = bytes(self.data)
        return obj.format, data, dict(obj.metadata, sha256=hashlib.sha256(data).hexdigest())
