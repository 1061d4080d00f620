"""Differential fuzzing with random valid programs (issue 25, item 6).

A case is a random program over f32 tensors whose every dimension is, at random, static or
dynamic (``?``), typed as MLIR's verifiers require (a dimension a
broadcast, reduce or transpose maps keeps its static or dynamic size): elementwise ``arith``/``math`` ops, ``linalg.broadcast`` (a new dimension,
static or from an index value), ``linalg.reduce`` (sum or max), ``linalg.transpose``,
``tensor.concat`` of mixed static and dynamic operands, and ``tensor.extract_slice``. The
generator computes the numpy result beside the MLIR text; the case compiles for llvm-cpu and
vmvx and runs on both, and every result must equal numpy's (within f32 rounding). A refused
valid program, a wrong value, or a difference between the devices is a finding.

The suite runs a few seeded cases (``test_random_programs.py``); a long run is::

    python tests/fuzz/random_programs.py --cases 10000 [--seed 1] [--first N] [--show]

which prints the outcome counts and each finding with its seed and case index.
"""
import argparse
import random

import numpy as np

DEVICES = {"llvm-cpu": "local-task://llvm-cpu", "vmvx": "local-sync://vmvx"}


def _tensor_type(shape, dynamic):
    """``tensor<4x?xf32>``: each dim of ``shape`` static, or ``?`` where ``dynamic`` says."""
    return "tensor<" + "x".join(["?" if d else str(s) for s, d in zip(shape, dynamic)] + ["f32"]) + ">"


class _Value:
    """An SSA value: its name, its runtime shape, which dims its type leaves dynamic, its data."""

    def __init__(self, name, array, dynamic):
        self.name, self.array, self.dynamic = name, array, tuple(dynamic)

    @property
    def type(self):
        return _tensor_type(self.array.shape, self.dynamic)


class _Program:
    def __init__(self, rng):
        self.rng, self.lines, self.count, self.values = rng, [], 0, []

    def fresh(self):
        self.count += 1
        return f"%v{self.count}"

    def index(self, value, d):
        """An index SSA value holding dim ``d`` of ``value``."""
        c, dim = self.fresh(), self.fresh()
        self.lines.append(f"{c} = arith.constant {d} : index")
        self.lines.append(f"{dim} = tensor.dim {value.name}, {c} : {value.type}")
        return dim

    def empty(self, shape, dynamic, sources):
        """``tensor.empty`` of ``shape``; each dynamic dim from ``sources[d]`` (an index name)."""
        name = self.fresh()
        sizes = ", ".join(sources[d] for d, dyn in enumerate(dynamic) if dyn)
        self.lines.append(f"{name} = tensor.empty({sizes}) : {_tensor_type(shape, dynamic)}")
        return name

    def constant_index(self, n):
        name = self.fresh()
        self.lines.append(f"{name} = arith.constant {n} : index")
        return name

    def emit(self, array, dynamic, text):
        value = _Value(self.fresh(), array.astype(np.float32), dynamic)
        self.lines.append(text.replace("{out}", value.name).replace("{type}", value.type))
        self.values.append(value)
        return value


def _elementwise(p, rng):
    a = rng.choice(p.values)
    same = [v for v in p.values if v.type == a.type and v.array.shape == a.array.shape]
    b = rng.choice(same)
    op, fn = rng.choice([("arith.addf", np.add), ("arith.subf", np.subtract), ("arith.mulf", np.multiply),
                         ("arith.maximumf", np.maximum), ("math.tanh", None), ("math.absf", None)])
    if fn is None:
        unary = np.tanh if op == "math.tanh" else np.abs
        return p.emit(unary(a.array), a.dynamic, f"{{out}} = {op} {a.name} : {a.type}")
    return p.emit(fn(a.array, b.array), a.dynamic, f"{{out}} = {op} {a.name}, {b.name} : {a.type}")


def _broadcast(p, rng):
    a = rng.choice([v for v in p.values if v.array.ndim == 1] or [None])
    if a is None:
        return None
    n, at = rng.randint(1, 4), rng.randint(0, 1)
    shape = (n, a.array.shape[0]) if at == 0 else (a.array.shape[0], n)
    dynamic = [rng.random() < 0.5] * 2
    dynamic[1 - at] = a.dynamic[0]  # MLIR: a mapped dim has the input's exact size (static or ?)
    sources = {}
    for d in range(2):
        if dynamic[d]:
            sources[d] = p.constant_index(n) if d == at else p.index(a, 0)
    init = p.empty(shape, dynamic, sources)
    array = np.broadcast_to(a.array[None, :] if at == 0 else a.array[:, None], shape)
    init_type = _tensor_type(shape, dynamic)
    return p.emit(array, dynamic, f"{{out}} = linalg.broadcast ins({a.name} : {a.type}) "
                                  f"outs({init} : {init_type}) dimensions = [{at}]")


