"""Human-readable dump of a ``.vmfb``: manifest, segments and a disassembly of every function.

``python -m rt dump MODULE.vmfb`` prints :func:`dump_module_file`. The disassembly shows one
instruction per line (``pc: op operands``), registers as ``%i3`` / ``%f0`` / ``%r1`` by bank,
branch targets as ``^pc``, callees, globals, rodata and strings by name, and source locations
(``// file:line:col``) where they change. Source: the role of iree-dump-module.

Errors: ModuleFormatError / NotFoundError from loading (the dump never prints a bad module).
"""
import json
import os
import re

from rt.runtime.errors import NotFoundError
from rt.runtime.vm.bytecode import TAG_SHIFT, TAG_TYPES, decode
from rt.runtime.atomic_write import atomic_write
from rt.runtime.vm.builder import LIST_TYPES
from rt.runtime.vm.cconv import BANK_OF
from rt.runtime.vm.module import Module

_TYPE_NAMES = {v: k for k, v in LIST_TYPES.items()}
_GLOBAL_BANK = {"gi32": "i32", "gi64": "i64", "gf32": "f32", "gf64": "f64", "gref": "ref"}


def _regs(indices, letters):
    return "(" + ", ".join(f"%{BANK_OF[l]}{i}" for i, l in zip(indices, letters)) + ")"


def disassemble(module, ordinal):
    """Lines of the disassembly of function ``ordinal`` of ``module``."""
    fn = module.functions[ordinal]
    lines, last_loc = [], None
    for ins in decode(fn.code, f"@{fn.name}"):
        loc = module.location(ordinal, ins.pc)
        if loc is not None and loc != last_loc:
            lines.append(f"    // {loc}")
            last_loc = loc
        parts, sig, spans = [], None, ()
        for (oname, kind), v in zip(ins.op.operands, ins.operands):
            if kind in ("i", "f", "r"):
                parts.append(f"%{kind}{v}")
            elif kind == "label":
                parts.append(f"^{v}")
            elif kind == "targets":
                parts.append("[" + ", ".join(f"^{t}" for t in v) + "]")
            elif kind == "func":
                sig = module.functions[v].signature
                parts.append(f"@{module.functions[v].name}")
            elif kind == "import":
                sig = module.imports[v].signature
                parts.append(f"@{module.imports[v].name}")
            elif kind == "spans":
                spans = v
                parts.append("spans" + str(list(v)))
            elif kind == "args":
                parts.append(_regs(v, sig.expand_args(spans) if sig.is_variadic else sig.args))
            elif kind == "results":
                parts.append("-> " + _regs(v, sig.results))
            elif kind == "rets":
                parts.append(_regs(v, fn.signature.results))
            elif kind == "values":
                parts.append("(" + ", ".join(
                    f"%{BANK_OF['iIfFr'[t >> TAG_SHIFT]]}{t & ((1 << TAG_SHIFT) - 1)}:{TAG_TYPES[t >> TAG_SHIFT]}"
                    for t in v) + ")")
            elif kind in _GLOBAL_BANK:
                parts.append(f"@{module.globals[_GLOBAL_BANK[kind]][v][0]}")
            elif kind == "rodata":
                parts.append(f"@{module.rodata[v].name}")
            elif kind == "string":
                parts.append(json.dumps(module.strings[v]))
            elif kind == "type":
                parts.append(f"<{_TYPE_NAMES.get(v, v)}>")
            else:
                parts.append(repr(v))
        lines.append(f"    {ins.pc:5d}: {ins.op.name} {', '.join(parts)}".rstrip())
    return lines


