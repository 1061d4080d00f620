"""Schema of the ``.vmfb`` manifest (JSON) and its strict validation.

Top level (every key required, no others)::

    name         str, identifier ([A-Za-z_][A-Za-z0-9_]*)
    version      int >= 0
    attributes   {str: str}                      module reflection
    functions    [{name (a symbol: [A-Za-z_][A-Za-z0-9_.$-]*, as MLIR symbol names), cconv, registers: [i, f, r], bytecode: segment, reflection: {str: str},
                   locations: [[pc, file, line, col], ...] sorted by pc}]
    exports      {name: function ordinal}
    imports      [{name: "module.function", cconv, optional: bool}]
    globals      {i32|i64|f32|f64|ref: [{name, initial}]}   (ref initial is null)
    strings      [str]
    rodata       [{name, alignment (power of two <= 65536), segment}]
    executables  [{name, format, rodata: rodata ordinal, metadata: {str: JSON}}]
    segments     [{offset, size}]

Errors: :class:`ModuleFormatError` naming the JSON path of the offending value and what was
expected. Limits keep a hostile manifest from requesting huge allocations.
"""
import re

from rt.runtime.errors import InvalidArgumentError, ModuleFormatError
from rt.runtime.vm.cconv import parse_cconv

MAX_REGISTERS = 1 << 16
MAX_ALIGNMENT = 1 << 16
BANKS = ("i32", "i64", "f32", "f64", "ref")
IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
#: function and export names: MLIR symbol names (``@matmul.f32``, ``@f$1``, ``@conv-2d``)
SYMBOL = re.compile(r"[A-Za-z_][A-Za-z0-9_.$-]*\Z")
QUALIFIED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\.[A-Za-z0-9_.$-]+\Z")
_INT_RANGE = {"i32": (-(1 << 31), (1 << 32) - 1), "i64": (-(1 << 63), (1 << 64) - 1)}


def _fail(where, what, value):
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    raise ModuleFormatError(f".vmfb manifest {where}: expected {what}, got {text}")


def _obj(v, where, keys):
    if not isinstance(v, dict) or set(v) != set(keys):
        got = sorted(v) if isinstance(v, dict) else v
        _fail(where, "an object with keys " + ", ".join(sorted(keys)), got)
    return v


def _int(v, where, lo=0, hi=(1 << 63) - 1):
    if type(v) is not int or not lo <= v <= hi:
        _fail(where, f"an integer in [{lo}, {hi}]", v)
    return v


def _str(v, where, pattern=None):
    if not isinstance(v, str) or (pattern is not None and not pattern.match(v)):
        _fail(where, "a string" + (f" matching {pattern.pattern}" if pattern else ""), v)
    return v


def _list(v, where):
    if not isinstance(v, list):
        _fail(where, "a list", v)
    return v


def _str_dict(v, where):
    if not isinstance(v, dict) or not all(isinstance(k, str) and isinstance(x, str) for k, x in v.items()):
        _fail(where, "an object of string values", v)
    return v


def _cconv(v, where):
    _str(v, where)
    try:
        return parse_cconv(v)
    except InvalidArgumentError as e:
        raise ModuleFormatError(f".vmfb manifest {where}: {e}") from None


