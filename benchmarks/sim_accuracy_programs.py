"""The programs of benchmarks/sim_accuracy.py, written as MLIR text with their inputs.

* ``tp_mlp(n)``: Megatron's MLP over ``n`` ranks (column-parallel W1, row-parallel W2, one
  ``shard.all_reduce``), x 32x512, hidden 1024.
* ``tp_transformer(n)``: a transformer layer over ``n`` ranks: one attention head per rank
  (QKV column blocks, softmax(q k^T / sqrt(d)) v, the Wo row block, all_reduce, residual) and the
  MLP of ``tp_mlp`` (all_reduce, residual); sequence 64, model width 64 x n.
* ``pipeline(k)``: ``k`` stages on devices ``s0..s{k-1}`` of one module, each a 256x256 layer
  (matmul + relu) on a 64x256 activation that ``flow.tensor.transfer`` moves to the next stage;
  the result comes back to ``s0``.
* ``collective(kind, n, nbytes)``: one ``shard.all_reduce`` (sum) or ``all_gather`` of ``nbytes``
  per rank over ``n`` ranks.

Each builder returns ``(mlir text, function name, inputs)`` where inputs is a list per rank of
numpy arrays (one list for a single-rank program).
"""
import numpy as np

F = "f32"


def _t(*shape):
    return f"tensor<{'x'.join(map(str, shape))}x{F}>"


class _Writer:
    """Emits linalg ops on 2-D f32 tensors as SSA lines."""

    def __init__(self):
        self.lines, self.count = [], 0
        self.affinity = ""  # set to a device name: the ops that follow run there

    def _on(self):
        return f" {{stream.affinity = #hal.device.affinity<@{self.affinity}>}}" if self.affinity else ""

    def name(self, stem):
        self.count += 1
        return f"%{stem}{self.count}"

    def matmul(self, a, b, m, k, n):
        e, f, r = self.name("e"), self.name("f"), self.name("mm")
        self.lines += [f"{e} = tensor.empty() : {_t(m, n)}",
                       f"{f} = linalg.fill{self._on()} ins(%zero : f32) outs({e} : {_t(m, n)}) -> {_t(m, n)}",
                       f"{r} = linalg.matmul{self._on()} ins({a}, {b} : {_t(m, k)}, {_t(k, n)}) outs({f} : {_t(m, n)}) -> {_t(m, n)}"]
        return r

    def generic(self, inputs, maps, shape, body, out_shape=None, reduction=False, init=None):
        """``inputs``: [(value, shape)]; ``maps``: affine maps of inputs then output; ``body``:
        lines using %a0.. (inputs) and %acc (output), ending in a value named %y."""
        out_shape = out_shape or shape
        e, r = self.name("e"), self.name("g")
        self.lines.append(f"{e} = tensor.empty() : {_t(*out_shape)}")
        out = e
        if init is not None:
            out = self.name("i")
            self.lines.append(f"{out} = linalg.fill ins({init} : f32) outs({e} : {_t(*out_shape)}) -> {_t(*out_shape)}")
        iterators = ", ".join(['"parallel"'] * (len(shape) - (1 if reduction else 0)) + (['"reduction"'] if reduction else []))
        ins = ", ".join(v for v, _ in inputs)
        types = ", ".join(_t(*s) for _, s in inputs)
        args = ", ".join(f"%a{i}: f32" for i in range(len(inputs))) + ", %acc: f32"
        self.lines.append(f"{r} = linalg.generic {{indexing_maps = [{', '.join(maps)}], iterator_types = [{iterators}]}} "
                          f"ins({ins} : {types}) outs({out} : {_t(*out_shape)})"
                          + (f" attrs = {self._on().strip()} {{" if self.affinity else " {"))
        self.lines.append(f"^bb0({args}):")
        self.lines += ["  " + line for line in body] + ["  linalg.yield %y : f32", f"}} -> {_t(*out_shape)}"]
        return r

    def ew(self, inputs, shape, body, broadcast_rows=()):
        """Elementwise over 2-D ``shape``; inputs at indices in ``broadcast_rows`` are vectors
        over the rows (one value per row), the others 2-D; a 1-D input of the column count
        broadcasts over the rows when its shape has one entry equal to the columns."""
        maps = []
        for i, (_, s) in enumerate(inputs):
            if i in broadcast_rows:
                maps.append("affine_map<(i, j) -> (i)>")
            elif len(s) == 1:
                maps.append("affine_map<(i, j) -> (j)>")
            else:
                maps.append("affine_map<(i, j) -> (i, j)>")
        return self.generic(inputs, maps + ["affine_map<(i, j) -> (i, j)>"], shape, body)

    def rows(self, x, shape, combine, init):
        """Reduce each row of ``x`` with ``combine`` (an arith op name)."""
        return self.generic([(x, shape)], ["affine_map<(i, j) -> (i, j)>", "affine_map<(i, j) -> (i)>"],
                            shape, [f"%y = {combine} %a0, %acc : f32"], out_shape=(shape[0],),
                            reduction=True, init=init)

    def transpose(self, x, m, n):
        return self.generic([(x, (m, n))], ["affine_map<(i, j) -> (j, i)>", "affine_map<(i, j) -> (i, j)>"],
                            (n, m), ["%y = arith.addf %a0, %zero : f32"])

    def all_reduce(self, x, shape):
        r = self.name("ar")
        self.lines.append(f"{r} = shard.all_reduce {x} on @g grid_axes = [0] : {_t(*shape)} -> {_t(*shape)}")
        return r


