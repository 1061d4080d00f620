"""Maps a validated llvm-cpu object into memory and applies its relocations (no LLVM).

The layout follows what a static linker does for one PIC object: the allocated sections go
into one ``CodeMapping`` in three page-aligned regions, each section at its alignment:

* code: executable sections, then one 16-byte call stub per imported function reached by
  ``R_X86_64_PLT32`` (``jmp *0(%rip)`` followed by the 8-byte target, so a call lands within
  +-2 GiB however far libm is); sealed read+execute;
* constants: read-only sections, then the GOT (one 8-byte slot per symbol a GOTPCREL* entry
  names); sealed read-only;
* data: writable sections (NOBITS ones zeroed); left read-write.

Relocations (x86-64 psABI, table 4.10; S symbol, A addend, P patched address, G GOT slot):
``64`` S + A; ``PC32`` S + A - P; ``PLT32`` L + A - P with L the stub for an import, S for a
symbol of the object; ``PC64`` S + A - P (8 bytes); ``GOTPCREL``/``GOTPCRELX``/
``REX_GOTPCRELX`` G + A - P (the loads stay loads: no relaxation). 32-bit results must fit
in int32. ``read_elf_object`` has already checked every offset, index, size and relocation
target against the file, so the image writes here stay inside their sections; the types it
accepts are exactly these (and ``NONE``). Source: IREE's embedded ELF loader
(runtime/src/iree/hal/local/elf/elf_module.c, arch/x86_64.c) does the same for its
shared objects.
"""
import struct

from rt.devices.llvm_cpu._code_mapping import PAGE_SIZE, CodeMapping
from rt.devices.llvm_cpu.elf import (RELOCATION_KINDS, SHF_EXECINSTR, SHF_WRITE, SHT_NOBITS,
                                     fail)

_STUB_SIZE = 16
_STUB_PREFIX = b"\xff\x25\x00\x00\x00\x00"  # jmp *0(%rip): the 8-byte target follows
_I32 = struct.Struct("<i")
_U64 = struct.Struct("<Q")


def _align(value, alignment):
    return -(-value // alignment) * alignment


def _region(sections, indices, cursor, extra=0, extra_align=16):
    """Place ``indices`` from ``cursor``; return ({index: offset}, start of extra, end)."""
    offsets = {}
    for i in indices:
        cursor = _align(cursor, sections[i].align)
        offsets[i] = cursor
        cursor += sections[i].size
    extra_at = _align(cursor, extra_align)
    return offsets, extra_at, extra_at + extra


class Image:
    """One object mapped, relocated and sealed.

    elf: the ``ElfObject`` of ``data`` (bytes). imports: {name: address} for every undefined
    symbol. ``mapping`` owns the memory; ``address(symbol)`` gives a defined symbol's address.
    Raises ModuleFormatError for a relocation whose result does not fit its field.
    """

    def __init__(self, elf, data, imports):
        self._elf = elf
        sections = elf.sections
        alloc = [i for i, s in enumerate(sections) if s.allocated]
        code = [i for i in alloc if sections[i].flags & SHF_EXECINSTR]
        data_ = [i for i in alloc if sections[i].flags & SHF_WRITE and i not in code]
        const = [i for i in alloc if i not in code and i not in data_]
        stubs = sorted({elf.symbols[r.symbol].name for rels in elf.relocations.values()
                        for r in rels if RELOCATION_KINDS[r.type][0] == "PLT32"
                        and elf.symbols[r.symbol].name in imports
                        and not elf.symbols[r.symbol].defined})
        got = sorted({r.symbol for rels in elf.relocations.values() for r in rels
                      if RELOCATION_KINDS[r.type][2] == "got"})
        self._offsets, stub_at, end = _region(sections, code, 0, _STUB_SIZE * len(stubs))
        const_start = _align(end, PAGE_SIZE)
        offsets, got_at, end = _region(sections, const, const_start, 8 * len(got), 8)
        self._offsets.update(offsets)
        data_start = _align(end, PAGE_SIZE)
        offsets, _, end = _region(sections, data_, data_start)
        self._offsets.update(offsets)
        size = max(_align(end, PAGE_SIZE), PAGE_SIZE)
        self.mapping = CodeMapping(size)
        self.base = self.mapping.address
        self._imports = imports
        image = bytearray(size)
        for i in alloc:
            s = sections[i]
            if s.type != SHT_NOBITS:
                image[self._offsets[i]:self._offsets[i] + s.size] = data[s.offset:s.offset + s.size]
        self._stubs = {}
        for k, name in enumerate(stubs):
            at = stub_at + k * _STUB_SIZE
            image[at:at + _STUB_SIZE] = _STUB_PREFIX + _U64.pack(imports[name]) + b"\xcc\xcc"
            self._stubs[name] = self.base + at
        self._got = {}
        for k, index in enumerate(got):
            _U64.pack_into(image, got_at + 8 * k, self._symbol_address(index))
            self._got[index] = self.base + got_at + 8 * k
        for target, rels in elf.relocations.items():
            for j, rel in enumerate(rels):
                self._apply(image, target, j, rel)
        self.mapping.write(0, image)
        self.mapping.protect(0, const_start, False, True)
        self.mapping.protect(const_start, data_start - const_start, False, False)

    def _symbol_address(self, index):
        sym = self._elf.symbols[index]
        if sym.defined:
            return self.base + self._offsets[sym.section] + sym.value
        return self._imports[sym.name]

    def address(self, symbol):
        """Address of defined ``Symbol`` ``symbol`` in the mapping."""
        return self.base + self._offsets[symbol.section] + symbol.value

    def _apply(self, image, target, j, rel):
        name, width, kind = RELOCATION_KINDS[rel.type]
        if kind == "none":
            return
        at = self._offsets[target] + rel.offset
        place = self.base + at
        sym = self._elf.symbols[rel.symbol]
        if kind == "got":
            value = self._got[rel.symbol] + rel.addend - place
        elif name == "PLT32" and not sym.defined:
            value = self._stubs[sym.name] + rel.addend - place
        else:
            value = self._symbol_address(rel.symbol) + rel.addend - (place if kind == "pc" else 0)
        if width == 8:
            _U64.pack_into(image, at, value & 0xFFFFFFFFFFFFFFFF)
            return
        if not -2**31 <= value < 2**31:
            where = self._elf.sections[target].name
            fail(f"relocation {j} of {where} (R_X86_64_{name}) to '{sym.name}' needs "
                 f"displacement {value}, which does not fit 32 bits")
        _I32.pack_into(image, at, value)
