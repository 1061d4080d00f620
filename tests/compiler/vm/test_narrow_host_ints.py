"""Host scalar arithmetic on i8 and i16 (iree-vm-conversion promotes them to i32 registers):
every arith integer op, its wrapping and signedness, against numpy on both devices."""
import itertools

import numpy as np
import pytest

import rt

DEVICES = [("llvm-cpu", "local-task://llvm-cpu"), ("vmvx", "local-sync://vmvx")]
OPS = ["addi", "subi", "muli", "divsi", "divui", "remsi", "remui", "floordivsi", "ceildivsi",
       "maxsi", "minsi", "maxui", "minui", "andi", "ori", "xori"]
PREDICATES = ["slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge", "eq", "ne"]


def _program(t):
    results = ", ".join([t] * len(OPS) + ["i1"] * len(PREDICATES) + ["f32", "f32", "i32", "i32", t])
    body = [f"  %{op} = arith.{op} %a, %b : {t}" for op in OPS]
    body += [f"  %{p} = arith.cmpi {p}, %a, %b : {t}" for p in PREDICATES]
    body += [f"  %sf = arith.sitofp %a : {t} to f32", f"  %uf = arith.uitofp %a : {t} to f32",
             f"  %se = arith.extsi %a : {t} to i32", f"  %ue = arith.extui %a : {t} to i32",
             f"  %ft = arith.fptosi %sf : f32 to {t}"]
    names = [f"%{n}" for n in OPS + PREDICATES] + ["%sf", "%uf", "%se", "%ue", "%ft"]
    return (f"func.func @f(%a: {t}, %b: {t}) -> ({results}) {{\n" + "\n".join(body)
            + f"\n  return {', '.join(names)} : {results}\n}}\n")


def _expect(a, b, dtype):
    s, u = np.dtype(dtype), np.dtype(dtype.replace("int", "uint"))
    bits = s.itemsize * 8
    wrap = lambda x: int(np.array(x % (1 << bits), np.uint64).astype(u).astype(s))  # noqa: E731
    ua, ub = a % (1 << bits), b % (1 << bits)
    trunc = lambda x, y: abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1)  # noqa: E731
    values = [wrap(a + b), wrap(a - b), wrap(a * b), wrap(trunc(a, b)), wrap(ua // ub),
              wrap(a - trunc(a, b) * b), wrap(ua % ub), wrap(a // b), wrap(-((-a) // b)),
              max(a, b), min(a, b), wrap(max(ua, ub)), wrap(min(ua, ub)),
              wrap(a & b), wrap(a | b), wrap(a ^ b)]
    values += [a < b, a <= b, a > b, a >= b, ua < ub, ua <= ub, ua > ub, ua >= ub, a == b, a != b]
    return values + [float(a), float(ua), a, ua, a]


@pytest.mark.parametrize("target,uri", DEVICES)
@pytest.mark.parametrize("t,dtype", [("i8", "int8"), ("i16", "int16")])
def test_narrow_integer_host_arithmetic_matches_numpy(target, uri, t, dtype):
    module = rt.load(rt.compile(_program(t), devices=[target]), devices=[uri])
    info = np.iinfo(dtype)
    samples = [info.min, info.min + 1, -7, -1, 1, 3, 100, info.max]
    for a, b in itertools.product(samples, samples):
        if (a == info.min and b == -1):
            continue  # signed overflow of a division: undefined in MLIR
        got = module["f"](getattr(np, dtype)(a), getattr(np, dtype)(b))
        assert list(got) == _expect(a, b, dtype), (a, b)


def test_other_odd_widths_on_the_host_are_located_errors():
    text = "func.func @f(%a: i4) -> i4 {\n  %s = arith.addi %a, %a : i4\n  return %s : i4\n}\n"
    with pytest.raises(rt.CompileError, match=r"2:8: error: 'arith.addi' on i4 scalars is not supported on the host"):
        rt.compile(text, devices=["vmvx"])
