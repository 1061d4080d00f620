"""The table of ``test_elementwise_op_table``: every op of rt's ``math`` and ``arith`` dialects on
every element type it takes, with inputs inside the op's defined domain and a numpy reference.

An entry is one elementwise ``linalg.generic`` whose body is one op: ``Case(op, operand types,
result types, body text, reference, inputs)``. ``cases()`` lists them all; ``EXCLUDED`` names the
dialect ops no entry tests and why. Undefined-behaviour inputs (shifts by the bit width or more,
float -> int out of range, division by zero) are tested apart (``test_undefined_behaviour``).

Inputs are exactly representable in their element type; references are computed in float64 (or
Python integers) from those inputs and rounded once to the result type.
"""
import math
import zlib
from dataclasses import dataclass

import ml_dtypes
import numpy as np

N = 19  # elements per operand: a vector loop and a scalar tail on llvm-cpu
FLOATS = ("f16", "bf16", "f32", "f64")
INTS = ("i1", "i8", "i16", "i32", "i64")
WIDTH = {"i1": 1, "i8": 8, "i16": 16, "i32": 32, "i64": 64}
DTYPE = {"f16": np.float16, "bf16": ml_dtypes.bfloat16, "f32": np.float32, "f64": np.float64,
         "i1": np.bool_, "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64}
#: Relative (and absolute) tolerance of a float result: a few units in its last place.
TOLERANCE = {"f16": 4e-3, "bf16": 3e-2, "f32": 4e-6, "f64": 1e-13}

#: Dialect ops no entry exercises, with the reason.
EXCLUDED = {
    "arith.constant": "not elementwise over operands; every other entry's body and the e2e "
                      "programs use it",
    "arith.scaling_extf": "MX formats (f4E2M1FN/f8 with f8E8M0FNU scales) only; "
                          "tests/e2e/programs/f4_e2m1fn.mlir",
    "arith.scaling_truncf": "MX formats only; tests/e2e/programs/f4_e2m1fn.mlir",
}


@dataclass(frozen=True)
class Case:
    """One table entry: ``name`` is the function name; ``body`` the op's text over ``%x0``...
    giving ``%y0``...; ``reference(*inputs)`` -> list of float64/int arrays, one per result."""

    name: str
    op: str
    operands: tuple
    results: tuple
    body: str
    reference: object
    inputs: tuple

    def mlir(self):
        """``func.func @<name>`` over ``tensor<N x T>`` operands, the op in a linalg.generic."""
        tensor = [f"tensor<{N}x{t}>" for t in self.operands]
        out = [f"tensor<{N}x{t}>" for t in self.results]
        ident = ", ".join(["affine_map<(d0) -> (d0)>"] * (len(tensor) + len(out)))
        args = ", ".join(f"%a{i}: {t}" for i, t in enumerate(tensor))
        empties = "\n".join(f"  %e{i} = tensor.empty() : {t}" for i, t in enumerate(out))
        bb = ", ".join([f"%x{i}: {t}" for i, t in enumerate(self.operands)]
                       + [f"%o{i}: {t}" for i, t in enumerate(self.results)])
        ys = ", ".join(f"%y{i}" for i in range(len(out)))
        rs = ", ".join(f"%r#{i}" if len(out) > 1 else "%r" for i in range(len(out)))
        return (f"func.func @{self.name}({args}) -> ({', '.join(out)}) {{\n{empties}\n"
                f"  %r{':' + str(len(out)) if len(out) > 1 else ''} = linalg.generic "
                f"{{indexing_maps = [{ident}], iterator_types = [\"parallel\"]}}\n"
                f"      ins({', '.join(f'%a{i}' for i in range(len(tensor)))} : {', '.join(tensor)})"
                f" outs({', '.join(f'%e{i}' for i in range(len(out)))} : {', '.join(out)}) {{\n"
                f"  ^bb0({bb}):\n    {self.body}\n"
                f"    linalg.yield {ys} : {', '.join(self.results)}\n"
                f"  }} -> ({', '.join(out)})\n  return {rs} : {', '.join(out)}\n}}\n")


# -- inputs ------------------------------------------------------------------------------------
def _rng(*key):
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


def floats(t, lo, hi, seed, quantum=None, specials=()):
    """N values of float type ``t`` in [lo, hi] (multiples of ``quantum`` if given), with
    ``specials`` first."""
    x = _rng("f", t, lo, hi, seed).uniform(lo, hi, N)
    if quantum:
        x = np.round(x / quantum) * quantum
    x[:len(specials)] = specials
    return np.asarray(x).astype(DTYPE[t])


def ints(t, seed, lo=None, hi=None, specials=None):
    """N values of integer type ``t`` in [lo, hi] (default: its whole range, edges first)."""
    w = WIDTH[t]
    if t == "i1":
        return _rng("i", t, seed).integers(0, 2, N).astype(bool)
    mn, mx = -(1 << (w - 1)), (1 << (w - 1)) - 1
    lo, hi = (mn if lo is None else lo), (mx if hi is None else hi)
    x = _rng("i", t, seed, lo, hi).integers(lo, hi, N, endpoint=True, dtype=np.int64)
    if specials is None:
        specials = [v for v in (0, 1, -1, mn, mx, mn + 1, mx - 1) if lo <= v <= hi]
    x[:len(specials)] = specials
    return x.astype(DTYPE[t])


# -- integer semantics (Python ints) -------------------------------------------------------------
def signed(x, t):
    """Elements of ``x`` as Python ints, sign-interpreted (i1: 0 / -1)."""
    return [(-int(v) if t == "i1" else int(v)) for v in x]


def unsigned(x, t):
    return [int(v) & ((1 << WIDTH[t]) - 1) for v in x]


def wrap(values, t):
    """Python ints -> array of ``t`` (two's complement wrap)."""
    w = WIDTH[t]
    out = []
    for v in values:
        v &= (1 << w) - 1
        out.append(v - (1 << w) if w > 1 and v >> (w - 1) else v)
    return np.array(out, dtype=DTYPE[t]) if t != "i1" else np.array(out, dtype=np.int64).astype(bool)


def _tdiv(a, b):
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _int_binary(fn, interpret):
    def ref(a, b, t):
        xs = unsigned(a, t) if interpret == "u" else signed(a, t)
        ys = unsigned(b, t) if interpret in ("u", "amount") else signed(b, t)
        return wrap([fn(x, y, t) for x, y in zip(xs, ys)], t)
    return ref


def _ipow(x, n):
    if n >= 0:
        return x ** n
    return 1 if x == 1 else ((-1) ** (-n) if x == -1 else 0)


INT_BINARY = {  # op -> (how operands are read, f(a, b, type), divisor nonzero?)
    "arith.addi": ("s", lambda a, b, t: a + b, False),
    "arith.subi": ("s", lambda a, b, t: a - b, False),
    "arith.muli": ("s", lambda a, b, t: a * b, False),
    "arith.divsi": ("s", lambda a, b, t: _tdiv(a, b), True),
    "arith.divui": ("u", lambda a, b, t: a // b, True),
    "arith.remsi": ("s", lambda a, b, t: a - b * _tdiv(a, b), True),
    "arith.remui": ("u", lambda a, b, t: a % b, True),
    "arith.floordivsi": ("s", lambda a, b, t: a // b, True),
    "arith.ceildivsi": ("s", lambda a, b, t: -((-a) // b), True),
    "arith.ceildivui": ("u", lambda a, b, t: -((-a) // b), True),
    "arith.minsi": ("s", lambda a, b, t: min(a, b), False),
    "arith.maxsi": ("s", lambda a, b, t: max(a, b), False),
    "arith.minui": ("u", lambda a, b, t: min(a, b), False),
    "arith.maxui": ("u", lambda a, b, t: max(a, b), False),
    "arith.andi": ("s", lambda a, b, t: a & b, False),
    "arith.ori": ("s", lambda a, b, t: a | b, False),
    "arith.xori": ("s", lambda a, b, t: a ^ b, False),
    "math.ipowi": ("s", lambda a, b, t: _ipow(a, b), False),
}
SHIFTS = {"arith.shli": ("u", lambda a, b, t: a << b), "arith.shrui": ("u", lambda a, b, t: a >> b),
          "arith.shrsi": ("amount", lambda a, b, t: a >> b)}  # amounts are unsigned
CMPI = {"eq": ("s", int.__eq__), "ne": ("s", int.__ne__), "slt": ("s", int.__lt__),
        "sle": ("s", int.__le__), "sgt": ("s", int.__gt__), "sge": ("s", int.__ge__),
        "ult": ("u", int.__lt__), "ule": ("u", int.__le__), "ugt": ("u", int.__gt__),
        "uge": ("u", int.__ge__)}
INT_UNARY = {
    "math.absi": ("s", lambda a, t: abs(a)),
    "math.ctpop": ("u", lambda a, t: bin(a).count("1")),
    "math.ctlz": ("u", lambda a, t: WIDTH[t] - a.bit_length()),
    "math.cttz": ("u", lambda a, t: WIDTH[t] if a == 0 else (a & -a).bit_length() - 1),
}


# -- float semantics (float64) -------------------------------------------------------------------
def _round_half_away(x):
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


_erf = np.vectorize(math.erf, otypes=[np.float64])
_erfc = np.vectorize(math.erfc, otypes=[np.float64])
FLOAT_UNARY = {  # op -> (reference, (lo, hi), quantum of the inputs or None)
    "arith.negf": (np.negative, (-4, 4), None),
    "math.absf": (np.abs, (-4, 4), None),
    "math.acos": (np.arccos, (-0.99, 0.99), None),
    "math.acosh": (np.arccosh, (1.01, 6), None),
    "math.asin": (np.arcsin, (-0.99, 0.99), None),
    "math.asinh": (np.arcsinh, (-5, 5), None),
    "math.atan": (np.arctan, (-5, 5), None),
    "math.atanh": (np.arctanh, (-0.95, 0.95), None),
    "math.cbrt": (np.cbrt, (-9, 9), None),
    "math.ceil": (np.ceil, (-4, 4), 0.25),
    "math.cos": (np.cos, (-4, 4), None),
    "math.cosh": (np.cosh, (-4, 4), None),
    "math.erf": (_erf, (-3, 3), None),
    "math.erfc": (_erfc, (-2, 3), None),
    "math.exp": (np.exp, (-4, 4), None),
    "math.exp2": (np.exp2, (-4, 4), None),
    "math.expm1": (np.expm1, (-2, 2), None),
    "math.floor": (np.floor, (-4, 4), 0.25),
    "math.log": (np.log, (0.1, 10), None),
    "math.log10": (np.log10, (0.1, 10), None),
    "math.log1p": (np.log1p, (-0.5, 4), None),
    "math.log2": (np.log2, (0.1, 10), None),
    "math.round": (_round_half_away, (-4, 4), 0.25),
    "math.roundeven": (np.rint, (-4, 4), 0.25),
    "math.rsqrt": (lambda x: 1 / np.sqrt(x), (0.1, 10), None),
    "math.sin": (np.sin, (-4, 4), None),
    "math.sinh": (np.sinh, (-4, 4), None),
    "math.sqrt": (np.sqrt, (0, 10), None),
    "math.tan": (np.tan, (-1.2, 1.2), None),
    "math.tanh": (np.tanh, (-4, 4), None),
    "math.trunc": (np.trunc, (-4, 4), 0.25),
}
_NAN = (np.nan, 1.0, -0.0, 0.0)  # NaN against a number and signed zeros, first lanes
FLOAT_BINARY = {  # op -> (reference, (lo, hi) of a, (lo, hi) of b, special a, special b)
    "arith.addf": (np.add, (-4, 4), (-4, 4), (), ()),
    "arith.subf": (np.subtract, (-4, 4), (-4, 4), (), ()),
    "arith.mulf": (np.multiply, (-4, 4), (-4, 4), (), ()),
    "arith.divf": (np.divide, (-4, 4), (0.5, 4), (), ()),
    "arith.remf": (np.fmod, (-9, 9), (0.5, 4), (), ()),
    "arith.maximumf": (np.maximum, (-4, 4), (-4, 4), _NAN, (1.0, np.nan, 0.0, -0.0)),
    "arith.minimumf": (np.minimum, (-4, 4), (-4, 4), _NAN, (1.0, np.nan, 0.0, -0.0)),
    "arith.maxnumf": (np.fmax, (-4, 4), (-4, 4), _NAN[:2], (1.0, np.nan)),
    "arith.minnumf": (np.fmin, (-4, 4), (-4, 4), _NAN[:2], (1.0, np.nan)),
    "math.atan2": (np.arctan2, (-4, 4), (-4, 4), (), ()),
    "math.copysign": (np.copysign, (-4, 4), (-4, 4), (), (-0.0, 0.0)),
    "math.powf": (np.power, (0.1, 4), (-3, 3), (), ()),
}
#: cmpf predicate -> reference on float64 (unordered: true when either operand is NaN).
CMPF = {"false": lambda a, b: np.zeros(a.shape, bool), "true": lambda a, b: np.ones(a.shape, bool)}
for _p, _f in (("eq", np.equal), ("gt", np.greater), ("ge", np.greater_equal), ("lt", np.less),
               ("le", np.less_equal), ("ne", np.not_equal)):
    CMPF["o" + _p] = (lambda f: lambda a, b: f(a, b) & ~np.isnan(a) & ~np.isnan(b))(_f)
    CMPF["u" + _p] = (lambda f: lambda a, b: f(a, b) | np.isnan(a) | np.isnan(b))(_f)
CMPF["one"] = lambda a, b: (a != b) & ~np.isnan(a) & ~np.isnan(b)
CMPF["une"] = lambda a, b: (a != b) | np.isnan(a) | np.isnan(b)
CMPF["ord"] = lambda a, b: ~np.isnan(a) & ~np.isnan(b)
CMPF["uno"] = lambda a, b: np.isnan(a) | np.isnan(b)



# -- the entries ---------------------------------------------------------------------------------
def _f64(x):
    return np.asarray(x).astype(np.float64)


def _float_cases():
    for t in FLOATS:
        for op, (fn, (lo, hi), q) in FLOAT_UNARY.items():
            x = floats(t, lo, hi, op, q)
            yield Case(f"{op.split('.')[1]}_{t}", op, (t,), (t,), f"%y0 = {op} %x0 : {t}",
                       lambda a, fn=fn: [fn(_f64(a))], (x,))
        for op, (fn, ra, rb, sa, sb) in FLOAT_BINARY.items():
            a, b = floats(t, *ra, op, specials=sa), floats(t, *rb, op + "b", specials=sb)
            yield Case(f"{op.split('.')[1]}_{t}", op, (t, t), (t,), f"%y0 = {op} %x0, %x1 : {t}",
                       lambda a, b, fn=fn: [fn(_f64(a), _f64(b))], (a, b))
        abc = tuple(floats(t, -3, 3, "fma", k) for k in range(3))
        yield Case(f"fma_{t}", "math.fma", (t, t, t), (t,), f"%y0 = math.fma %x0, %x1, %x2 : {t}",
                   lambda a, b, c: [_f64(a) * _f64(b) + _f64(c)], abc)
        special = floats(t, -4, 4, "classify", specials=(np.nan, np.inf, -np.inf, 0.0, -np.nan))
        for op, fn in (("math.isnan", np.isnan), ("math.isinf", np.isinf), ("math.isfinite", np.isfinite)):
            yield Case(f"{op.split('.')[1]}_{t}", op, (t,), ("i1",), f"%y0 = {op} %x0 : {t}",
                       lambda a, fn=fn: [fn(_f64(a))], (special,))
        base = floats(t, 0.5, 3, "fpowi") * np.where(np.arange(N) % 3 == 0, -1, 1).astype(DTYPE[t])
        for it in INTS[1:]:
            n = ints(it, "fpowi", -3, 4)
            yield Case(f"fpowi_{t}_{it}", "math.fpowi", (t, it), (t,), f"%y0 = math.fpowi %x0, %x1 : {t}, {it}",
                       lambda a, n: [_f64(a) ** _f64(n)], (base, n))
        a = floats(t, -2, 2, "cmpf", 0.5, specials=(np.nan, 1.0, np.nan, 0.0))
        b = floats(t, -2, 2, "cmpf2", 0.5, specials=(1.0, np.nan, np.nan, -0.0))
        for pred, fn in CMPF.items():
            yield Case(f"cmpf_{pred}_{t}", "arith.cmpf", (t, t), ("i1",), f"%y0 = arith.cmpf {pred}, %x0, %x1 : {t}",
                       lambda a, b, fn=fn: [fn(_f64(a), _f64(b))], (a, b))


def _int_cases():
    for t in INTS:
        w = WIDTH[t]
        for op, (how, fn, divides) in INT_BINARY.items():
            a = ints(t, op)
            if op == "math.ipowi":
                a, b = ints(t, op, -3, 3) if w > 1 else a, ints(t, op + "b", -1 if w > 1 else None, min(5, (1 << (w - 1)) - 1 if w > 1 else 0))
            elif divides:
                b = ints(t, op + "b", specials=[1, -1, 2, -1, -1, 3, -2][:N] if w > 1 else [1] * N)
                b = np.where(b == 0, np.ones_like(b), b)
            else:
                b = ints(t, op + "b")
            yield Case(f"{op.split('.')[1]}_{t}", op, (t, t), (t,), f"%y0 = {op} %x0, %x1 : {t}",
                       lambda a, b, ref=_int_binary(fn, how), t=t: [ref(a, b, t)], (a, b))
        for op, (how, fn) in SHIFTS.items():
            a, b = ints(t, op), ints(t, op + "b", 0, w - 1, specials=[0, w - 1])
            yield Case(f"{op.split('.')[1]}_{t}", op, (t, t), (t,), f"%y0 = {op} %x0, %x1 : {t}",
                       lambda a, b, ref=_int_binary(fn, how), t=t: [ref(a, b, t)], (a, b))
        a, b = ints(t, "cmpi"), ints(t, "cmpi2")
        b[::3] = a[::3]
        for pred, (how, fn) in CMPI.items():
            read = unsigned if how == "u" else signed
            yield Case(f"cmpi_{pred}_{t}", "arith.cmpi", (t, t), ("i1",), f"%y0 = arith.cmpi {pred}, %x0, %x1 : {t}",
                       lambda a, b, fn=fn, read=read, t=t: [np.array([fn(x, y) for x, y in zip(read(a, t), read(b, t))])],
                       (a, b))
        for op, (how, fn) in INT_UNARY.items():
            read = unsigned if how == "u" else signed
            yield Case(f"{op.split('.')[1]}_{t}", op, (t,), (t,), f"%y0 = {op} %x0 : {t}",
                       lambda a, fn=fn, read=read, t=t: [wrap([fn(x, t) for x in read(a, t)], t)], (ints(t, op),))
        a, b = ints(t, "ext"), ints(t, "ext2")
        m = 1 << w
        yield Case(f"addui_extended_{t}", "arith.addui_extended", (t, t), (t, "i1"),
                   f"%y0, %y1 = arith.addui_extended %x0, %x1 : {t}, i1",
                   lambda a, b, t=t, m=m: [wrap([x + y for x, y in zip(unsigned(a, t), unsigned(b, t))], t),
                                      np.array([x + y >= m for x, y in zip(unsigned(a, t), unsigned(b, t))])], (a, b))
        for op, read in (("arith.mului_extended", unsigned), ("arith.mulsi_extended", signed)):
            yield Case(f"{op.split('.')[1]}_{t}", op, (t, t), (t, t), f"%y0, %y1 = {op} %x0, %x1 : {t}",
                       lambda a, b, t=t, w=w, read=read: [wrap([x * y for x, y in zip(read(a, t), read(b, t))], t),
                                                     wrap([(x * y) >> w for x, y in zip(read(a, t), read(b, t))], t)],
                       (a, b))
        for ty in FLOATS + INTS:
            c = ints("i1", "select" + ty)
            x, y = ((floats(ty, -4, 4, "sel"), floats(ty, -4, 4, "sel2")) if ty in FLOATS
                    else (ints(ty, "sel"), ints(ty, "sel2")))
            if t == "i1":
                yield Case(f"select_{ty}", "arith.select", ("i1", ty, ty), (ty,), f"%y0 = arith.select %x0, %x1, %x2 : {ty}",
                           lambda c, x, y: [np.where(c, x, y)], (c, x, y))


def _cast_cases():
    for s in INTS:
        for d in INTS:
            x = ints(s, "cast" + d)
            if WIDTH[d] > WIDTH[s]:
                for op, read in (("arith.extsi", signed), ("arith.extui", unsigned)):
                    yield Case(f"{op.split('.')[1]}_{s}_{d}", op, (s,), (d,), f"%y0 = {op} %x0 : {s} to {d}",
                               lambda a, s=s, d=d, read=read: [wrap(read(a, s), d)], (x,))
            elif WIDTH[d] < WIDTH[s]:
                yield Case(f"trunci_{s}_{d}", "arith.trunci", (s,), (d,), f"%y0 = arith.trunci %x0 : {s} to {d}",
                           lambda a, s=s, d=d: [wrap(signed(a, s), d)], (x,))
        for op, read in (("arith.index_cast", signed), ("arith.index_castui", unsigned)):
            x = ints(s, op)
            yield Case(f"{op.split('.')[1]}_{s}_index_i64", op, (s,), ("i64",),
                       f"%i = {op} %x0 : {s} to index\n    %y0 = arith.index_cast %i : index to i64",
                       lambda a, s=s, read=read: [wrap(read(a, s), "i64")], (x,))
            if s == "i64":
                continue
            yield Case(f"{op.split('.')[1]}_i64_index_{s}", op, ("i64",), (s,),
                       f"%i = arith.index_cast %x0 : i64 to index\n    %y0 = {op} %i : index to {s}",
                       lambda a, s=s: [wrap(signed(a, "i64"), s)], (ints("i64", op),))
        for d in FLOATS:
            for op, read in (("arith.sitofp", signed), ("arith.uitofp", unsigned)):
                yield Case(f"{op.split('.')[1]}_{s}_{d}", op, (s,), (d,), f"%y0 = {op} %x0 : {s} to {d}",
                           lambda a, s=s, read=read: [np.array(read(a, s), np.float64)], (ints(s, op + d),))
            limit = min(float(1 << (WIDTH[s] - 1)), 6e4 if d == "f16" else 1e300) * 0.99
            for op, lo, hi in (("arith.fptosi", -limit if WIDTH[s] > 1 else -1.9, limit if WIDTH[s] > 1 else 0.9),
                               ("arith.fptoui", 0, 2 * limit if WIDTH[s] > 1 else 1.9)):
                x = floats(d, lo, min(hi, 6e4) if d == "f16" else hi, op + s)
                yield Case(f"{op.split('.')[1]}_{d}_{s}", op, (d,), (s,), f"%y0 = {op} %x0 : {d} to {s}",
                           lambda a, s=s: [wrap([int(v) for v in _f64(a)], s)], (x,))
    for s, d in (("f16", "f32"), ("f16", "f64"), ("bf16", "f32"), ("bf16", "f64"), ("f32", "f64")):
        yield Case(f"extf_{s}_{d}", "arith.extf", (s,), (d,), f"%y0 = arith.extf %x0 : {s} to {d}",
                   lambda a: [_f64(a)], (floats(s, -300, 300, "extf" + d),))
        yield Case(f"truncf_{d}_{s}", "arith.truncf", (d,), (s,), f"%y0 = arith.truncf %x0 : {d} to {s}",
                   lambda a: [_f64(a)], (floats(d, -300, 300, "truncf" + s),))
    for f, i in (("f16", "i16"), ("bf16", "i16"), ("f32", "i32"), ("f64", "i64")):
        yield Case(f"bitcast_{f}_{i}", "arith.bitcast", (f,), (i,), f"%y0 = arith.bitcast %x0 : {f} to {i}",
                   lambda a, i=i: [a.view(DTYPE[i])], (floats(f, -300, 300, "bitcast"),))
        yield Case(f"bitcast_{i}_{f}", "arith.bitcast", (i,), (f,), f"%y0 = arith.bitcast %x0 : {i} to {f}",
                   lambda a, f=f: [_f64(a.view(DTYPE[f]))], (floats(f, -300, 300, "bitcast2").view(DTYPE[i]),))


def cases():
    """Every entry of the table."""
    return [*_float_cases(), *_int_cases(), *_cast_cases()]
