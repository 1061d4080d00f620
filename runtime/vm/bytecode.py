"""Bytecode decoding shared by the verifier and the disassembler.

A function's bytecode is a sequence of little-endian int32 words: the opcode, then its
operands in the order of isa.yaml. Fixed kinds take one word (64-bit immediates two, low word
first); list kinds (args, results, rets, values, targets, spans) take a count word and then
that many words. ``values`` words are bank-tagged registers: ``(type << 24) | index`` with
type 0 i32, 1 i64, 2 f32, 3 f64, 4 ref. Source: iree/vm/bytecode/ (word-oriented operands).

Errors: :class:`ModuleFormatError` for an unknown opcode or an instruction running past the
end of the function.
"""
import struct
from collections import namedtuple

from rt.runtime.errors import ModuleFormatError
from rt.runtime.vm._generated.isa_table import KIND_WORDS, OPS

Instr = namedtuple("Instr", "pc op operands size")

#: Tagged register types used by ``values`` lists (trace).
TAG_TYPES = ("i32", "i64", "f32", "f64", "ref")
TAG_SHIFT = 24


def words_of(code):
    """The int32 words of a bytecode segment (bytes-like, length a multiple of 4)."""
    return memoryview(code).cast("B").cast("i")


def imm64(lo, hi):
    return ((hi & 0xFFFFFFFF) << 32 | (lo & 0xFFFFFFFF)) - ((1 << 64) if hi < 0 else 0)


def f32_of(word):
    return struct.unpack("<f", struct.pack("<i", word))[0]


def f64_of(lo, hi):
    return struct.unpack("<d", struct.pack("<ii", lo, hi))[0]


def decode_at(words, pc, where):
    """Decode the instruction at word ``pc``; ``where`` names the function for errors."""
    n = len(words)
    opcode = words[pc]
    if not 0 <= opcode < len(OPS):
        raise ModuleFormatError(f"{where}: invalid opcode {opcode} at pc {pc}; valid opcodes are 0..{len(OPS) - 1}")
    op = OPS[opcode]
    p = pc + 1
    values = []
    for oname, kind in op.operands:
        size = KIND_WORDS[kind]
        if size is None:
            if p >= n:
                raise ModuleFormatError(f"{where}: {op.name} at pc {pc} is truncated (operand {oname!r} missing)")
            count = words[p]
            if not 0 <= count <= n - p - 1:
                raise ModuleFormatError(
                    f"{where}: {op.name} at pc {pc}: operand {oname!r} claims {count} entries but only "
                    f"{n - p - 1} words remain in the function"
                )
            values.append(tuple(words[p + 1 : p + 1 + count]))
            p += 1 + count
            continue
        if p + size > n:
            raise ModuleFormatError(f"{where}: {op.name} at pc {pc} is truncated (operand {oname!r} missing)")
        if kind == "imm64":
            values.append(imm64(words[p], words[p + 1]))
        elif kind == "immf64":
            values.append(f64_of(words[p], words[p + 1]))
        elif kind == "immf32":
            values.append(f32_of(words[p]))
        else:
            values.append(words[p])
        p += size
    return Instr(pc, op, tuple(values), p - pc)


def decode(code, where):
    """All instructions of a function's bytecode, in order."""
    words = words_of(code)
    out, pc = [], 0
    while pc < len(words):
        ins = decode_at(words, pc, where)
        out.append(ins)
        pc += ins.size
    return out
