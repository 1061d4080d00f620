"""Bytecode verifier: run at load on every function, before anything executes.

Checks, per function: every opcode is valid and its operands lie inside the function; register
operands are below the function's counts for the operand's bank; branch targets (br, cond_br,
switch) land on instruction boundaries; function, import, global, rodata and string ordinals
and list element types exist; call/call.import/call.variadic argument and result registers match
the banks of the callee's cconv (variadic spans expanded); return values match the function's
own cconv; the arguments fit the register counts; the function ends in a terminator.
The interpreter relies on these facts and does no per-instruction checking of its own.
Source: iree/vm/bytecode/verifier.c (same checklist, rt's encoding).

Errors: :class:`ModuleFormatError` naming module, function, pc, op and operand.
"""
from rt.runtime.errors import ModuleFormatError
from rt.runtime.vm.bytecode import TAG_SHIFT, TAG_TYPES, decode
from rt.runtime.vm.cconv import BANK_OF

_BANK_INDEX = {"i": 0, "f": 1, "r": 2}
_TAG_BANK = (0, 0, 1, 1, 2)
_GLOBAL_BANK = {"gi32": "i32", "gi64": "i64", "gf32": "f32", "gf64": "f64", "gref": "ref"}


def verify_function(module, ordinal):
    """Verify function ``ordinal`` of ``module`` (a Module); returns its decoded instructions."""
    fn = module.functions[ordinal]
    where = f"module {module.name}, function @{fn.name}"
    counts = fn.registers
    instrs = decode(fn.code, where)
    if not instrs:
        raise ModuleFormatError(f"{where}: empty bytecode; a function needs at least a return")
    if not instrs[-1].op.term:
        raise ModuleFormatError(f"{where}: ends with {instrs[-1].op.name}; the last instruction must be a terminator")
    for bank, n in zip("ifr", counts):
        need = sum(1 for b in fn.signature.arg_banks if b == bank)
        if need > n:
            raise ModuleFormatError(f"{where}: {need} arguments in bank {bank} but only {n} registers")
    starts = {ins.pc for ins in instrs}
    nfunc, imports = len(module.functions), module.imports

    def bad(ins, oname, what, value):
        raise ModuleFormatError(f"{where}: {ins.op.name} at pc {ins.pc}: operand {oname!r} {what} (got {value})")

    def regs(ins, oname, indices, banks):
        if len(indices) != len(banks):
            bad(ins, oname, f"must list {len(banks)} registers of banks {''.join(banks) or '(none)'}", len(indices))
        for idx, bank in zip(indices, banks):
            if not 0 <= idx < counts[_BANK_INDEX[bank]]:
                bad(ins, oname, f"register out of range for bank {bank} ({counts[_BANK_INDEX[bank]]} registers)", idx)

    for ins in instrs:
        sig = None
        spans = ()
        for (oname, kind), v in zip(ins.op.operands, ins.operands):
            if kind in _BANK_INDEX:
                if not 0 <= v < counts[_BANK_INDEX[kind]]:
                    bad(ins, oname, f"register out of range for bank {kind} ({counts[_BANK_INDEX[kind]]} registers)", v)
            elif kind == "label":
                if v not in starts:
                    bad(ins, oname, "is not on an instruction boundary", v)
            elif kind == "targets":
                for t in v:
                    if t not in starts:
                        bad(ins, oname, "has a target not on an instruction boundary", t)
            elif kind == "func":
                if not 0 <= v < nfunc:
                    bad(ins, oname, f"is not a function ordinal (module has {nfunc})", v)
                sig = module.functions[v].signature
            elif kind == "import":
                if not 0 <= v < len(imports):
                    bad(ins, oname, f"is not an import ordinal (module has {len(imports)})", v)
                sig = imports[v].signature
                if sig.is_variadic != (ins.op.name == "call.variadic"):
                    bad(ins, oname, "variadic imports need call.variadic, fixed ones call.import", imports[v].name)
            elif kind == "spans":
                if len(v) != sig.span_count or any(k < 0 for k in v):
                    bad(ins, oname, f"needs {sig.span_count} non-negative span counts", list(v))
                spans = v
            elif kind == "args":
                if sig.is_variadic:
                    expected = sum(len(a) * spans[k] for k, a in enumerate(a for a in sig.args if isinstance(a, tuple)))
                    expected += sum(1 for a in sig.args if not isinstance(a, tuple))
                    if expected != len(v):
                        bad(ins, oname, f"must list {expected} registers for spans {list(spans)}", len(v))
                letters = sig.expand_args(spans) if sig.is_variadic else sig.args
                regs(ins, oname, v, [BANK_OF[a] for a in letters])
            elif kind == "results":
                regs(ins, oname, v, sig.result_banks)
            elif kind == "rets":
                regs(ins, oname, v, fn.signature.result_banks)
            elif kind == "values":
                for tagged in v:
                    t, idx = tagged >> TAG_SHIFT, tagged & ((1 << TAG_SHIFT) - 1)
                    if not 0 <= t < len(TAG_TYPES) or idx >= counts[_TAG_BANK[t]]:
                        bad(ins, oname, "has an invalid tagged register", tagged)
            elif kind in _GLOBAL_BANK:
                n = len(module.globals[_GLOBAL_BANK[kind]])
                if not 0 <= v < n:
                    bad(ins, oname, f"is not a {_GLOBAL_BANK[kind]} global ordinal (module has {n})", v)
            elif kind == "rodata":
                if not 0 <= v < len(module.rodata):
                    bad(ins, oname, f"is not a rodata ordinal (module has {len(module.rodata)})", v)
            elif kind == "string":
                if not 0 <= v < len(module.strings):
                    bad(ins, oname, f"is not a string ordinal (module has {len(module.strings)})", v)
            elif kind == "type":
                if not 0 <= v <= 5:
                    bad(ins, oname, "is not a list element type (0 any, 1 i32, 2 i64, 3 f32, 4 f64, 5 ref)", v)
    return instrs


def verify_module(module):
    """Verify every function of ``module``; raises ModuleFormatError on the first problem."""
    for k in range(len(module.functions)):
        verify_function(module, k)
