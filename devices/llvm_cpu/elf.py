"""Reads and validates a relocatable x86-64 ELF object before LLVM sees it.

LLVM's object reader (as llvmlite calls it) and MCJIT's RuntimeDyld trust their input: a
truncated or corrupted object segfaults the process, and an unresolved external symbol makes
``finalize_object`` succeed and the first call crash. This module checks every table the
loader and RuntimeDyld will walk (header, section headers, string tables, symbols,
relocations) and lists the symbols the object imports, so the loader can reject bad input
with a clear ``ModuleFormatError`` first.

Layout facts follow the System V gABI and the x86-64 psABI (ELF64, little endian, RELA
relocations). Only what an llvm-cpu object needs is accepted: ``ET_REL`` for ``EM_X86_64``,
no unwind tables (exports are ``nounwind``), no thread-local or indirect-function symbols,
and the relocation types RuntimeDyldELF resolves for the small PIC code model.
"""
import struct
from dataclasses import dataclass

from rt.runtime.errors import ModuleFormatError

_EHDR = struct.Struct("<16sHHIQQQIHHHHHH")
_SHDR = struct.Struct("<IIQQQQIIQQ")
_SYM = struct.Struct("<IBBHQQ")
_RELA = struct.Struct("<QQq")

_ET_REL, _EM_X86_64 = 1, 62
_SHT_NULL, _SHT_PROGBITS, _SHT_SYMTAB, _SHT_STRTAB, _SHT_RELA = 0, 1, 2, 3, 4
_SHT_NOTE, _SHT_NOBITS, _SHT_REL, _SHT_X86_64_UNWIND = 7, 8, 9, 0x70000001
_ALLOWED_SECTION_TYPES = {
    _SHT_NULL: "NULL", _SHT_PROGBITS: "PROGBITS", _SHT_SYMTAB: "SYMTAB",
    _SHT_STRTAB: "STRTAB", _SHT_RELA: "RELA", _SHT_NOTE: "NOTE", _SHT_NOBITS: "NOBITS",
    0x6FFF4C03: "LLVM_ADDRSIG",
}
_SHN_UNDEF, _SHN_LORESERVE, _SHN_ABS, _SHN_COMMON = 0, 0xFF00, 0xFFF1, 0xFFF2
_STT_NAMES = {0: "NOTYPE", 1: "OBJECT", 2: "FUNC", 3: "SECTION", 4: "FILE"}
_STB_NAMES = {0: "LOCAL", 1: "GLOBAL", 2: "WEAK"}
#: x86-64 relocation types RuntimeDyldELF applies, with the bytes each one patches.
RELOCATION_WIDTHS = {
    0: 0,    # R_X86_64_NONE
    1: 8,    # R_X86_64_64
    2: 4,    # R_X86_64_PC32
    4: 4,    # R_X86_64_PLT32
    9: 4,    # R_X86_64_GOTPCREL
    10: 4,   # R_X86_64_32
    11: 4,   # R_X86_64_32S
    24: 8,   # R_X86_64_PC64
    41: 4,   # R_X86_64_GOTPCRELX
    42: 4,   # R_X86_64_REX_GOTPCRELX
}


@dataclass(frozen=True)
class Section:
    """One section header: ``name``, ``type`` (SHT_*), ``offset``/``size`` in bytes of the file."""

    name: str
    type: int
    offset: int
    size: int
    link: int
    info: int
    entsize: int


@dataclass(frozen=True)
class Symbol:
    """One symbol: ``binding`` is ``LOCAL``/``GLOBAL``/``WEAK``; ``section`` 0 means undefined."""

    name: str
    binding: str
    type: str
    section: int
    value: int
    size: int


@dataclass(frozen=True)
class ElfObject:
    """The validated tables of one relocatable object."""

    sections: tuple
    symbols: tuple

    @property
    def undefined_symbols(self):
        """Names the object imports (global or weak, undefined), sorted."""
        return sorted({s.name for s in self.symbols
                       if s.section == _SHN_UNDEF and s.binding != "LOCAL" and s.name})

    @property
    def defined_symbols(self):
        """Names of the global or weak symbols the object defines, sorted."""
        return sorted({s.name for s in self.symbols
                       if s.section != _SHN_UNDEF and s.binding != "LOCAL" and s.name})


