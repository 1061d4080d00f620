"""Reads and validates a relocatable x86-64 ELF object before it is mapped.

The mapper (``image.py``) writes where the object's tables say; a truncated or corrupted
table would make it write outside a section or call into garbage. This module checks every
table the mapper will walk, against the image and against each other, and lists the symbols
the object imports, so the loader rejects bad input with a clear ``ModuleFormatError`` first:

* header: ELF64, little endian, ``ET_REL`` for ``EM_X86_64``, no program headers, tables inside
  the file;
* sections: only the types and flags an llvm-cpu object uses (no TLS, groups, compression,
  large-model or OS-specific sections, no unwind tables), contents inside the file, alignment a
  power of two <= 4096, uninitialised (NOBITS) data <= ``MAX_NOBITS_BYTES``, links to existing
  sections;
* symbols: known binding/type, defined ones inside an allocated section (their whole
  ``[value, value + size)``), functions in executable sections, no common or undefined local
  symbols, no name used twice (exports and imports are found by name);
* relocations: only the types ``image.py`` applies for the small PIC code model
  (``RELOCATION_KINDS``), each patching bytes inside an allocated, file-backed section, each
  against a symbol whose target (symbol value + addend) lies in its section, imports reached
  only through the PLT, the GOT or 64-bit absolute slots (a PC32 displacement to libm may not
  fit in 32 bits), the patched bytes zero (a RELA object carries its addends in the table).

Layout facts follow the System V gABI and the x86-64 psABI (ELF64, little endian, RELA
relocations). Source: IREE's own ELF loader checks the same tables before mapping
(runtime/src/iree/hal/local/elf/elf_module.c).
"""
import struct
from collections import namedtuple

from rt.runtime.errors import ModuleFormatError

_EHDR = struct.Struct("<16sHHIQQQIHHHHHH")
_SHDR = struct.Struct("<IIQQQQIIQQ")
_SYM = struct.Struct("<IBBHQQ")
_RELA = struct.Struct("<QQq")

_ET_REL, _EM_X86_64 = 1, 62
SHT_NULL, SHT_PROGBITS, SHT_SYMTAB, SHT_STRTAB, SHT_RELA = 0, 1, 2, 3, 4
SHT_NOTE, SHT_NOBITS = 7, 8
_SHT_REL, _SHT_X86_64_UNWIND, _SHT_LLVM_ADDRSIG = 9, 0x70000001, 0x6FFF4C03
_SECTION_TYPES = {
    SHT_NULL: "NULL", SHT_PROGBITS: "PROGBITS", SHT_SYMTAB: "SYMTAB", SHT_STRTAB: "STRTAB",
    SHT_RELA: "RELA", SHT_NOTE: "NOTE", SHT_NOBITS: "NOBITS", _SHT_LLVM_ADDRSIG: "LLVM_ADDRSIG",
}
SHF_WRITE, SHF_ALLOC, SHF_EXECINSTR = 0x1, 0x2, 0x4
_SHF_ALLOWED = {0x1: "WRITE", 0x2: "ALLOC", 0x4: "EXECINSTR", 0x10: "MERGE", 0x20: "STRINGS",
                0x40: "INFO_LINK", 0x80000000: "EXCLUDE"}
_SHF_KNOWN = {0x80: "LINK_ORDER", 0x100: "OS_NONCONFORMING", 0x200: "GROUP", 0x400: "TLS",
              0x800: "COMPRESSED", 0x200000: "GNU_RETAIN", 0x10000000: "X86_64_LARGE"}
_SHN_UNDEF, _SHN_LORESERVE, _SHN_ABS, _SHN_COMMON = 0, 0xFF00, 0xFFF1, 0xFFF2
_STT_NAMES = {0: "NOTYPE", 1: "OBJECT", 2: "FUNC", 3: "SECTION", 4: "FILE"}
_STB_NAMES = {0: "LOCAL", 1: "GLOBAL", 2: "WEAK"}
#: Bytes of uninitialised data (NOBITS sections) an object may ask the loader to allocate.
MAX_NOBITS_BYTES = 64 << 20
#: How far (bytes) a PC-relative or GOT relocation's target may lie outside its section: the
#: addend carries the distance from the patched field to the end of the instruction.
PC_SLACK = 64
_R_X86_64_64 = 1
#: x86-64 relocation types ``image.py`` applies: (name, bytes patched, kind). ``abs`` stores
#: S + A, ``pc`` S + A - P (PLT32 may go through a stub), ``got`` G + A - P.
RELOCATION_KINDS = {
    0: ("NONE", 0, "none"),
    1: ("64", 8, "abs"),
    2: ("PC32", 4, "pc"),
    4: ("PLT32", 4, "pc"),
    9: ("GOTPCREL", 4, "got"),
    24: ("PC64", 8, "pc"),
    41: ("GOTPCRELX", 4, "got"),
    42: ("REX_GOTPCRELX", 4, "got"),
}


