"""ModuleBuilder: write ``.vmfb`` modules from Python (the compiler's VM emission target).

    mb = ModuleBuilder("mymod")
    fb = mb.function("fib", "0i_i", export=True)
    (n,) = fb.args
    ...
    data = mb.build()

FunctionBuilder has one emitter method per op of isa.yaml (``add_i32``, ``cmp_lt_i32_s``,
``global_load_ref``, ``return_``...), generated into ``_generated/isa_emitters.py``. Registers are
typed handles from ``fb.reg(type)``; arguments are ``fb.args`` in the cconv's banks (the n-th
integer argument is integer register n, likewise for floats and refs).
Source: iree/compiler/Dialect/VM/Target/Bytecode/BytecodeEncoder (ordinal + register encoding).

Errors: :class:`InvalidArgumentError` naming the function, op and operand when an operand has
the wrong bank or type, a label is unbound, a callee is unknown or a cconv does not match.
"""
import array
import struct

from rt.runtime.errors import InvalidArgumentError
from rt.runtime.vm.bytecode import TAG_SHIFT, TAG_TYPES
from rt.runtime.vm.cconv import BANK_OF, TYPE_OF, parse_cconv
from rt.runtime.vm.format import write_module
from rt.runtime.vm.manifest import IDENT, MAX_ALIGNMENT, MAX_REGISTERS, QUALIFIED, SYMBOL
from rt.runtime.vm._generated.isa_emitters import Emitters
from rt.runtime.vm._generated.isa_table import OPS

BANK_OF_TYPE = {"i32": "i", "i64": "i", "f32": "f", "f64": "f", "ref": "r"}
BANK_NAMES = {"i": "integer (i32/i64)", "f": "float (f32/f64)", "r": "ref"}
#: list.alloc element type codes.
LIST_TYPES = {"any": 0, "i32": 1, "i64": 2, "f32": 3, "f64": 4, "ref": 5}


class Reg:
    """A register: ``bank`` ("i", "f", "r"), ``index`` within the bank, ``type`` name."""

    __slots__ = ("bank", "index", "type")

    def __init__(self, type_, index):
        self.type, self.bank, self.index = type_, BANK_OF_TYPE[type_], index

    def __repr__(self):
        return f"%{self.bank}{self.index}:{self.type}"


class Label:
    """A branch target; bind it with ``FunctionBuilder.bind``."""

    __slots__ = ("pc", "name")

    def __init__(self, name):
        self.pc, self.name = None, name


class ImportRef:
    __slots__ = ("ordinal", "name", "signature", "optional")

    def __init__(self, ordinal, name, signature, optional):
        self.ordinal, self.name, self.signature, self.optional = ordinal, name, signature, optional


class GlobalRef:
    __slots__ = ("ordinal", "name", "type")

    def __init__(self, ordinal, name, type_):
        self.ordinal, self.name, self.type = ordinal, name, type_


class RodataRef:
    __slots__ = ("ordinal", "name")

    def __init__(self, ordinal, name):
        self.ordinal, self.name = ordinal, name


def _wrap32(v):
    return (v & 0xFFFFFFFF) - ((1 << 32) if v & 0x80000000 else 0)


