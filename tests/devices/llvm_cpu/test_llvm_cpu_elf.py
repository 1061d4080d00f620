"""The ELF validator that runs before LLVM sees an object."""
import random
import struct

import pytest
from llvmlite import ir

from elf_edit import RELA_FIELDS, SYM_FIELDS, ElfEdit
from llvm_cpu_helpers import build
from rt.devices.llvm_cpu import LOADER
from rt.compiler.codegen.llvm_cpu.interface import I32
from rt.compiler.codegen.llvm_cpu.target import cpu_target, emit_object
from rt.devices.llvm_cpu import testing
from rt.devices.llvm_cpu.elf import read_elf_object
from rt.runtime.errors import ModuleFormatError


def _section_table(data):
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    shnum = struct.unpack_from("<H", data, 0x3C)[0]
    return shoff, shnum


def test_valid_object_tables():
    elf = read_elf_object(testing.conformance_executable().data)
    names = {s.name for s in elf.sections}
    assert {".text", ".symtab", ".strtab"} <= names
    assert ".eh_frame" not in names
    assert "rt_library_query" in elf.defined_symbols
    assert {"empty", "add_f32", "fail_at", "mmt4d_f32"} <= set(elf.defined_symbols)
    assert elf.undefined_symbols == []


def test_undefined_symbols_listed():
    def emit(lb):
        fn = lb.declare_export("k")
        b = ir.IRBuilder(fn.append_basic_block())
        total = I32(0)
        for name in ("zeta_ext", "alpha_ext"):
            ext = ir.Function(lb.module, ir.FunctionType(I32, []), name)
            total = b.add(total, b.call(ext, []))
        b.ret(total)
        lb.add_export(fn, 0, 0)

    assert read_elf_object(build(emit).data).undefined_symbols == ["alpha_ext", "zeta_ext"]


def test_unwind_tables_rejected():
    module = ir.Module("unwinds")
    fn = ir.Function(module, ir.FunctionType(I32, []), "may_unwind")
    ir.IRBuilder(fn.append_basic_block()).ret(I32(0))
    data = emit_object(module, cpu_target("host"), opt=0)  # no nounwind inferred at -O0
    with pytest.raises(ModuleFormatError, match=r"unwind tables \(\.eh_frame\); llvm-cpu exports must be nounwind"):
        read_elf_object(data)


@pytest.mark.parametrize("offset,value,message", [
    (0, b"\x7fELG", "bad magic"),
    (4, b"\x01", "not \\(2, 1, 1\\)"),
    (5, b"\x02", "not \\(2, 1, 1\\)"),
    (0x10, struct.pack("<H", 2), "type 2, machine 62"),
    (0x12, struct.pack("<H", 3), "machine 3"),
    (0x3A, struct.pack("<H", 40), "shentsize=40"),
    (0x3C, struct.pack("<H", 0xFFF0), "section count"),
    (0x3E, struct.pack("<H", 0x7FFF), "name table index"),
    (0x28, struct.pack("<Q", 2**40), "past the end"),
])
def test_header_corruption_named(offset, value, message):
    data = bytearray(testing.empty_executable().data)
    data[offset:offset + len(value)] = value
    with pytest.raises(ModuleFormatError, match=message):
        read_elf_object(bytes(data))


def test_section_out_of_bounds_named():
    data = bytearray(testing.empty_executable().data)
    shoff, shnum = _section_table(data)
    # Section 1's sh_size (offset 0x20 in its header) made huge.
    struct.pack_into("<Q", data, shoff + 64 + 0x20, 2**33)
    with pytest.raises(ModuleFormatError, match="section 1 spans bytes"):
        read_elf_object(bytes(data))


def test_bad_relocation_type_named():
    data = bytearray(testing.elementwise_add_executable().data)
    shoff, shnum = _section_table(data)
    for i in range(shnum):
        sh_type, = struct.unpack_from("<I", data, shoff + 64 * i + 4)
        if sh_type == 4:  # SHT_RELA
            offset, = struct.unpack_from("<Q", data, shoff + 64 * i + 0x18)
            struct.pack_into("<I", data, offset + 8, 37)  # R_X86_64_IRELATIVE
            break
    else:
        pytest.fail("test object has no relocations")
    with pytest.raises(ModuleFormatError, match="has type 37, which the loader does not apply"):
        read_elf_object(bytes(data))