# The records are named tuples rather than dataclasses: building a dataclass costs ~1 ms at
# import, and this module is on every llvm-cpu load path (issue 24 item 6).
class Section(namedtuple("Section", "name type flags offset size link info entsize align")):
    """One section header: ``type`` (SHT_*), ``flags`` (SHF_*), ``offset``/``size`` in bytes,
    ``align`` (a power of two <= 4096, 0 read as 1)."""

    __slots__ = ()

    @property
    def allocated(self):
        """True if the loader maps this section (SHF_ALLOC)."""
        return bool(self.flags & SHF_ALLOC)

    @property
    def in_file(self):
        """True if the section's bytes are in the file (everything but NULL and NOBITS)."""
        return self.type not in (SHT_NULL, SHT_NOBITS)


class Symbol(namedtuple("Symbol", "name binding type section value size")):
    """One symbol: ``binding`` is ``LOCAL``/``GLOBAL``/``WEAK``; ``section`` 0 means undefined."""

    __slots__ = ()

    @property
    def defined(self):
        """True if the symbol lives in a section of this object."""
        return 0 < self.section < _SHN_LORESERVE


class Relocation(namedtuple("Relocation", "offset type symbol addend")):
    """One RELA entry of the section it patches: ``type`` (R_X86_64_*), ``symbol`` index."""

    __slots__ = ()

    @property
    def width(self):
        """Bytes the relocation writes."""
        return RELOCATION_KINDS[self.type][1]


class ElfObject(namedtuple("ElfObject", "sections symbols relocations")):
    """The validated tables of one relocatable object.

    relocations: ``{patched section index: tuple of Relocation sorted by offset}``.
    """

    __slots__ = ()

    @property
    def undefined_symbols(self):
        """Names the object imports (global or weak, undefined), sorted."""
        return sorted({s.name for s in self.symbols
                       if s.section == _SHN_UNDEF and s.binding != "LOCAL" and s.name})

    @property
    def defined_symbols(self):
        """Names of the global or weak symbols the object defines, sorted."""
        return sorted({s.name for s in self.symbols if s.defined and s.binding != "LOCAL" and s.name})

    def symbol(self, name):
        """The one symbol called ``name``, or None."""
        found = [s for s in self.symbols if s.name == name and s.type != "SECTION"]
        return found[0] if len(found) == 1 else None


def fail(what):
    """Raise the loader's ModuleFormatError for a malformed object."""
    raise ModuleFormatError(f"llvm-cpu object: {what}; expected a relocatable x86-64 ELF "
                            f"object as emitted by rt's llvm-cpu code generator")


def _string(table, offset, where):
    if offset >= len(table):
        fail(f"{where}: name offset {offset} is outside its string table ({len(table)} bytes)")
    end = table.find(b"\0", offset)
    try:
        return table[offset:end].decode("ascii")
    except UnicodeDecodeError:
        fail(f"{where}: name {table[offset:end][:40]!r} is not ASCII")