class FunctionBuilder(Emitters):
    """Builds one function's bytecode; created by :meth:`ModuleBuilder.function`."""

    def __init__(self, module, ordinal, name, cconv, export, reflection):
        self.module, self.ordinal, self.name = module, ordinal, name
        self.signature = parse_cconv(cconv)
        if self.signature.is_variadic:
            raise InvalidArgumentError(f"function @{name}: cconv {cconv!r} has a variadic span; only imports may")
        self.export, self.reflection = export, dict(reflection or {})
        self._counts = {"i": 0, "f": 0, "r": 0}
        self._words = []
        self._label_fixups = []
        self._func_fixups = []
        self._calls = []
        self._locations = []
        self._loc = None
        self._last_op = None
        self.args = tuple(self.reg(TYPE_OF[a]) for a in self.signature.args)

    def reg(self, type_):
        """A new register of ``type_`` ("i32", "i64", "f32", "f64", "ref")."""
        if type_ not in BANK_OF_TYPE:
            raise InvalidArgumentError(f"@{self.name}: register type {type_!r}; expected i32, i64, f32, f64 or ref")
        bank = BANK_OF_TYPE[type_]
        if self._counts[bank] >= MAX_REGISTERS:
            raise InvalidArgumentError(f"@{self.name}: more than {MAX_REGISTERS} {BANK_NAMES[bank]} registers")
        r = Reg(type_, self._counts[bank])
        self._counts[bank] += 1
        return r

    def label(self, name=None):
        return Label(name)

    def bind(self, label):
        """Place ``label`` at the next instruction."""
        if not isinstance(label, Label) or label.pc is not None:
            raise InvalidArgumentError(f"@{self.name}: bind() needs a Label that is not bound yet, got {label!r}")
        label.pc = len(self._words)
        self._last_op = None

    def loc(self, file, line, col):
        """Attach ``file:line:col`` to the instructions emitted after this call."""
        self._loc = (str(file), int(line), int(col))

    @property
    def pc(self):
        return len(self._words)

    def _err(self, op, oname, what, got):
        raise InvalidArgumentError(f"@{self.name} {op.name}: operand {oname!r} must be {what}, got {got!r}")

    def _regs(self, op, oname, regs, banks=None):
        if not isinstance(regs, (list, tuple)) or not all(isinstance(r, Reg) for r in regs):
            self._err(op, oname, "a list of registers", regs)
        if banks is not None:
            got = tuple(r.bank for r in regs)
            if got != tuple(banks):
                self._err(op, oname, f"registers of banks {''.join(banks) or '(none)'} (per the cconv)", regs)
        return [len(regs)] + [r.index for r in regs]

    def _emit(self, opcode, operands):
        op = OPS[opcode]
        w = self._words
        start = len(w)
        if self._loc is not None and (not self._locations or self._locations[-1][1:] != list(self._loc)):
            self._locations.append([start, *self._loc])
        out = [opcode]
        sig = None
        labels, funcs, calls = [], [], []
        for (oname, kind), v in zip(op.operands, operands):
            if kind in ("i", "f", "r"):
                if not isinstance(v, Reg) or v.bank != kind:
                    self._err(op, oname, f"a {BANK_NAMES[kind]} register", v)
                out.append(v.index)
            elif kind == "imm32":
                if type(v) is not int or not -(1 << 31) <= v < (1 << 32):
                    self._err(op, oname, "an int in [-2^31, 2^32)", v)
                out.append(_wrap32(v))
            elif kind == "imm64":
                if type(v) is not int or not -(1 << 63) <= v < (1 << 64):
                    self._err(op, oname, "an int in [-2^63, 2^64)", v)
                out += [_wrap32(v), _wrap32(v >> 32)]
            elif kind == "immf32":
                out.append(struct.unpack("<i", struct.pack("<f", float(v)))[0])
            elif kind == "immf64":
                out += list(struct.unpack("<ii", struct.pack("<d", float(v))))
            elif kind == "type":
                if v not in LIST_TYPES:
                    self._err(op, oname, "one of " + ", ".join(LIST_TYPES), v)
                out.append(LIST_TYPES[v])
            elif kind == "label":
                if not isinstance(v, Label):
                    self._err(op, oname, "a Label", v)
                labels.append((start + len(out), v))
                out.append(-1)
            elif kind == "targets":
                if not isinstance(v, (list, tuple)) or not all(isinstance(t, Label) for t in v):
                    self._err(op, oname, "a list of Labels", v)
                out.append(len(v))
                for t in v:
                    labels.append((start + len(out), t))
                    out.append(-1)
            elif kind == "func":
                name = v.name if isinstance(v, FunctionBuilder) else v
                if not isinstance(name, str):
                    self._err(op, oname, "a function name or FunctionBuilder", v)
                funcs.append((start + len(out), name))
                calls.append((start, name, operands[1], operands[2]))
                out.append(-1)
            elif kind == "import":
                if not isinstance(v, ImportRef) or self.module._imports[v.ordinal] is not v:
                    self._err(op, oname, "an ImportRef from this module's import_function()", v)
                if v.signature.is_variadic != (op.name == "call.variadic"):
                    self._err(op, oname, "a variadic import for call.variadic, a fixed one for call.import", v.name)
                sig = v.signature
                out.append(v.ordinal)
            elif kind in ("gi32", "gi64", "gf32", "gf64", "gref"):
                want = kind[1:] if kind != "gref" else "ref"
                if not isinstance(v, GlobalRef) or v.type != want:
                    self._err(op, oname, f"a {want} GlobalRef", v)
                out.append(v.ordinal)
            elif kind == "rodata":
                if not isinstance(v, RodataRef):
                    self._err(op, oname, "a RodataRef", v)
                out.append(v.ordinal)
            elif kind == "string":
                out.append(self.module.string(v) if isinstance(v, str) else v)
            elif kind == "spans":
                if sig is None or not isinstance(v, (list, tuple)) or len(v) != sig.span_count or \
                        not all(type(k) is int and 0 <= k < (1 << 20) for k in v):
                    self._err(op, oname, "one repetition count per variadic span of the import", v)
                out += [len(v), *v]
                spans = v
            elif kind == "args":
                banks = None
                if sig is not None:
                    banks = [BANK_OF[a] for a in sig.expand_args(spans if sig.is_variadic else ())]
                out += self._regs(op, oname, v, banks)
            elif kind == "results":
                out += self._regs(op, oname, v, sig.result_banks if sig is not None else None)
            elif kind == "rets":
                out += self._regs(op, oname, v, self.signature.result_banks)
            elif kind == "values":
                self._regs(op, oname, v)
                out += [len(v)] + [(TAG_TYPES.index(r.type) << TAG_SHIFT) | r.index for r in v]
            else:
                raise AssertionError(kind)
        w.extend(out)
        self._label_fixups += labels
        self._func_fixups += funcs
        self._calls += calls
        self._last_op = op

    def _finish(self, ordinals):
        if self._last_op is None or not self._last_op.term:
            raise InvalidArgumentError(
                f"@{self.name}: the function must end in a terminator (return_, br, cond_br, switch, fail)"
            )
        for pos, label in self._label_fixups:
            if label.pc is None:
                raise InvalidArgumentError(f"@{self.name}: label {label.name or ''} is used but never bound")
            self._words[pos] = label.pc
        for pos, name in self._func_fixups:
            if name not in ordinals:
                raise InvalidArgumentError(f"@{self.name}: call to unknown function @{name}")
            self._words[pos] = ordinals[name]
        for pc, name, args, results in self._calls:
            callee = self.module._functions[ordinals[name]].signature
            if tuple(r.bank for r in args) != callee.arg_banks or tuple(r.bank for r in results) != callee.result_banks:
                raise InvalidArgumentError(
                    f"@{self.name} call at pc {pc}: registers {list(args)} -> {list(results)} do not match "
                    f"@{name}'s cconv {callee.text}"
                )
        return array.array("i", self._words).tobytes()


