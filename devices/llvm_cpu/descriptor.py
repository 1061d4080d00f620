"""Reads an llvm-cpu object's library descriptor from its bytes, without running its code.

The descriptor (``rt_library_v0``, layout ``abi.LIBRARY_V0``) is constant data whose pointer
fields are filled in by relocations when the loader maps the object. Rather than mapping it
and calling its library query (native code from the module) and then following the pointers it
returns, the loader resolves each pointer field here, statically: a pointer field must be
patched by exactly one ``R_X86_64_64`` relocation whose target (symbol + addend) lies inside a
file-backed section of the image, strings must end inside their section, tables must fit in
theirs, and every export function must be a global function symbol of an executable section
(its mapped address is then looked up by name). Bytes read as plain data may not be patched by
any relocation, so what is read here is what the mapped image holds.
Source: the checks IREE's embedded ELF loader makes on ``iree_hal_executable_library_v0_t``
(runtime/src/iree/hal/local/executable_library.h, loaders/embedded_elf_loader.c).
"""
import bisect
import struct

from rt.devices.llvm_cpu import abi
from rt.devices.llvm_cpu.elf import _R_X86_64_64, SHF_EXECINSTR, fail
from rt.runtime.errors import ModuleFormatError, UnimplementedError
from rt.runtime.hal.executable_library import ExportInfo
from rt.runtime.record import Record


class LibraryDescriptor(Record):
    """A decoded descriptor: ``exports`` (ExportInfo) and the symbol naming each export's code."""

    __slots__ = ("version", "name", "cpu_features", "exports", "export_symbols")


class _Image:
    """The object's file-backed sections with their relocations, for bounded reads."""

    def __init__(self, elf, data):
        self.elf, self.data = elf, data
        self._offsets = {k: [r.offset for r in rels] for k, rels in elf.relocations.items()}

    def _relocations(self, section, lo, hi):
        rels = self.elf.relocations.get(section, ())
        start = max(bisect.bisect_left(self._offsets.get(section, []), lo - 8), 0)
        return [r for r in rels[start:] if r.offset < hi and r.offset + r.width > lo]

    def read(self, section, offset, size, what):
        """``size`` bytes at ``offset`` of ``section`` that no relocation patches."""
        s = self.elf.sections[section]
        if not s.in_file or offset < 0 or offset > s.size or size > s.size - offset:
            fail(f"library descriptor: {what} ({size} bytes at offset {offset}) lies outside "
                 f"section {section} ({s.name}, {s.size} bytes)")
        if self._relocations(section, offset, offset + size):
            fail(f"library descriptor: {what} is patched by a relocation; it must be constant")
        return self.data[s.offset + offset:s.offset + offset + size]

    def u32(self, section, offset, what):
        return struct.unpack("<I", self.read(section, offset, 4, what))[0]

    def pointer(self, section, offset, what):
        """The relocation filling the pointer at ``offset``: (symbol, addend), or None if null."""
        s = self.elf.sections[section]
        if offset < 0 or offset + 8 > s.size:
            fail(f"library descriptor: {what} lies outside section {section} ({s.name})")
        rels = self._relocations(section, offset, offset + 8)
        if not rels:
            if any(self.read(section, offset, 8, what)):
                fail(f"library descriptor: {what} is an absolute address, not a pointer into "
                     f"the image")
            return None
        rel = rels[0]
        if len(rels) != 1 or rel.offset != offset or rel.type != _R_X86_64_64:
            fail(f"library descriptor: {what} must be filled by one 64-bit absolute relocation")
        return self.elf.symbols[rel.symbol], rel.addend

    def target(self, section, offset, what):
        """(section, offset) a non-null data pointer at ``offset`` points to."""
        found = self.pointer(section, offset, what)
        if found is None:
            fail(f"library descriptor: {what} is a null pointer")
        sym, addend = found
        if not sym.defined or not self.elf.sections[sym.section].in_file:
            fail(f"library descriptor: {what} points outside the object's data")
        return sym.section, sym.value + addend

    def string(self, section, offset, what):
        """The NUL-terminated UTF-8 string a pointer at ``offset`` points to."""
        home, start = self.target(section, offset, what)
        s = self.elf.sections[home]
        if not 0 <= start < s.size:
            fail(f"library descriptor: {what} points at offset {start}, outside section "
                 f"{s.name} ({s.size} bytes)")
        end = self.data.find(b"\0", s.offset + start, s.offset + s.size)
        if end < 0:
            fail(f"library descriptor: {what} is not NUL-terminated inside section {s.name}")
        text = self.read(home, start, end - s.offset - start, what)
        try:
            return text.decode("utf-8")
        except UnicodeDecodeError as e:
            raise ModuleFormatError(f"llvm-cpu library descriptor: {what} is not UTF-8 "
                                    f"({e})") from None