def _read_header(data):
    if len(data) < _EHDR.size:
        fail(f"{len(data)} bytes is shorter than an ELF header ({_EHDR.size} bytes)")
    (ident, e_type, e_machine, e_version, _entry, e_phoff, e_shoff, _flags, e_ehsize,
     _phentsize, e_phnum, e_shentsize, e_shnum, e_shstrndx) = _EHDR.unpack_from(data, 0)
    if ident[:4] != b"\x7fELF":
        fail(f"bad magic {ident[:4]!r}, expected b'\\x7fELF'")
    if ident[4] != 2 or ident[5] != 1 or ident[6] != 1:
        fail(f"class/data/version bytes {tuple(ident[4:7])} are not (2, 1, 1) "
             f"(ELF64, little endian, version 1)")
    if e_type != _ET_REL or e_machine != _EM_X86_64 or e_version != 1:
        fail(f"type {e_type}, machine {e_machine}, version {e_version}; expected "
             f"ET_REL ({_ET_REL}), EM_X86_64 ({_EM_X86_64}), 1")
    if e_ehsize != _EHDR.size or e_shentsize != _SHDR.size or e_phnum != 0 or e_phoff != 0:
        fail(f"header sizes ehsize={e_ehsize} shentsize={e_shentsize} phnum={e_phnum} "
             f"do not describe a relocatable ELF64 object")
    if e_shnum == 0 or e_shnum >= _SHN_LORESERVE or e_shstrndx >= e_shnum:
        fail(f"section count {e_shnum} / name table index {e_shstrndx} out of range")
    if e_shoff + e_shnum * _SHDR.size > len(data):
        fail(f"section headers end at byte {e_shoff + e_shnum * _SHDR.size}, past the end "
             f"of the {len(data)}-byte object (truncated?)")
    return e_shoff, e_shnum, e_shstrndx


def _flag_names(flags):
    names = {**_SHF_ALLOWED, **_SHF_KNOWN}
    return "|".join(names.get(1 << b, hex(1 << b)) for b in range(64) if flags >> b & 1)


def _check_section_header(i, header, count, data_size):
    _name, sh_type, flags, addr, offset, size, link, info, align, _ent = header
    if sh_type == _SHT_X86_64_UNWIND:
        fail(f"section {i} holds unwind tables (.eh_frame); llvm-cpu exports must be "
             f"nounwind and carry none")
    if sh_type not in _SECTION_TYPES:
        fail(f"section {i} has unsupported type {'REL' if sh_type == _SHT_REL else hex(sh_type)}")
    if (sh_type == SHT_NULL) != (i == 0):
        fail(f"section {i} has type {_SECTION_TYPES[sh_type]}; only section 0 may be (and must "
             f"be) NULL")
    bad = flags & ~sum(_SHF_ALLOWED)
    if bad:
        fail(f"section {i} has flags {_flag_names(bad)}, which the loader does not map (allowed: "
             f"{', '.join(_SHF_ALLOWED.values())}); thread-local, grouped, compressed and "
             f"large-model sections are not part of an llvm-cpu object")
    if flags & SHF_ALLOC and sh_type not in (SHT_PROGBITS, SHT_NOBITS, SHT_NOTE):
        fail(f"section {i} of type {_SECTION_TYPES[sh_type]} is marked ALLOC")
    if flags & SHF_EXECINSTR and (sh_type != SHT_PROGBITS or not flags & SHF_ALLOC):
        fail(f"section {i} is executable but not an allocated PROGBITS section")
    if addr != 0:
        fail(f"section {i} has address {addr:#x}; sections of a relocatable object have 0")
    if sh_type not in (SHT_NOBITS, SHT_NULL) and (offset > data_size or size > data_size - offset):
        fail(f"section {i} spans bytes {offset}..{offset + size}, past the end of the "
             f"{data_size}-byte object (truncated?)")
    if align & (align - 1) or align > 4096:
        fail(f"section {i} has alignment {align}, expected a power of two <= 4096")
    if link >= count or (flags & 0x40 and info >= count):
        fail(f"section {i} links to missing section {max(link, info)}")


def _read_sections(data, shoff, shnum, shstrndx):
    raw = [_SHDR.unpack_from(data, shoff + i * _SHDR.size) for i in range(shnum)]
    for i, header in enumerate(raw):
        _check_section_header(i, header, shnum, len(data))
    nobits = sum(h[5] for h in raw if h[1] == SHT_NOBITS)
    if nobits > MAX_NOBITS_BYTES:
        fail(f"uninitialised sections ask for {nobits} bytes, more than the limit of "
             f"{MAX_NOBITS_BYTES}")
    if raw[shstrndx][1] != SHT_STRTAB:
        fail(f"section name table {shstrndx} is not a STRTAB")
    names = _strtab(data, raw[shstrndx], shstrndx)
    sections = tuple(Section(_string(names, h[0], f"section {i}"), h[1], h[2], h[4], h[5], h[6],
                             h[7], h[9], max(h[8], 1)) for i, h in enumerate(raw))
    for i, s in enumerate(sections):
        if s.name == ".eh_frame":
            fail(f"section {i} holds unwind tables (.eh_frame); llvm-cpu exports must be "
                 f"nounwind and carry none")
        if s.type in (SHT_SYMTAB, SHT_RELA) and (s.entsize != 24 or s.size % 24):
            fail(f"section {i} ({s.name}) has entry size {s.entsize} and size {s.size}; "
                 f"expected 24-byte entries")
    return sections


