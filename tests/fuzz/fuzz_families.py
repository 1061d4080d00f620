"""The fuzz families: structure-aware mutations of rt's inputs and how each case is run.

A family is ``(mutate, run)`` over a corpus of valid inputs built once by the test session
(``build_corpus``, which needs the compiler) and read by every worker (which does not):

* ``manifest``: the JSON manifest of compiled vmvx modules (a value replaced by a boundary or
  ill-typed one, a key dropped, a list entry duplicated), resealed;
* ``bytecode``: words of a function's bytecode (opcodes, register indices, branch targets,
  immediates) replaced, resealed;
* ``elf``: the tables of llvm-cpu objects (section headers, symbols, relocations, the library
  descriptor, string tables, header fields), with a matching sha256, loaded by the llvm-cpu
  loader (not run: an object's code is trusted, docs/SECURITY.md);
* ``vmvx``: a vmvx executable inside a compiled module (its bytecode words and manifest,
  which carry the microkernels' offsets, strides and sizes), the module rebuilt.

Modules run on ``local-sync://vmvx`` with a bounded heap, fuel and a deadline, so every case
ends. A case's outcome is a short string; an exception that is not an ``RtError`` propagates
(the worker reports it as a bug). Seeds are per case: ``random.Random(f"{seed}/{family}/{i}")``.
"""
import hashlib
import json
import random
import struct
import time

import rt
from rt.runtime.errors import ModuleFormatError, RtError
from rt.runtime.vm import Module, set_thread_deadline
from rt.runtime.vm.format import read_module, reseal, write_module

DEVICE = "local-sync://vmvx?heap_capacity=64M"
FUEL = 200_000
CASE_SECONDS = 1.0

PROGRAMS = {
    "matmul": ("""
func.func @main(%a: tensor<4x5xf32>, %b: tensor<5x3xf32>) -> tensor<4x3xf32> {
  %z = tensor.empty() : tensor<4x3xf32>
  %c0 = arith.constant 0.0 : f32
  %f = linalg.fill ins(%c0 : f32) outs(%z : tensor<4x3xf32>) -> tensor<4x3xf32>
  %r = linalg.matmul ins(%a, %b : tensor<4x5xf32>, tensor<5x3xf32>) outs(%f : tensor<4x3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}""", [(4, 5), (5, 3)]),
    "elementwise": ("""
func.func @main(%a: tensor<8x6xf32>, %b: tensor<8x6xf32>) -> tensor<8x6xf32> {
  %s = arith.addf %a, %b : tensor<8x6xf32>
  %e = math.exp %s : tensor<8x6xf32>
  %r = arith.divf %e, %b : tensor<8x6xf32>
  return %r : tensor<8x6xf32>
}""", [(8, 6), (8, 6)]),
    "reduce": ("""
func.func @main(%a: tensor<6x10xf32>) -> tensor<6xf32> {
  %z = tensor.empty() : tensor<6xf32>
  %c0 = arith.constant 0.0 : f32
  %f = linalg.fill ins(%c0 : f32) outs(%z : tensor<6xf32>) -> tensor<6xf32>
  %r = linalg.reduce ins(%a : tensor<6x10xf32>) outs(%f : tensor<6xf32>) dimensions = [1]
    (%x: f32, %acc: f32) {
      %s = arith.addf %x, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<6xf32>
}""", [(6, 10)]),
}


def build_corpus():
    """Compile the programs for vmvx and llvm-cpu; returns the corpus dict the workers read."""
    import numpy as np

    from rt.devices.llvm_cpu import testing

    modules, objects = [], []
    for name, (text, shapes) in PROGRAMS.items():
        inputs = [np.linspace(0.5, 2.0, a * b, dtype=np.float32).reshape(a, b) for a, b in shapes]
        modules.append({"name": name, "vmfb": rt.compile(text, devices=["vmvx"]), "inputs": inputs})
        native = Module.from_bytes(rt.compile(text, devices=["llvm-cpu"]))
        objects += [(e.format, bytes(e.data), dict(e.metadata)) for e in native.executables]
    for obj in (testing.conformance_executable(), testing.mmt4d_executable()):
        objects.append((obj.format, bytes(obj.data), dict(obj.metadata)))
    return {"modules": modules, "objects": objects}