class ModuleBuilder:
    """Collects functions, imports, globals, rodata, executables and strings; ``build()`` -> bytes."""

    def __init__(self, name, version=0, attributes=None):
        if not isinstance(name, str) or not IDENT.match(name):
            raise InvalidArgumentError(f"module name {name!r} must be an identifier ([A-Za-z_][A-Za-z0-9_]*)")
        self.name, self.version, self.attributes = name, int(version), dict(attributes or {})
        self._functions, self._imports, self._strings, self._string_index = [], [], [], {}
        self._globals = {b: [] for b in ("i32", "i64", "f32", "f64", "ref")}
        self._rodata, self._executables = [], []

    def import_function(self, name, cconv, optional=False):
        """Declare an import ``module.function`` with its cconv; returns an ImportRef."""
        if not isinstance(name, str) or not QUALIFIED.match(name):
            raise InvalidArgumentError(f"import name {name!r} must be fully qualified, like 'hal.fence.await'")
        sig = parse_cconv(cconv)
        for imp in self._imports:
            if imp.name == name:
                if imp.signature != sig:
                    raise InvalidArgumentError(f"import {name} declared twice with cconvs {imp.signature.text} and {sig.text}")
                return imp
        imp = ImportRef(len(self._imports), name, sig, bool(optional))
        self._imports.append(imp)
        return imp

    def global_(self, name, type_, initial=None):
        """Declare a global of ``type_`` (i32 i64 f32 f64 ref); returns a GlobalRef."""
        if type_ not in self._globals:
            raise InvalidArgumentError(f"global {name!r}: type {type_!r}; expected i32, i64, f32, f64 or ref")
        if type_ == "ref":
            if initial is not None:
                raise InvalidArgumentError(f"global {name!r}: ref globals start null; initial must be None")
        elif type_ in ("i32", "i64"):
            initial = 0 if initial is None else initial
            bits = 32 if type_ == "i32" else 64
            if type(initial) is not int or not -(1 << (bits - 1)) <= initial < (1 << bits):
                raise InvalidArgumentError(f"global {name!r}: initial {initial!r} is not an {type_}")
        else:
            initial = float(0.0 if initial is None else initial)
        g = GlobalRef(len(self._globals[type_]), name, type_)
        self._globals[type_].append((name, initial))
        return g

    def rodata(self, name, data, alignment=64):
        """Add a read-only data segment (bytes-like); returns a RodataRef."""
        if type(alignment) is not int or alignment < 1 or alignment > MAX_ALIGNMENT or alignment & (alignment - 1):
            raise InvalidArgumentError(f"rodata {name!r}: alignment {alignment!r} must be a power of two <= {MAX_ALIGNMENT}")
        r = RodataRef(len(self._rodata), name)
        self._rodata.append((name, bytes(memoryview(data).cast("B")), alignment))
        return r

    def executable(self, name, format, data, metadata=None, alignment=64):
        """Embed an executable: a rodata segment plus a manifest entry; returns its RodataRef."""
        ro = self.rodata(name, data, alignment)
        self._executables.append({"name": name, "format": str(format), "rodata": ro.ordinal,
                                  "metadata": dict(metadata or {})})
        return ro

    def string(self, text):
        """Intern ``text`` in the string table; returns its ordinal."""
        if not isinstance(text, str):
            raise InvalidArgumentError(f"string table entries must be str, got {text!r}")
        if text not in self._string_index:
            self._string_index[text] = len(self._strings)
            self._strings.append(text)
        return self._string_index[text]

    def function(self, name, cconv, export=False, reflection=None):
        """Start a function; returns its FunctionBuilder."""
        if not isinstance(name, str) or not SYMBOL.match(name):
            raise InvalidArgumentError(f"function name {name!r} must be a symbol name "
                                       f"([A-Za-z_][A-Za-z0-9_.$-]*)")
        if any(f.name == name for f in self._functions):
            raise InvalidArgumentError(f"function @{name} defined twice in module {self.name}")
        fb = FunctionBuilder(self, len(self._functions), name, cconv, bool(export), reflection)
        self._functions.append(fb)
        return fb

    def build(self):
        """Serialize to ``.vmfb`` bytes."""
        ordinals = {f.name: f.ordinal for f in self._functions}
        segments, functions = [], []
        for f in self._functions:
            segments.append((f._finish(ordinals), 64))
            functions.append({
                "name": f.name, "cconv": f.signature.text,
                "registers": [f._counts["i"], f._counts["f"], f._counts["r"]],
                "bytecode": len(segments) - 1, "reflection": f.reflection, "locations": f._locations,
            })
        rodata = []
        for name, data, alignment in self._rodata:
            segments.append((data, alignment))
            rodata.append({"name": name, "alignment": alignment, "segment": len(segments) - 1})
        manifest = {
            "name": self.name, "version": self.version, "attributes": self.attributes,
            "functions": functions,
            "exports": {f.name: f.ordinal for f in self._functions if f.export},
            "imports": [{"name": i.name, "cconv": i.signature.text, "optional": i.optional} for i in self._imports],
            "globals": {b: [{"name": n, "initial": v} for n, v in g] for b, g in self._globals.items()},
            "strings": list(self._strings), "rodata": rodata, "executables": list(self._executables),
        }
        return write_module(manifest, segments)
