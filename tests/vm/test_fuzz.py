"""Fuzz the loader: >= 10,000 mutated .vmfb files (byte flips, truncation, oversized lengths,
re-sealed mutations reaching the manifest parser and the verifier; seeded RNG).

Every case must end in ModuleFormatError or a verified Module; a verified module's exports,
run with a budget, must end in a result or an RtError (never another exception or a crash).
"""
import json
import random
import struct

from rt.runtime.errors import ModuleFormatError, RtError
from rt.runtime.vm import Context, Instance, Module, NativeModule, native_function
from rt.runtime.vm.format import reseal

from test_control import fib_module
from test_imports import caller_module


class Hal(NativeModule):
    name = "hal"

    @native_function("buffer_view.create", "0rIIiiCID_r")
    def buffer_view_create(self, buffer, offset, length, element_type, encoding_type, shape):
        return ("bv", offset, length)


def _corpus():
    from rt.runtime.vm import ModuleBuilder

    mbs = [fib_module(), caller_module()]
    mb = ModuleBuilder("st")
    ro = mb.rodata("blob", bytes(range(64)), alignment=16)
    g = mb.global_("g", "i64", initial=3)
    fb = mb.function("f", "0iI_Ir", export=True)
    a, b = fb.args
    buf, lst, v = fb.reg("ref"), fb.reg("ref"), fb.reg("i64")
    head, out = fb.label(), fb.label()
    fb.const_ref_rodata(buf, ro)
    fb.list_alloc(lst, "any", a)
    fb.bind(head)
    fb.buffer_load_i64(v, buf, b)
    fb.global_store_i64(v, g)
    fb.cond_br(a, out, head)
    fb.bind(out)
    fb.trace("t", [a, v])
    fb.return_([v, lst])
    mbs.append(mb)
    return [m.build() for m in mbs]


def _args_for(sig):
    return [None if a == "r" else 0.5 if a in "fF" else 1 for a in sig.args]


def _check(data):
    try:
        m = Module.from_bytes(data)
    except ModuleFormatError:
        return "rejected"
    try:
        ctx = Context(Instance(), [Hal(), m])
    except RtError:
        return "unlinked"
    ctx.fuel = 1000
    for name, ordinal in m.exports.items():
        try:
            ctx.lookup_function(f"{m.name}.{name}")(*_args_for(m.functions[ordinal].signature))
        except RtError:
            pass
    return "ran"


def _mutate_manifest(data, rng):
    moff, msize = struct.unpack_from("<QQ", data, 24)
    text = bytearray(data[moff:moff + msize])
    digits = [k for k, ch in enumerate(text) if chr(ch).isdigit()]
    k = rng.choice(digits)
    text[k:k + 1] = rng.choice([b"9999999999999", b"-1", b"0", b"65", b"1e400", b"4294967296", b"[]", b"null"])
    out = bytearray(data[:moff] + bytes(text))
    struct.pack_into("<QQQ", out, 24, moff, len(text), len(out))
    return reseal(bytes(out))


def _mutate_bytecode(data, rng):
    moff, msize = struct.unpack_from("<QQ", data, 24)
    segs = json.loads(data[moff:moff + msize])["segments"]
    seg = segs[0]
    out = bytearray(data)
    pos = seg["offset"] + 4 * rng.randrange(seg["size"] // 4)
    struct.pack_into("<i", out, pos, rng.choice([0, 1, 2, 3, 7, -1, 200, 1 << 20, rng.randrange(-50, 300)]))
    return reseal(bytes(out))


def test_fuzz_mutations():
    rng = random.Random(20241120)
    corpus = _corpus()
    outcomes = {"rejected": 0, "unlinked": 0, "ran": 0}
    n = 0
    for base in corpus:
        assert _check(base) == "ran"
    while n < 10500:
        data = rng.choice(corpus)
        kind = n % 6
        if kind == 0:  # raw byte flips (mostly checksum failures)
            b = bytearray(data)
            for _ in range(rng.randint(1, 4)):
                b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
            data = bytes(b)
        elif kind == 1:  # truncation, resealed or not
            data = data[:rng.randrange(len(data))]
            data = reseal(data) if rng.random() < 0.5 else data
        elif kind == 2:  # oversized header lengths
            b = bytearray(data)
            field = rng.choice([24, 32, 40])
            struct.pack_into("<Q", b, field, rng.choice([1 << 62, (1 << 64) - 1, len(b) + 64, 0]))
            data = reseal(bytes(b))
        elif kind == 3:  # re-sealed byte flips anywhere
            b = bytearray(data)
            for _ in range(rng.randint(1, 3)):
                b[rng.randrange(64, len(b))] = rng.randrange(256)
            data = reseal(bytes(b))
        elif kind == 4:
            data = _mutate_manifest(data, rng)
        else:
            data = _mutate_bytecode(data, rng)
        outcomes[_check(data)] += 1
        n += 1
    assert sum(outcomes.values()) == n >= 10000
    assert outcomes["rejected"] > 1000 and outcomes["ran"] > 100
