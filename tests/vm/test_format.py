"""The .vmfb container: round trip, mmap load, header/CRC/manifest errors, verifier, dump."""
import json
import struct

import pytest

from rt.runtime.errors import InvalidArgumentError, ModuleFormatError, NotFoundError
from rt.runtime.vm import Module, ModuleBuilder, dump
from rt.runtime.vm.format import HEADER_SIZE, reseal

from test_control import fib_module


def test_round_trip_bytes_and_file(tmp_path):
    data = fib_module().build()
    m = Module.from_bytes(data)
    assert m.name == "mymod" and m.function_names == ["fib"] and m.exports == {"fib": 0}
    assert m.functions[0].reflection == {"iree.abi.declaration": "func @fib(%n: i32) -> i32"}
    assert m.functions[0].signature.text == "0i_i" and m.functions[0].registers == (6, 0, 0)
    path = tmp_path / "fib.vmfb"
    path.write_bytes(data)
    m2 = Module.load(path)
    assert [bytes(f.code) for f in m2.functions] == [bytes(f.code) for f in m.functions]
    assert m2.location(0, 0) == "fib.mlir:2:3"


@pytest.mark.parametrize("mutate,match", [
    (lambda d: d[:40], "shorter than the 64-byte header"),
    (lambda d: b"XXXXXXXX" + d[8:], "magic"),
    (lambda d: d[:-1], "file size"),
    (lambda d: d[:100] + bytes([d[100] ^ 1]) + d[101:], "checksum mismatch"),
    (lambda d: reseal(d[:8] + struct.pack("<I", 9) + d[12:]), "version 9 is not supported"),
])
def test_container_errors(mutate, match):
    with pytest.raises(ModuleFormatError, match=match):
        Module.from_bytes(mutate(fib_module().build()))


def _rewrite_manifest(data, edit):
    moff, msize = struct.unpack_from("<QQ", data, 24)
    manifest = json.loads(data[moff:moff + msize])
    edit(manifest)
    text = json.dumps(manifest).encode()
    out = bytearray(data[:moff] + text)
    struct.pack_into("<QQQ", out, 24, moff, len(text), len(out))
    return reseal(bytes(out))


@pytest.mark.parametrize("edit,match", [
    (lambda m: m.pop("strings"), "keys"),
    (lambda m: m["functions"][0].update(registers=[1, 0, 0]), "register out of range"),
    (lambda m: m["functions"][0].update(registers=[1 << 30, 0, 0]), r"registers\[0\]"),
    (lambda m: m["functions"][0].update(cconv="0iCiD_i"), "only imports may be variadic"),
    (lambda m: m["segments"][0].update(size=1 << 40), "segment 0"),
    (lambda m: m["exports"].update(fib=7), r"exports\['fib'\]"),
    (lambda m: m["imports"].append({"name": "nodot", "cconv": "0v_v", "optional": False}), r"imports\[0\].name"),
    (lambda m: m["functions"][0].update(name="has space"), r"functions\[0\].name"),
    (lambda m: m["exports"].update({"1up": 0}), "exports key"),
])
def test_manifest_and_verifier_errors(edit, match):
    with pytest.raises(ModuleFormatError, match=match):
        Module.from_bytes(_rewrite_manifest(fib_module().build(), edit))


def test_function_names_are_mlir_symbol_names():
    mb = ModuleBuilder("mymod")
    for name in ("matmul.f32", "pack_1x9.mlir", "f$1", "conv-2d"):
        fb = mb.function(name, "0v_v", export=True)
        fb.return_([])
    m = Module.from_bytes(mb.build())
    assert m.function_names == ["matmul.f32", "pack_1x9.mlir", "f$1", "conv-2d"]
    assert m.exports == {"matmul.f32": 0, "pack_1x9.mlir": 1, "f$1": 2, "conv-2d": 3}
    with pytest.raises(InvalidArgumentError, match=r"function name 'a b' must be a symbol name"):
        mb.function("a b", "0v_v")


def _patch_word(data, function_pc, value):
    out = bytearray(data)
    struct.pack_into("<i", out, HEADER_SIZE + 4 * function_pc, value)
    return reseal(bytes(out))


def test_verifier_rejects_bad_bytecode():
    data = fib_module().build()
    with pytest.raises(ModuleFormatError, match="invalid opcode 9999 at pc 0"):
        Module.from_bytes(_patch_word(data, 0, 9999))
    with pytest.raises(ModuleFormatError, match="register out of range"):
        Module.from_bytes(_patch_word(data, 1, 50))
    with pytest.raises(ModuleFormatError, match="not on an instruction boundary"):
        Module.from_bytes(_patch_word(data, 9, 1))  # cond_br true target


def test_load_missing_file(tmp_path):
    with pytest.raises(NotFoundError, match="does not exist"):
        Module.load(tmp_path / "nope.vmfb")
    (tmp_path / "empty.vmfb").write_bytes(b"")
    with pytest.raises(ModuleFormatError, match="empty file"):
        Module.load(tmp_path / "empty.vmfb")


def test_dump_shows_manifest_and_disassembly(tmp_path):
    mb = fib_module()
    mb.import_function("hal.fence.await", "0iCrD_i", optional=True)
    mb.global_("counter", "i64", initial=5)
    mb.rodata("weights", b"\0" * 100, alignment=128)
    mb.executable("dispatch_0", "vmvx-bytecode", b"abc", metadata={"workgroup_size": [1, 1, 1]})
    mb.string("hello")
    path = tmp_path / "m.vmfb"
    path.write_bytes(mb.build())
    text = dump.dump_module_file(path)
    for needle in [
        "module mymod version 0", "[0] hal.fence.await 0iCrD_i optional", "fib -> function [0]",
        "i64[0] counter = 5", '[0] "hello"', "weights align 128 size 100", "format 'vmvx-bytecode'",
        '"workgroup_size": [1, 1, 1]', "@fib 0i_i (exported as fib) registers i=6 f=0 r=0",
        'reflection iree.abi.declaration = "func @fib(%n: i32) -> i32"', "// fib.mlir:2:3",
        "0: const.i32 %i1, 2", "cmp.lt.i32.s %i2, %i0, %i1", "call @fib, (%i3), -> (%i3)", "return (%i3)",
    ]:
        assert needle in text, needle
    offsets = [line for line in text.splitlines() if line.startswith("  [") and "offset" in line]
    assert len(offsets) == 3 and all(int(line.split()[2]) % 64 == 0 for line in offsets)