def _strtab(data, header, index):
    offset, size = header[4], header[5]
    table = bytes(data[offset:offset + size])
    if not table or table[-1] != 0:
        fail(f"string table {index} does not end with a NUL byte")
    return table


def _check_symbol(i, sym, sections):
    where = f"symbol {i} '{sym.name}'"
    if sym.section == _SHN_UNDEF:
        if i and (sym.binding == "LOCAL" or not sym.name or sym.type not in ("NOTYPE", "FUNC", "OBJECT")):
            fail(f"{where} is an undefined {sym.binding} {sym.type}; only named global "
                 f"functions or data may be imported")
        return
    if sym.section == _SHN_COMMON:
        fail(f"{where} is a common symbol; llvm-cpu objects define their data in sections")
    if sym.section == _SHN_ABS:
        if sym.type not in ("FILE", "NOTYPE"):
            fail(f"{where} is an absolute {sym.type}; only FILE symbols may be absolute")
        return
    if sym.section >= len(sections):
        fail(f"{where} refers to missing section {sym.section}")
    section = sections[sym.section]
    if sym.type == "FILE":
        fail(f"{where} is a FILE symbol inside section {sym.section}")
    if not section.allocated:
        fail(f"{where} lies in section {sym.section} ({section.name}), which is not loaded")
    if sym.value > section.size or sym.size > section.size - sym.value:
        fail(f"{where} at offset {sym.value} (size {sym.size}) lies outside section "
             f"{sym.section} ({section.name}, {section.size} bytes)")
    if sym.type == "FUNC" and not section.flags & SHF_EXECINSTR:
        fail(f"{where} is a function in non-executable section {sym.section} ({section.name})")
    if sym.type == "SECTION" and (sym.binding != "LOCAL" or sym.value != 0):
        fail(f"{where} is a section symbol that is not LOCAL at offset 0")


def _read_symbols(data, sections):
    symtabs = [i for i, s in enumerate(sections) if s.type == SHT_SYMTAB]
    if len(symtabs) != 1:
        fail(f"{len(symtabs)} symbol tables, expected exactly 1")
    tab = sections[symtabs[0]]
    strings = sections[tab.link]
    if strings.type != SHT_STRTAB:
        fail(f"symbol table links to section {tab.link} which is not a STRTAB")
    names = _strtab(data, (0, 0, 0, 0, strings.offset, strings.size), tab.link)
    count = tab.size // 24
    if count == 0 or tab.info > count:
        fail(f"symbol table has {count} entries and first global {tab.info}")
    symbols, seen = [], set()
    for i in range(count):
        st_name, info, _other, shndx, value, size = _SYM.unpack_from(data, tab.offset + 24 * i)
        name = _string(names, st_name, f"symbol {i}")
        binding, kind = info >> 4, info & 0xF
        if binding not in _STB_NAMES or kind not in _STT_NAMES:
            fail(f"symbol {i} '{name}' has binding {binding} / type {kind}; only "
                 f"LOCAL/GLOBAL/WEAK and NOTYPE/OBJECT/FUNC/SECTION/FILE are supported "
                 f"(no thread-locals or ifuncs)")
        if (binding == 0) != (i < tab.info):
            fail(f"symbol {i} '{name}' is {_STB_NAMES[binding]} but the symbol table says "
                 f"locals end at {tab.info}")
        sym = Symbol(name, _STB_NAMES[binding], _STT_NAMES[kind], shndx, value, size)
        _check_symbol(i, sym, sections)
        if name and sym.type not in ("SECTION", "FILE"):
            # Exports and imports are found by name; keep every name unique.
            if name in seen:
                fail(f"symbol '{name}' is declared twice")
            seen.add(name)
        symbols.append(sym)
    return symtabs[0], tuple(symbols)