def _export_symbol(image, section, offset, what):
    found = image.pointer(section, offset, what)
    if found is None:
        fail(f"library descriptor: {what} is a null function pointer")
    sym, addend = found
    home = image.elf.sections[sym.section] if sym.defined else None
    if (addend != 0 or sym.type != "FUNC" or sym.binding != "GLOBAL" or home is None
            or not home.flags & SHF_EXECINSTR):
        fail(f"library descriptor: {what} must point at a global function of the object, "
             f"not {sym.binding} {sym.type} '{sym.name}' + {addend}")
    return sym.name


def read_library_descriptor(elf, data):
    """Decode the ``rt_library_v0`` descriptor of a validated object (``read_elf_object``).

    data: the object bytes. Returns a LibraryDescriptor. Raises ModuleFormatError when the
    descriptor is missing or any of its pointers, strings or tables leaves the image, and
    UnimplementedError for an ABI version other than ``abi.ABI_VERSION``.
    """
    data = bytes(data)
    sym = elf.symbol(abi.LIBRARY_DESCRIPTOR_SYMBOL)
    lib = abi.LIBRARY_V0
    if sym is None or not sym.defined or sym.type != "OBJECT" or sym.size != lib.size:
        fail(f"no {lib.size}-byte data symbol '{abi.LIBRARY_DESCRIPTOR_SYMBOL}' (the library "
             f"descriptor); objects built before it was named must be recompiled")
    home, base = sym.section, sym.value
    image = _Image(elf, data)
    version = image.u32(home, base + lib.offset("abi_version"), "abi_version")
    if version != abi.ABI_VERSION:
        raise UnimplementedError(f"llvm-cpu object uses ABI version {version}; this runtime "
                                 f"speaks version {abi.ABI_VERSION}")
    count = image.u32(home, base + lib.offset("export_count"), "export_count")
    if count > abi.MAX_EXPORTS:
        fail(f"library descriptor: {count} exports exceeds the limit of {abi.MAX_EXPORTS}")
    name = image.string(home, base + lib.offset("name"), "library name")
    features = image.string(home, base + lib.offset("cpu_features"), "cpu_features")
    tables = {}
    for field in ("export_names", "export_fns", "export_attrs"):
        if image.pointer(home, base + lib.offset(field), field) is None:
            if count:
                fail(f"library descriptor: {field} is null but export_count is {count}")
        else:
            tables[field] = image.target(home, base + lib.offset(field), field)
    attrs = abi.EXPORT_ATTRS_V0
    exports, symbols = [], []
    for i in range(count):
        export_name = image.string(*_at(tables["export_names"], 8 * i), f"export {i} name")
        symbols.append(_export_symbol(image, *_at(tables["export_fns"], 8 * i),
                                      f"export {i} function"))
        sec, at = _at(tables["export_attrs"], attrs.size * i)
        raw = image.read(sec, at, attrs.size, f"export {i} attributes")
        bindings, constants, *size = struct.unpack_from("<5I", raw, 0)
        if bindings > abi.MAX_BINDINGS or constants > abi.MAX_CONSTANTS or min(size) < 1:
            fail(f"library '{name}': export '{export_name}' declares {bindings} bindings, "
                 f"{constants} constants, workgroup size {tuple(size)}; expected at most "
                 f"{abi.MAX_BINDINGS} bindings, {abi.MAX_CONSTANTS} constants, sizes >= 1")
        exports.append(ExportInfo(export_name, bindings, constants, tuple(size)))
    return LibraryDescriptor(version, name, features, tuple(exports), tuple(symbols))


def _at(table, delta):
    section, offset = table
    return section, offset + delta