def test_random_corruption_never_escapes_as_other_errors():
    """Random byte flips in header and tables give a clean error or a parsed object."""
    original = testing.conformance_executable().data
    shoff, shnum = _section_table(original)
    regions = [(0, 64), (shoff, shoff + 64 * shnum)]
    for i in range(shnum):
        sh_type, = struct.unpack_from("<I", original, shoff + 64 * i + 4)
        if sh_type in (2, 3, 4):  # symbol, string and relocation tables
            off, size = struct.unpack_from("<QQ", original, shoff + 64 * i + 0x18)
            regions.append((off, off + size))
    rng = random.Random(5)
    outcomes = {"rejected": 0, "parsed": 0}
    for _ in range(3000):
        data = bytearray(original)
        for _ in range(rng.randint(1, 4)):
            lo, hi = rng.choice(regions)
            data[rng.randrange(lo, hi)] = rng.randrange(256)
        try:
            read_elf_object(bytes(data))
            outcomes["parsed"] += 1
        except ModuleFormatError:
            outcomes["rejected"] += 1
    assert outcomes["rejected"] > 500 and sum(outcomes.values()) == 3000


# -- issue 13, defect 2: crafted structure must be rejected before the loader maps the object --------

def _descriptor_relocation(edit, field):
    """File offset of the relocation filling ``field`` of the library descriptor."""
    from rt.devices.llvm_cpu import abi

    sym_at = edit.symbol(abi.LIBRARY_DESCRIPTOR_SYMBOL)
    home = edit.get(sym_at, "shndx", SYM_FIELDS)
    where = edit.get(sym_at, "value", SYM_FIELDS) + abi.LIBRARY_V0.offset(field)
    for at in edit.relocations_of(edit.names[home]):
        if edit.get(at, "offset", RELA_FIELDS) == where:
            return at
    raise AssertionError(f"no relocation fills {field}")


def _load(edit, obj):
    LOADER.load(*edit.executable(obj))


@pytest.mark.parametrize("addend", [2**40, -2**40, 2**31, 10**6])
def test_relocation_addend_out_of_range_rejected(addend):
    obj = testing.conformance_executable()
    edit = ElfEdit(obj.data)
    at = edit.relocations_of(".text")[0]
    edit.set(at, "addend", RELA_FIELDS, addend)
    with pytest.raises(ModuleFormatError, match=r"its addend -?\d+ leaves the section"):
        _load(edit, obj)


@pytest.mark.parametrize("flag,name", [(0x400, "TLS"), (0x200, "GROUP"), (0x800, "COMPRESSED"),
                                       (0x10000000, "X86_64_LARGE"), (0x100000, "0x100000")])
def test_section_flags_mcjit_cannot_load_rejected(flag, name):
    obj = testing.conformance_executable()
    edit = ElfEdit(obj.data)
    data = edit.section(".data.rel.ro")
    edit.header(data, "flags", edit.header(data, "flags") | flag)
    with pytest.raises(ModuleFormatError, match=f"section {data} has flags {name}, which the loader does not map"):
        _load(edit, obj)


def test_symbol_value_outside_its_section_rejected():
    obj = testing.conformance_executable()
    edit = ElfEdit(obj.data)
    text_size = edit.header(edit.section(".text"), "size")
    edit.set(edit.symbol("add_f32"), "value", SYM_FIELDS, text_size + 16)
    with pytest.raises(ModuleFormatError, match=r"symbol \d+ 'add_f32' at offset \d+ .* lies outside section"):
        _load(edit, obj)


def test_symbol_extent_past_its_section_rejected():
    obj = testing.conformance_executable()
    edit = ElfEdit(obj.data)
    edit.set(edit.symbol("add_f32"), "size", SYM_FIELDS, 2**63)
    with pytest.raises(ModuleFormatError, match="'add_f32' at offset .* lies outside section"):
        _load(edit, obj)


@pytest.mark.parametrize("field", ["name", "cpu_features", "export_names", "export_fns", "export_attrs"])
def test_descriptor_pointer_outside_image_rejected(field):
    obj = testing.conformance_executable()
    edit = ElfEdit(obj.data)
    edit.set(_descriptor_relocation(edit, field), "addend", RELA_FIELDS, 2**32)
    with pytest.raises(ModuleFormatError, match="leaves the section"):
        _load(edit, obj)


@pytest.mark.parametrize("field", ["name", "export_fns"])
def test_descriptor_pointer_without_relocation_rejected(field):
    """A pointer field left as a raw address is refused, not followed."""
    from rt.devices.llvm_cpu import abi

    obj = testing.conformance_executable()
    edit = ElfEdit(obj.data)
    at = _descriptor_relocation(edit, field)
    edit.set(at, "info", RELA_FIELDS, 0)  # R_X86_64_NONE: the field keeps its stored bytes
    sym_at = edit.symbol(abi.LIBRARY_DESCRIPTOR_SYMBOL)
    section = edit.get(sym_at, "shndx", SYM_FIELDS)
    where = edit.header(section, "offset") + edit.get(sym_at, "value", SYM_FIELDS) + abi.LIBRARY_V0.offset(field)
    struct.pack_into("<Q", edit.data, where, 0x4141414141414141)
    with pytest.raises(ModuleFormatError, match=r"library descriptor: (library name|export_fns) is an absolute address"):
        _load(edit, obj)