def _check_relocation(j, rel, where, target, sections, symbols, data):
    name, width, kind = RELOCATION_KINDS[rel.type]
    if rel.offset > target.size or width > target.size - rel.offset:
        fail(f"relocation {j} of {where} patches offset {rel.offset}, outside "
             f"{target.name} ({target.size} bytes)")
    if kind == "none":
        return
    at = target.offset + rel.offset
    if any(data[at:at + width]):
        fail(f"relocation {j} of {where} patches bytes {rel.offset}..{rel.offset + width} of "
             f"{target.name}, which are not zero; a RELA object leaves them zero "
             f"(its addends are in the table)")
    if rel.symbol == 0:
        fail(f"relocation {j} of {where} (R_X86_64_{name}) has no symbol")
    sym = symbols[rel.symbol]
    if sym.type != "SECTION" and not sym.name:
        fail(f"relocation {j} of {where} (R_X86_64_{name}) refers to unnamed symbol "
             f"{rel.symbol}; relocation targets are named symbols or sections")
    if sym.section == _SHN_UNDEF:
        if name in ("PC32", "PC64") or not -PC_SLACK <= rel.addend <= PC_SLACK:
            fail(f"relocation {j} of {where} reaches import '{sym.name}' as R_X86_64_{name} "
                 f"with addend {rel.addend}; imports are reached through the PLT or GOT "
                 f"(addend within +-{PC_SLACK})")
        return
    if not sym.defined:
        fail(f"relocation {j} of {where} refers to absolute symbol '{sym.name}'")
    home = sections[sym.section]
    reach = sym.value + rel.addend
    if kind == "got":
        ok = -PC_SLACK <= rel.addend <= PC_SLACK
    elif kind == "pc":
        ok = -PC_SLACK <= reach <= home.size + PC_SLACK
    else:
        ok = 0 <= reach <= home.size
    if not ok:
        fail(f"relocation {j} of {where} (R_X86_64_{name}) points at offset {reach} of "
             f"{home.name} ({home.size} bytes): its addend {rel.addend} leaves the section")


def _read_relocations(data, sections, symtab_index, symbols):
    relocations = {}
    for i, s in enumerate(sections):
        if s.type != SHT_RELA:
            continue
        if s.link != symtab_index:
            fail(f"relocation section {i} ({s.name}) does not use the symbol table")
        if not 0 < s.info < len(sections) or s.info in relocations:
            fail(f"relocation section {i} ({s.name}) applies to invalid section {s.info}")
        target = sections[s.info]
        if target.type != SHT_PROGBITS or not target.allocated:
            fail(f"relocation section {i} ({s.name}) patches section {s.info} ({target.name}), "
                 f"which is not an allocated PROGBITS section")
        entries = []
        for j in range(s.size // 24):
            r_offset, r_info, addend = _RELA.unpack_from(data, s.offset + 24 * j)
            rel = Relocation(r_offset, r_info & 0xFFFFFFFF, r_info >> 32, addend)
            if rel.type not in RELOCATION_KINDS:
                fail(f"relocation {j} of {s.name} has type {rel.type}, which the loader does "
                     f"not apply (supported: {sorted(RELOCATION_KINDS)})")
            if rel.symbol >= len(symbols):
                fail(f"relocation {j} of {s.name} names missing symbol {rel.symbol}")
            _check_relocation(j, rel, s.name, target, sections, symbols, data)
            entries.append(rel)
        entries.sort(key=lambda r: r.offset)
        for a, b in zip(entries, entries[1:]):
            if a.offset + a.width > b.offset and b.width:
                fail(f"relocations at offsets {a.offset} and {b.offset} of {s.name} overlap")
        relocations[s.info] = tuple(entries)
    return relocations


def read_elf_object(data):
    """Validate ``data`` (bytes-like) as an llvm-cpu relocatable object and return its tables.

    Raises ModuleFormatError naming the first malformed structure (truncation, wrong
    machine, bad offsets, unsupported section/symbol/relocation kinds or flags, relocation
    targets outside their sections, unwind tables).
    """
    data = bytes(data)
    shoff, shnum, shstrndx = _read_header(data)
    sections = _read_sections(data, shoff, shnum, shstrndx)
    symtab_index, symbols = _read_symbols(data, sections)
    relocations = _read_relocations(data, sections, symtab_index, symbols)
    return ElfObject(sections, symbols, relocations)