def _fail(what):
    raise ModuleFormatError(f"llvm-cpu object: {what}; expected a relocatable x86-64 ELF "
                            f"object as emitted by rt's llvm-cpu code generator")


def _string(table, offset, where):
    if offset >= len(table):
        _fail(f"{where}: name offset {offset} is outside its string table ({len(table)} bytes)")
    end = table.find(b"\0", offset)
    return table[offset:end].decode("utf-8", "replace")


def _read_header(data):
    if len(data) < _EHDR.size:
        _fail(f"{len(data)} bytes is shorter than an ELF header ({_EHDR.size} bytes)")
    (ident, e_type, e_machine, e_version, _entry, e_phoff, e_shoff, _flags, e_ehsize,
     _phentsize, e_phnum, e_shentsize, e_shnum, e_shstrndx) = _EHDR.unpack_from(data, 0)
    if ident[:4] != b"\x7fELF":
        _fail(f"bad magic {ident[:4]!r}, expected b'\\x7fELF'")
    if ident[4] != 2 or ident[5] != 1 or ident[6] != 1:
        _fail(f"class/data/version bytes {tuple(ident[4:7])} are not (2, 1, 1) "
              f"(ELF64, little endian, version 1)")
    if e_type != _ET_REL or e_machine != _EM_X86_64 or e_version != 1:
        _fail(f"type {e_type}, machine {e_machine}, version {e_version}; expected "
              f"ET_REL ({_ET_REL}), EM_X86_64 ({_EM_X86_64}), 1")
    if e_ehsize != _EHDR.size or e_shentsize != _SHDR.size or e_phnum != 0 or e_phoff != 0:
        _fail(f"header sizes ehsize={e_ehsize} shentsize={e_shentsize} phnum={e_phnum} "
              f"do not describe a relocatable ELF64 object")
    if e_shnum == 0 or e_shnum >= _SHN_LORESERVE or e_shstrndx >= e_shnum:
        _fail(f"section count {e_shnum} / name table index {e_shstrndx} out of range")
    if e_shoff + e_shnum * _SHDR.size > len(data):
        _fail(f"section headers end at byte {e_shoff + e_shnum * _SHDR.size}, past the end "
              f"of the {len(data)}-byte object (truncated?)")
    return e_shoff, e_shnum, e_shstrndx


def _read_sections(data, shoff, shnum, shstrndx):
    raw = [_SHDR.unpack_from(data, shoff + i * _SHDR.size) for i in range(shnum)]
    for i, (_name, sh_type, _flags, _addr, offset, size, _link, _info, align, _ent) in enumerate(raw):
        if sh_type == _SHT_X86_64_UNWIND:
            _fail(f"section {i} holds unwind tables (.eh_frame); llvm-cpu exports must be "
                  f"nounwind and carry none")
        if sh_type not in _ALLOWED_SECTION_TYPES:
            what = "REL" if sh_type == _SHT_REL else hex(sh_type)
            _fail(f"section {i} has unsupported type {what}")
        if sh_type not in (_SHT_NOBITS, _SHT_NULL) and offset + size > len(data):
            _fail(f"section {i} spans bytes {offset}..{offset + size}, past the end of the "
                  f"{len(data)}-byte object (truncated?)")
        if align & (align - 1) or align > 4096:
            _fail(f"section {i} has alignment {align}, expected a power of two <= 4096")
    if raw[shstrndx][1] != _SHT_STRTAB:
        _fail(f"section name table {shstrndx} is not a STRTAB")
    names = _strtab(data, raw[shstrndx], shstrndx)
    sections = []
    for i, (name, sh_type, _f, _a, offset, size, link, info, _al, entsize) in enumerate(raw):
        sections.append(Section(_string(names, name, f"section {i}"), sh_type, offset, size,
                                link, info, entsize))
    for i, s in enumerate(sections):
        if s.name == ".eh_frame":
            _fail(f"section {i} holds unwind tables (.eh_frame); llvm-cpu exports must be "
                  f"nounwind and carry none")
        if s.type in (_SHT_SYMTAB, _SHT_RELA):
            if s.entsize != 24 or s.size % 24:
                _fail(f"section {i} ({s.name}) has entry size {s.entsize} and size {s.size}; "
                      f"expected 24-byte entries")
            if s.link >= len(sections):
                _fail(f"section {i} ({s.name}) links to missing section {s.link}")
    return sections