def validate_manifest(m):
    """Validate a decoded manifest in place; raises ModuleFormatError on the first problem."""
    _obj(m, "(top level)", ("name", "version", "attributes", "functions", "exports", "imports", "globals",
                            "strings", "rodata", "executables", "segments"))
    _str(m["name"], "name", IDENT)
    _int(m["version"], "version")
    _str_dict(m["attributes"], "attributes")
    nseg = len(_list(m["segments"], "segments"))
    for k, s in enumerate(m["segments"]):
        _obj(s, f"segments[{k}]", ("offset", "size"))
        _int(s["offset"], f"segments[{k}].offset")
        _int(s["size"], f"segments[{k}].size")
    names = set()
    for k, f in enumerate(_list(m["functions"], "functions")):
        w = f"functions[{k}]"
        _obj(f, w, ("name", "cconv", "registers", "bytecode", "reflection", "locations"))
        _str(f["name"], w + ".name", SYMBOL)
        if f["name"] in names:
            _fail(w + ".name", "a name not used by another function", f["name"])
        names.add(f["name"])
        sig = _cconv(f["cconv"], w + ".cconv")
        if sig.is_variadic:
            _fail(w + ".cconv", "a cconv without variadic spans (only imports may be variadic)", f["cconv"])
        regs = _list(f["registers"], w + ".registers")
        if len(regs) != 3:
            _fail(w + ".registers", "[integer, float, ref] register counts", regs)
        for b, r in enumerate(regs):
            _int(r, f"{w}.registers[{b}]", 0, MAX_REGISTERS)
        seg = _int(f["bytecode"], w + ".bytecode", 0, nseg - 1)
        if m["segments"][seg]["size"] % 4:
            _fail(w + ".bytecode", "a segment whose size is a multiple of 4 (int32 words)", m["segments"][seg]["size"])
        _str_dict(f["reflection"], w + ".reflection")
        last = -1
        for j, loc in enumerate(_list(f["locations"], w + ".locations")):
            lw = f"{w}.locations[{j}]"
            if not isinstance(loc, list) or len(loc) != 4:
                _fail(lw, "[pc, file, line, col]", loc)
            pc = _int(loc[0], lw + "[0]", 0, m["segments"][seg]["size"] // 4)
            if pc < last:
                _fail(lw + "[0]", f"a pc >= {last} (locations sorted by pc)", pc)
            last = pc
            _str(loc[1], lw + "[1]")
            _int(loc[2], lw + "[2]", 0, 1 << 31)
            _int(loc[3], lw + "[3]", 0, 1 << 31)
    nfunc = len(m["functions"])
    if not isinstance(m["exports"], dict):
        _fail("exports", "an object of function ordinals", m["exports"])
    for name, ordinal in m["exports"].items():
        _str(name, "exports key", SYMBOL)
        _int(ordinal, f"exports[{name!r}]", 0, nfunc - 1)
    for k, imp in enumerate(_list(m["imports"], "imports")):
        w = f"imports[{k}]"
        _obj(imp, w, ("name", "cconv", "optional"))
        _str(imp["name"], w + ".name", QUALIFIED)
        _cconv(imp["cconv"], w + ".cconv")
        if not isinstance(imp["optional"], bool):
            _fail(w + ".optional", "true or false", imp["optional"])
    g = _obj(m["globals"], "globals", BANKS)
    for bank in BANKS:
        for k, entry in enumerate(_list(g[bank], f"globals.{bank}")):
            w = f"globals.{bank}[{k}]"
            _obj(entry, w, ("name", "initial"))
            _str(entry["name"], w + ".name")
            init = entry["initial"]
            if bank in _INT_RANGE:
                _int(init, w + ".initial", *_INT_RANGE[bank])
            elif bank == "ref":
                if init is not None:
                    _fail(w + ".initial", "null (ref globals start null)", init)
            elif type(init) not in (int, float) or (type(init) is int and abs(init) > (1 << 1023)):
                _fail(w + ".initial", "a number", init)
    for k, s in enumerate(_list(m["strings"], "strings")):
        _str(s, f"strings[{k}]")
    for k, r in enumerate(_list(m["rodata"], "rodata")):
        w = f"rodata[{k}]"
        _obj(r, w, ("name", "alignment", "segment"))
        _str(r["name"], w + ".name")
        a = _int(r["alignment"], w + ".alignment", 1, MAX_ALIGNMENT)
        if a & (a - 1):
            _fail(w + ".alignment", "a power of two", a)
        seg = _int(r["segment"], w + ".segment", 0, nseg - 1)
        if m["segments"][seg]["offset"] % a:
            _fail(w + ".segment", f"a segment whose offset is a multiple of the alignment {a}", m["segments"][seg]["offset"])
    nro = len(m["rodata"])
    for k, e in enumerate(_list(m["executables"], "executables")):
        w = f"executables[{k}]"
        _obj(e, w, ("name", "format", "rodata", "metadata"))
        _str(e["name"], w + ".name")
        _str(e["format"], w + ".format")
        _int(e["rodata"], w + ".rodata", 0, nro - 1)
        if not isinstance(e["metadata"], dict):
            _fail(w + ".metadata", "an object", e["metadata"])
    return m