def _reduce(p, rng):
    a = rng.choice([v for v in p.values if v.array.ndim == 2] or [None])
    if a is None:
        return None
    axis, kind = rng.randint(0, 1), rng.choice(["sum", "max"])
    keep = 1 - axis
    dynamic = [a.dynamic[keep]]  # MLIR: a kept dim has the input's exact size (static or ?)
    sources = {0: p.index(a, keep)} if dynamic[0] else {}
    init = p.empty((a.array.shape[keep],), dynamic, sources)
    out_type = f"tensor<{'?' if dynamic[0] else a.array.shape[keep]}xf32>"
    start, fill = p.fresh(), p.fresh()
    p.lines.append(f"{start} = arith.constant {'0.0' if kind == 'sum' else '-3.0e38'} : f32")
    p.lines.append(f"{fill} = linalg.fill ins({start} : f32) outs({init} : {out_type}) -> {out_type}")
    body = "arith.addf" if kind == "sum" else "arith.maximumf"
    array = a.array.sum(axis) if kind == "sum" else a.array.max(axis)
    return p.emit(array, dynamic,
                  f"{{out}} = linalg.reduce ins({a.name} : {a.type}) outs({fill} : {out_type}) "
                  f"dimensions = [{axis}]\n  (%x: f32, %y: f32) {{\n    %s = {body} %x, %y : f32\n"
                  f"    linalg.yield %s : f32\n  }}")


def _transpose(p, rng):
    a = rng.choice([v for v in p.values if v.array.ndim == 2] or [None])
    if a is None:
        return None
    dynamic = [a.dynamic[1], a.dynamic[0]]
    sources = {d: p.index(a, 1 - d) for d in range(2) if dynamic[d]}
    shape = a.array.shape[::-1]
    init = p.empty(shape, dynamic, sources)
    init_type = _tensor_type(shape, dynamic)
    return p.emit(a.array.T, dynamic, f"{{out}} = linalg.transpose ins({a.name} : {a.type}) "
                                      f"outs({init} : {init_type}) permutation = [1, 0]")


def _concat(p, rng):
    a = rng.choice(p.values)
    rank = a.array.ndim
    axis = rng.randint(0, rank - 1)
    others = [v for v in p.values if v.array.ndim == rank
              and all(v.array.shape[d] == a.array.shape[d] for d in range(rank) if d != axis)]
    b = rng.choice(others)
    dynamic = []
    for d in range(rank):
        if d == axis:
            dynamic.append(a.dynamic[d] or b.dynamic[d])
        else:
            dynamic.append(a.dynamic[d] and b.dynamic[d])
    return p.emit(np.concatenate([a.array, b.array], axis), dynamic,
                  f"{{out}} = tensor.concat dim({axis}) {a.name}, {b.name} : ({a.type}, {b.type}) -> {{type}}")


def _slice(p, rng):
    a = rng.choice(p.values)
    offsets, sizes = [], []
    for s in a.array.shape:
        size = rng.randint(1, s)
        offsets.append(rng.randint(0, s - size))
        sizes.append(size)
    array = a.array[tuple(slice(o, o + s) for o, s in zip(offsets, sizes))]
    dynamic = [False] * a.array.ndim
    ones = ", ".join("1" for _ in sizes)
    return p.emit(array, dynamic, f"{{out}} = tensor.extract_slice {a.name}[{', '.join(map(str, offsets))}] "
                                  f"[{', '.join(map(str, sizes))}] [{ones}] : {a.type} to {{type}}")


OPS = [_elementwise, _broadcast, _reduce, _transpose, _concat, _slice]


def make_case(seed, index):
    """(MLIR text, list of numpy inputs, numpy result) of case ``index`` of ``seed``."""
    rng = random.Random(f"{seed}/random-programs/{index}")
    data = np.random.default_rng(rng.randrange(1 << 30))
    p = _Program(rng)
    args = []
    for k in range(rng.randint(1, 3)):
        rank = rng.randint(1, 2)
        shape = tuple(rng.randint(1, 5) for _ in range(rank))
        value = _Value(f"%arg{k}", data.uniform(-2, 2, shape).astype(np.float32),
                       [rng.random() < 0.5 for _ in shape])
        args.append(value)
        p.values.append(value)
    steps = 0
    while steps < rng.randint(2, 6):
        if rng.choice(OPS)(p, rng) is not None:
            steps += 1
    result = p.values[-1]
    signature = ", ".join(f"{a.name}: {a.type}" for a in args)
    body = "\n".join("  " + line.replace("\n", "\n  ") for line in p.lines)
    text = (f"func.func @main({signature}) -> {result.type} {{\n{body}\n"
            f"  return {result.name} : {result.type}\n}}\n")
    return text, [a.array for a in args], result.array


def run_case(text, inputs, expected):
    """``"ok"``, or a finding: ``"refused for DEVICE: ..."``, ``"failed on DEVICE: ..."``,
    ``"wrong on DEVICE: ..."``."""
    import rt

    for target, uri in DEVICES.items():
        try:
            vmfb = rt.compile(text, devices=[target])
        except rt.RtError as e:
            return f"refused for {target}: {str(e).splitlines()[0]}"
        try:
            with rt.load(vmfb, devices=[uri]) as m:
                got = np.asarray(m.main(*inputs))
        except rt.RtError as e:
            return f"failed on {target}: {str(e).splitlines()[0]}"
        if got.shape != expected.shape or not np.allclose(got, expected, rtol=1e-5, atol=1e-5):
            return f"wrong on {target}: got {got.tolist()}, want {expected.tolist()}"
    return "ok"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=100)
    parser.add_argument("--seed", default="1")
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--show", action="store_true", help="print each case's program")
    args = parser.parse_args(argv)
    counts = {}
    for i in range(args.first, args.first + args.cases):
        text, inputs, expected = make_case(args.seed, i)
        if args.show:
            print(text)
        outcome = run_case(text, inputs, expected)
        kind = outcome.split(":")[0]
        counts[kind] = counts.get(kind, 0) + 1
        if outcome != "ok":
            print(f"seed {args.seed} case {i}: {outcome}")
    print(counts)
    return 0 if set(counts) == {"ok"} else 1


if __name__ == "__main__":
    raise SystemExit(main())