def _strtab(data, header, index):
    offset, size = header[4], header[5]
    table = bytes(data[offset:offset + size])
    if not table or table[-1] != 0:
        _fail(f"string table {index} does not end with a NUL byte")
    return table


def _read_symbols(data, sections):
    symtabs = [i for i, s in enumerate(sections) if s.type == _SHT_SYMTAB]
    if len(symtabs) != 1:
        _fail(f"{len(symtabs)} symbol tables, expected exactly 1")
    tab = sections[symtabs[0]]
    strings = sections[tab.link]
    if strings.type != _SHT_STRTAB:
        _fail(f"symbol table links to section {tab.link} which is not a STRTAB")
    names = _strtab(data, (0, 0, 0, 0, strings.offset, strings.size), tab.link)
    symbols = []
    for i in range(tab.size // 24):
        st_name, info, _other, shndx, value, size = _SYM.unpack_from(data, tab.offset + 24 * i)
        name = _string(names, st_name, f"symbol {i}")
        binding, kind = info >> 4, info & 0xF
        if binding not in _STB_NAMES or kind not in _STT_NAMES:
            _fail(f"symbol {i} '{name}' has binding {binding} / type {kind}; only "
                  f"LOCAL/GLOBAL/WEAK and NOTYPE/OBJECT/FUNC/SECTION/FILE are supported "
                  f"(no thread-locals or ifuncs)")
        if shndx not in (_SHN_UNDEF, _SHN_ABS, _SHN_COMMON):
            if shndx >= len(sections):
                _fail(f"symbol {i} '{name}' refers to missing section {shndx}")
            if value > sections[shndx].size:
                _fail(f"symbol {i} '{name}' at offset {value} lies outside section {shndx}")
        symbols.append(Symbol(name, _STB_NAMES[binding], _STT_NAMES[kind], shndx, value, size))
    return symtabs[0], symbols


def _check_relocations(data, sections, symtab_index, symbol_count):
    for i, s in enumerate(sections):
        if s.type != _SHT_RELA:
            continue
        if s.link != symtab_index:
            _fail(f"relocation section {i} ({s.name}) does not use the symbol table")
        if s.info == 0 or s.info >= len(sections) or sections[s.info].type == _SHT_NOBITS:
            _fail(f"relocation section {i} ({s.name}) applies to invalid section {s.info}")
        target = sections[s.info]
        for j in range(s.size // 24):
            r_offset, r_info, _addend = _RELA.unpack_from(data, s.offset + 24 * j)
            sym, kind = r_info >> 32, r_info & 0xFFFFFFFF
            if kind not in RELOCATION_WIDTHS:
                _fail(f"relocation {j} of {s.name} has type {kind}, which the loader does not "
                      f"apply (supported: {sorted(RELOCATION_WIDTHS)})")
            if sym >= symbol_count:
                _fail(f"relocation {j} of {s.name} names missing symbol {sym}")
            if r_offset + RELOCATION_WIDTHS[kind] > target.size:
                _fail(f"relocation {j} of {s.name} patches offset {r_offset}, outside "
                      f"{target.name} ({target.size} bytes)")


def read_elf_object(data):
    """Validate ``data`` (bytes-like) as an llvm-cpu relocatable object and return its tables.

    Raises ModuleFormatError naming the first malformed structure (truncation, wrong
    machine, bad offsets, unsupported section/symbol/relocation kinds, unwind tables).
    """
    data = bytes(data)
    shoff, shnum, shstrndx = _read_header(data)
    sections = _read_sections(data, shoff, shnum, shstrndx)
    symtab_index, symbols = _read_symbols(data, sections)
    _check_relocations(data, sections, symtab_index, len(symbols))
    return ElfObject(tuple(sections), tuple(symbols))