def test_descriptor_export_pointing_at_data_rejected():
    obj = testing.conformance_executable()
    edit = ElfEdit(obj.data)
    fns = _descriptor_relocation(edit, "export_fns")
    table_at = edit.get(fns, "addend", RELA_FIELDS)
    for at in edit.relocations_of(".data.rel.ro"):
        if edit.get(at, "offset", RELA_FIELDS) == table_at:  # export 0's function pointer
            edit.set(at, "info", RELA_FIELDS, edit.get(fns, "info", RELA_FIELDS))
            edit.set(at, "addend", RELA_FIELDS, 0)
    with pytest.raises(ModuleFormatError, match="export 0 function must point at a global function"):
        _load(edit, obj)


def test_descriptor_string_without_terminator_rejected():
    obj = testing.conformance_executable()
    edit = ElfEdit(obj.data)
    at = _descriptor_relocation(edit, "name")
    sym = edit.symbols[edit.get(at, "info", RELA_FIELDS) >> 32]
    section = edit.get(sym, "shndx", SYM_FIELDS)
    start, size = edit.header(section, "offset"), edit.header(section, "size")
    edit.data[start:start + size] = b"A" * size
    with pytest.raises(ModuleFormatError, match="is not NUL-terminated inside section"):
        _load(edit, obj)


def test_relocation_patching_descriptor_counts_rejected():
    """export_count must be the constant the loader read, not something a relocation rewrites."""
    from rt.devices.llvm_cpu import abi

    obj = testing.conformance_executable()
    edit = ElfEdit(obj.data)
    at = _descriptor_relocation(edit, "name")
    base = edit.get(at, "offset", RELA_FIELDS) - abi.LIBRARY_V0.offset("name")
    edit.set(at, "offset", RELA_FIELDS, base)  # now patches abi_version/export_count
    with pytest.raises(ModuleFormatError, match="patched by a relocation; it must be constant|which are not zero"):
        _load(edit, obj)


def test_relocation_against_import_as_pc32_rejected():
    """A PC32 displacement to libm may not fit in 32 bits: imports go through the PLT/GOT."""
    obj = testing.conformance_executable()
    edit = ElfEdit(obj.data)
    at = edit.relocations_of(".text")[0]
    edit.set(at, "info", RELA_FIELDS, (0 << 32) | 2)
    with pytest.raises(ModuleFormatError, match=r"R_X86_64_PC32\) has no symbol"):
        _load(edit, obj)


def test_relocation_over_nonzero_bytes_rejected():
    """A RELA object leaves patched bytes zero; MCJIT (the first loader) added them to a PC32
    addend, and a relocation moved one byte onto an opcode made it assert (found by fuzzing)."""
    obj = testing.conformance_executable()
    edit = ElfEdit(obj.data)
    text = edit.section(".text")
    at = edit.relocations_of(".text")[0]
    offset = edit.get(at, "offset", RELA_FIELDS)
    edit.data[edit.header(text, "offset") + offset] = 0x90
    with pytest.raises(ModuleFormatError, match="which are not zero; a RELA object leaves them zero"):
        _load(edit, obj)


def test_relocation_against_renamed_symbol_rejected():
    """An emptied or duplicated local name sent a PC32 relocation to a far address under
    MCJIT, which resolved targets by name (found by the fuzz suite); names stay unique."""
    obj = testing.mmt4d_executable()
    edit = ElfEdit(obj.data)
    used = {edit.get(at, "info", RELA_FIELDS) >> 32 for _, at in edit.relocations}
    named = [k for k in sorted(used) if edit.symbol_names[k] and not edit.symbol_names[k].startswith(".")
             or edit.symbol_names[k].startswith(".L")]
    k = named[0]
    edit.set(edit.symbols[k], "name", SYM_FIELDS, 0)
    with pytest.raises(ModuleFormatError, match=f"refers to unnamed symbol {k}"):
        _load(edit, obj)
    edit = ElfEdit(obj.data)
    other = edit.get(edit.symbol("rt_library_query"), "name", SYM_FIELDS)
    edit.set(edit.symbols[k], "name", SYM_FIELDS, other)
    with pytest.raises(ModuleFormatError, match="symbol 'rt_library_query' is declared twice"):
        _load(edit, obj)


def test_non_ascii_symbol_name_rejected():
    obj = testing.conformance_executable()
    edit = ElfEdit(obj.data)
    strtab = edit.header(edit.section(".strtab"), "offset")
    name = edit.get(edit.symbol("add_f32"), "name", SYM_FIELDS)
    edit.data[strtab + name] = 0xC3
    with pytest.raises(ModuleFormatError, match="is not ASCII"):
        _load(edit, obj)