def _interesting(rng, value, width_bits=64, span=None):
    """A value likely to break a check on a field that held ``value``."""
    top = 1 << width_bits
    choices = [0, 1, value + 1, value - 1, value + 8, value - 8, value * 2, value + 4096,
               (1 << 31) - 1, 1 << 31, 1 << 32, (1 << 63) - 1, 1 << 63, top - 1, top - 4,
               rng.randrange(256), rng.randrange(top)]
    if span:
        choices += [span, span + 1, span - 1, rng.randrange(span + 1)]
    return rng.choice(choices) % top


# -- modules: manifest and bytecode -----------------------------------------------------------

def _manifest_of(data):
    moff, msize = struct.unpack_from("<QQ", data, 24)
    return moff, json.loads(data[moff:moff + msize])


def _with_manifest(data, moff, manifest):
    text = json.dumps(manifest, sort_keys=True, separators=(",", ":")).encode()
    out = bytearray(data[:moff] + text)
    struct.pack_into("<QQQ", out, 24, moff, len(text), len(out))
    return reseal(bytes(out))


def _paths(node, path=()):
    yield path
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, path + (k,))
    elif isinstance(node, list):
        for k, v in enumerate(node):
            yield from _paths(v, path + (k,))


def _mutate_json(rng, manifest, protect=("segments",)):
    paths = [p for p in _paths(manifest) if p and p[0] not in protect]
    path = rng.choice(paths)
    parent = manifest
    for k in path[:-1]:
        parent = parent[k]
    key, old = path[-1], parent[path[-1]]
    op = rng.randrange(4)
    if op == 0 and isinstance(parent, dict):
        del parent[key]
    elif op == 1 and isinstance(parent, list):
        parent.insert(key, json.loads(json.dumps(old)))
    elif isinstance(old, int) and not isinstance(old, bool) and op == 2:
        parent[key] = _interesting(rng, old) - (1 << 63) * rng.randrange(2)
    else:
        parent[key] = rng.choice([0, -1, 1, 2**31, 2**63, 1e308, "", "x" * 300, "i32",
                                  "0rr_r", [], {}, None, True, [0], {"a": 1}, old])


def mutate_manifest(rng, corpus):
    base = rng.choice(corpus["modules"])
    moff, manifest = _manifest_of(base["vmfb"])
    for _ in range(rng.randint(1, 2)):
        _mutate_json(rng, manifest)
    return base, _with_manifest(base["vmfb"], moff, manifest)