def dump_module(module):
    """The whole manifest plus the disassembly of every function, as text."""
    import hashlib  # lazily: `rt run` does not need it at start
    m = module
    out = [f"module {m.name} version {m.version} ({m.size} bytes, source {m.source})"]
    if m.attributes:
        out.append("attributes: " + json.dumps(m.attributes, sort_keys=True))
    out.append(f"segments ({len(m.segments)}):")
    for k, (off, size) in enumerate(m.segments):
        out.append(f"  [{k}] offset {off} size {size}")
    out.append(f"imports ({len(m.imports)}):")
    for imp in m.imports:
        out.append(f"  [{imp.ordinal}] {imp.name} {imp.signature.text}{' optional' if imp.optional else ''}")
    exported = {v: k for k, v in m.exports.items()}
    out.append(f"exports ({len(m.exports)}):")
    for name, ordinal in sorted(m.exports.items()):
        out.append(f"  {name} -> function [{ordinal}]")
    out.append("globals:")
    for bank, entries in m.globals.items():
        for k, (name, init) in enumerate(entries):
            out.append(f"  {bank}[{k}] {name} = {'null' if init is None else init}")
    out.append(f"strings ({len(m.strings)}):")
    for k, s in enumerate(m.strings):
        out.append(f"  [{k}] {json.dumps(s)}")
    out.append(f"rodata ({len(m.rodata)}):")
    for r in m.rodata:
        out.append(f"  [{r.ordinal}] {r.name} align {r.alignment} size {len(r.data)} segment {m.rodata_segments[r.ordinal]}")
    out.append(f"executables ({len(m.executables)}):")
    for e in m.executables:
        out.append(f"  [{e.ordinal}] {e.name} format {e.format!r} rodata [{e.rodata}] size {len(e.data)} "
                   f"sha256 {hashlib.sha256(e.data).hexdigest()} "
                   f"metadata {json.dumps(e.metadata, sort_keys=True)}")
    sig = m.signature
    out.append("signature: " + ("none" if sig is None else
                                f"{sig.algorithm} by public key {sig.public_key.hex()} (not verified)"))
    out.append(f"functions ({len(m.functions)}):")
    for f in m.functions:
        ni, nf, nr = f.registers
        tag = f" (exported as {exported[f.ordinal]})" if f.ordinal in exported else ""
        out.append(f"  [{f.ordinal}] @{f.name} {f.signature.text}{tag} registers i={ni} f={nf} r={nr} "
                   f"bytecode segment {m.bytecode_segments[f.ordinal]} ({len(f.code)} bytes)")
        for key, value in sorted(f.reflection.items()):
            out.append(f"      reflection {key} = {json.dumps(value)}")
        out.extend(disassemble(m, f.ordinal))
    return "\n".join(out) + "\n"


def write_executables(module, directory):
    """Write each executable of ``module`` into ``directory`` (created if missing): its binary as
    ``NAME.o`` (llvm-cpu: an x86-64 ELF relocatable object, for ``objdump -d``) or ``NAME.bin``
    (other formats), and its metadata as ``NAME.json``; NAME is the executable's name with
    characters other than letters, digits, ``_``, ``-`` replaced by ``_`` (a module is not trusted
    to name files), and ``_<ordinal>`` added if two would collide. Returns the binaries' paths,
    in order; each file is replaced whole or not at all (rt.runtime.atomic_write). Raises
    NotFoundError when ``directory`` cannot be created, InvalidArgumentError when a file cannot
    be written."""
    try:
        os.makedirs(directory, exist_ok=True)
        paths, used = [], set()
        for e in module.executables:
            name = re.sub(r"[^A-Za-z0-9_-]", "_", e.name) or "executable"
            if name in used:
                name = f"{name}_{e.ordinal}"
            used.add(name)
            base = os.path.join(directory, name)
            path = base + (".o" if e.format.startswith("llvm-cpu-object") else ".bin")
            atomic_write(path, bytes(e.data), what="executable")
            atomic_write(base + ".json", json.dumps({"format": e.format, "metadata": e.metadata},
                                                    indent=2, sort_keys=True), what="executable metadata")
            paths.append(path)
        return paths
    except OSError as exc:
        raise NotFoundError(f"cannot write the executables into {directory!r}: {exc.strerror}") from None


def dump_module_file(path):
    """Load the ``.vmfb`` at ``path`` (verified) and return :func:`dump_module` of it."""
    return dump_module(Module.load(path))