def _function(name, params, results, writer, returns, grid=None):
    head = f"shard.grid @g(shape = {grid})\n" if grid else ""
    sig = ", ".join(f"%{p}: {_t(*s)}" for p, s in params)
    out = ", ".join(_t(*s) for s in results)
    body = "\n".join("  " + line for line in writer.lines)
    return (f"{head}func.func @{name}({sig}) -> ({out}) {{\n  %zero = arith.constant 0.0 : f32\n{body}\n"
            f"  return {', '.join(returns)} : {out}\n}}\n")


def _rng():
    return np.random.default_rng(0)


def _mlp(w, x, batch, width, hidden):
    h = w.matmul(x, "%w1", batch, width, hidden)
    h = w.ew([(h, (batch, hidden))], (batch, hidden), ["%y = arith.maximumf %a0, %zero : f32"])
    return w.matmul(h, "%w2", batch, hidden, width)


def tp_mlp(n, batch=32, width=512, hidden=1024):
    w = _Writer()
    partial = _mlp(w, "%x", batch, width, hidden // n)
    y = w.all_reduce(partial, (batch, width))
    text = _function("f", [("x", (batch, width)), ("w1", (width, hidden // n)), ("w2", (hidden // n, width))],
                     [(batch, width)], w, [y], grid=n)
    rng = _rng()
    x = rng.standard_normal((batch, width)).astype(np.float32)
    inputs = [[x, rng.standard_normal((width, hidden // n)).astype(np.float32) * 0.05,
               rng.standard_normal((hidden // n, width)).astype(np.float32) * 0.05] for _ in range(n)]
    return text, "f", inputs


def tp_transformer(n, seq=64, head=64, hidden_per_rank=256):
    width = head * n
    w = _Writer()
    q = w.matmul("%x", "%wq", seq, width, head)
    k = w.matmul("%x", "%wk", seq, width, head)
    v = w.matmul("%x", "%wv", seq, width, head)
    kt = w.transpose(k, seq, head)
    s = w.matmul(q, kt, seq, head, seq)
    m = w.rows(s, (seq, seq), "arith.maximumf", "%lowest")
    p = w.ew([(s, (seq, seq)), (m, (seq,))], (seq, seq),
             ["%d = arith.subf %a0, %a1 : f32", "%c = arith.mulf %d, %scale : f32", "%y = math.exp %c : f32"],
             broadcast_rows=(1,))
    total = w.rows(p, (seq, seq), "arith.addf", "%zero")
    p = w.ew([(p, (seq, seq)), (total, (seq,))], (seq, seq), ["%y = arith.divf %a0, %a1 : f32"],
             broadcast_rows=(1,))
    o = w.matmul(p, v, seq, seq, head)
    attn = w.all_reduce(w.matmul(o, "%wo", seq, head, width), (seq, width))
    y = w.ew([(attn, (seq, width)), ("%x", (seq, width))], (seq, width), ["%y = arith.addf %a0, %a1 : f32"])
    mlp = w.all_reduce(_mlp(w, y, seq, width, hidden_per_rank), (seq, width))
    out = w.ew([(mlp, (seq, width)), (y, (seq, width))], (seq, width), ["%y = arith.addf %a0, %a1 : f32"])
    w.lines[:0] = ["%lowest = arith.constant -3.0e38 : f32", f"%scale = arith.constant {1 / np.sqrt(head):.6f} : f32"]
    params = [("x", (seq, width)), ("wq", (width, head)), ("wk", (width, head)), ("wv", (width, head)),
              ("wo", (head, width)), ("w1", (width, hidden_per_rank)), ("w2", (hidden_per_rank, width))]
    text = _function("f", params, [(seq, width)], w, [out], grid=n)
    rng = _rng()
    x = rng.standard_normal((seq, width)).astype(np.float32)
    inputs = [[x] + [rng.standard_normal(s).astype(np.float32) * 0.05 for _, s in params[1:]] for _ in range(n)]
    return text, "f", inputs


def pipeline(k, batch=64, width=256):
    w = _Writer()
    x = "%x"
    for stage in range(k):
        weight = f"%w{stage}"
        if stage:
            w.affinity = f"s{stage}"
            weight = w.name("wt")
            w.lines.append(f"{weight} = flow.tensor.transfer %w{stage} : {_t(width, width)} to "
                           f"#hal.device.affinity<@s{stage}>")
        h = w.matmul(x, weight, batch, width, width)
        h = w.ew([(h, (batch, width))], (batch, width), ["%y = arith.maximumf %a0, %zero : f32"])
        x = w.name("t")
        w.lines.append(f"{x} = flow.tensor.transfer {h} : {_t(batch, width)} to "
                       f"#hal.device.affinity<@s{(stage + 1) % k}>")
    params = [("x", (batch, width))] + [(f"w{i}", (width, width)) for i in range(k)]
    text = _function("f", params, [(batch, width)], w, [x])
    text = text.replace(") {\n  %zero", ") attributes {stream.affinity = #hal.device.affinity<@s0>} {\n  %zero", 1)
    rng = _rng()
    inputs = [rng.standard_normal((batch, width)).astype(np.float32)]
    inputs += [rng.standard_normal((width, width)).astype(np.float32) * 0.05 for _ in range(k)]
    return text, "f", inputs


def collective(kind, n, nbytes):
    count = nbytes // 4
    if kind == "all_reduce":
        op, out = f"shard.all_reduce %x on @g grid_axes = [0] : {_t(count)} -> {_t(count)}", count
    else:
        op, out = (f"shard.all_gather %x on @g grid_axes = [0] gather_axis = 0 : {_t(count)} -> "
                   f"{_t(count * n)}"), count * n
    text = (f"shard.grid @g(shape = {n})\nfunc.func @f(%x: {_t(count)}) -> {_t(out)} {{\n"
            f"  %r = {op}\n  return %r : {_t(out)}\n}}\n")
    return text, "f", [[np.full(count, r + 1, np.float32)] for r in range(n)]