def _mutate_words(rng, data, segment):
    offset, size = segment["offset"], segment["size"]
    out = bytearray(data)
    for _ in range(rng.randint(1, 3)):
        pos = offset + 4 * rng.randrange(size // 4)
        old = struct.unpack_from("<i", out, pos)[0]
        other = struct.unpack_from("<i", out, offset + 4 * rng.randrange(size // 4))[0]
        new = rng.choice([0, 1, 2, 3, 7, -1, old + 1, old - 1, old + 4, other, rng.randrange(230),
                          rng.randrange(-64, 512), 1 << 20, -(1 << 31), (1 << 31) - 1])
        struct.pack_into("<i", out, pos, (new + (1 << 31)) % (1 << 32) - (1 << 31))
    return reseal(bytes(out))


def mutate_bytecode(rng, corpus):
    base = rng.choice(corpus["modules"])
    _, manifest = _manifest_of(base["vmfb"])
    fn = rng.choice(manifest["functions"])
    return base, _mutate_words(rng, base["vmfb"], manifest["segments"][fn["bytecode"]])


def run_module(base, data):
    """Load ``data`` (a mutated module) and call its ``main`` with the base inputs."""
    try:
        module = Module.from_bytes(data)
    except ModuleFormatError:
        return "rejected"
    previous = set_thread_deadline(time.monotonic() + CASE_SECONDS)
    try:
        with rt.load(module, devices=[DEVICE]) as m:
            m.context.fuel = FUEL
            m.lookup("main")(*base["inputs"])
        return "ran"
    except RtError as e:
        return "error:" + type(e).__name__
    finally:
        set_thread_deadline(previous)


# -- vmvx executables inside a module ---------------------------------------------------------

def _replace_segment(data, index, blob):
    manifest, segments = read_module(data)
    align = {r["segment"]: r["alignment"] for r in manifest["rodata"]}
    body = {k: v for k, v in manifest.items() if k != "segments"}
    parts = [(blob if k == index else bytes(s), max(64, align.get(k, 64))) for k, s in enumerate(segments)]
    return write_module(body, parts)


def mutate_vmvx(rng, corpus):
    base = rng.choice(corpus["modules"])
    manifest, _ = read_module(base["vmfb"])
    exe = rng.choice([e for e in manifest["executables"] if e["format"] == "vmvx-bytecode"])
    segment = manifest["rodata"][exe["rodata"]]["segment"]
    offset, size = (manifest["segments"][segment][k] for k in ("offset", "size"))
    inner = base["vmfb"][offset:offset + size]
    inner_manifest, _ = read_module(inner)
    if rng.random() < 0.7:
        fn = rng.choice(inner_manifest["functions"])
        inner = _mutate_words(rng, inner, inner_manifest["segments"][fn["bytecode"]])
    else:
        moff, im = _manifest_of(inner)
        _mutate_json(rng, im)
        inner = _with_manifest(inner, moff, im)
    return base, _replace_segment(base["vmfb"], segment, inner)


# -- llvm-cpu objects -------------------------------------------------------------------------

def _mutate_table(rng, edit):
    from elf_edit import RELA_FIELDS, SHDR_FIELDS, SYM_FIELDS

    kind = rng.randrange(6)
    if kind == 0:
        i = rng.randrange(len(edit.sections))
        field = rng.choice(list(SHDR_FIELDS))
        value = edit.header(i, field)
        edit.header(i, field, _interesting(rng, value, 8 * SHDR_FIELDS[field][1], len(edit.data)))
    elif kind == 1:
        at = rng.choice(edit.symbols)
        field = rng.choice(list(SYM_FIELDS))
        width = SYM_FIELDS[field][1]
        edit.set(at, field, SYM_FIELDS, _interesting(rng, edit.get(at, field, SYM_FIELDS), 8 * width,
                                                    len(edit.sections) if field == "shndx" else None))
    elif kind in (2, 3) and edit.relocations:
        _, at = rng.choice(edit.relocations)
        field = rng.choice(["offset", "type", "symbol", "addend"])
        info = edit.get(at, "info", RELA_FIELDS)
        if field == "type":
            edit.set(at, "info", RELA_FIELDS, (info >> 32 << 32) | rng.choice(
                [0, 1, 2, 3, 4, 9, 10, 11, 16, 18, 19, 22, 23, 24, 37, 41, 42, rng.randrange(64)]))
        elif field == "symbol":
            edit.set(at, "info", RELA_FIELDS, (rng.randrange(len(edit.symbols) + 2) << 32) | (info & 0xFFFFFFFF))
        else:
            edit.set(at, field, RELA_FIELDS, _interesting(rng, edit.get(at, field, RELA_FIELDS)))
    elif kind == 4:
        at = rng.choice([0x28, 0x3A, 0x3C, 0x3E, 0x10, 0x12, 0x20])
        width = 8 if at in (0x28, 0x20) else 2
        old = int.from_bytes(edit.data[at:at + width], "little")
        edit.data[at:at + width] = _interesting(rng, old, 8 * width).to_bytes(width, "little")
    else:
        i = rng.randrange(1, len(edit.sections))
        start, size = edit.header(i, "offset"), edit.header(i, "size")
        if size and start + size <= len(edit.data):
            for _ in range(rng.randint(1, 4)):
                edit.data[start + rng.randrange(size)] = rng.choice([0, 0xFF, rng.randrange(256)])


def mutate_elf(rng, corpus):
    from elf_edit import ElfEdit

    fmt, data, metadata = rng.choice(corpus["objects"])
    edit = ElfEdit(data)
    for _ in range(rng.randint(1, 2)):
        _mutate_table(rng, edit)
    if rng.random() < 0.05:
        edit.data = edit.data[:rng.randrange(len(edit.data))]
    out = bytes(edit.data)
    return (fmt, metadata), out


def run_elf(base, data):
    from rt.devices.llvm_cpu import LOADER

    fmt, metadata = base
    try:
        library = LOADER.load(fmt, data, dict(metadata, sha256=hashlib.sha256(data).hexdigest()))
    except RtError as e:
        return "error:" + type(e).__name__
    return "loaded" if library.exports is not None else "loaded-empty"


FAMILIES = {
    "manifest": (mutate_manifest, run_module),
    "bytecode": (mutate_bytecode, run_module),
    "vmvx": (mutate_vmvx, run_module),
    "elf": (mutate_elf, run_elf),
}


def make_case(family, seed, index, corpus):
    """``(base, data)`` of case ``index`` of ``family`` (deterministic in seed and index)."""
    mutate, _ = FAMILIES[family]
    return mutate(random.Random(f"{seed}/{family}/{index}"), corpus)


def run_case(family, base, data):
    """The outcome of running one case made by ``make_case``."""
    return FAMILIES[family][1](base, data)
