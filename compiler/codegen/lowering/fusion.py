"""Elementwise producer fusion inside a dispatch: inline a producer's body into its consumer.

A producer can be inlined when it is a single-result linalg op with only parallel loops whose
output map is a permutation and whose body does not read its output; the consumer reads the
producer's result through map ``M`` (consumer dims -> result dims), so producer dim ``e`` is
``M[k]`` where the output map sends ``e`` to result dim ``k``, and each producer input map is
composed accordingly. The producer's body runs first, its yield replaces the consumer's block
argument. Repeats until no input can be inlined. What IREE's elementwise fusion
(FuseElementwiseOps / linalg fusion of generics on tensors) does before bufferization.
"""
from dataclasses import replace

from rt.compiler.codegen.lowering import symbols as sym
from rt.compiler.codegen.lowering.structured import Structured


def _inlinable(p):
    if not isinstance(p, Structured) or len(p.outputs) != 1 or "reduction" in p.iterator_types:
        return None
    out_map = p.maps[len(p.inputs)]
    dims = [sym.single_dim(e) for e in out_map]
    if None in dims or sorted(dims) != list(range(len(p.iterator_types))):
        return None
    out_arg = len(p.inputs)
    if any(out_arg in s.operands for s in p.body) or out_arg in p.yields:
        return None
    return dims


def _renumber(ops, mapping, dims_map=None):
    out = []
    for s in ops:
        s2 = replace(s, operands=tuple(mapping[v] for v in s.operands))
        if s.name == "linalg.index" and dims_map is not None:
            attrs = dict(s.attrs)
            attrs["dim"] = dims_map[attrs["dim"]]
            s2 = replace(s2, attrs=tuple(sorted(attrs.items())))
        out.append(s2)
    return out


def _fuse(c, j, p, result_dims):
    """Consumer ``c`` with input ``j`` replaced by producer ``p``'s computation."""
    read = c.maps[j]
    producer_dim_exprs = [None] * len(p.iterator_types)
    for k, e in enumerate(result_dims):
        producer_dim_exprs[e] = read[k]
    dims_map = {}
    for s in p.body:
        if s.name == "linalg.index":
            d = sym.single_dim(producer_dim_exprs[s.attr("dim")])
            if d is None:
                return None
            dims_map[s.attr("dim")] = d
    c_in, c_out, p_in = len(c.inputs), len(c.outputs), len(p.inputs)
    kept = [i for i in range(c_in) if i != j]
    inputs = [c.inputs[i] for i in kept] + list(p.inputs)
    maps = ([c.maps[i] for i in kept]
            + [tuple(sym.substitute(e, producer_dim_exprs) for e in p.maps[i]) for i in range(p_in)]
            + list(c.maps[c_in:]))
    n_in = len(inputs)
    body_base = n_in + c_out
    p_map = {i: len(kept) + i for i in range(p_in)}
    for i, _ in enumerate(p.body):
        p_map[p_in + 1 + i] = body_base + i
    p_body = _renumber(p.body, p_map, dims_map)
    c_map = {i: kept.index(i) for i in kept}
    c_map[j] = p_map[p.yields[0]]
    for o in range(c_out):
        c_map[c_in + o] = n_in + o
    for i, _ in enumerate(c.body):
        c_map[c_in + c_out + i] = body_base + len(p_body) + i
    c_body = _renumber(c.body, c_map)
    yields = tuple(c_map[v] for v in c.yields)
    return Structured(c.op, c.domain, c.iterator_types, inputs, list(c.outputs), maps,
                      p_body + c_body, yields, c.kind)


def inline_producers(node, env, placed=lambda entry: False):
    """``node`` with every inlinable producer input fused in (see module docstring).

    env: SSA value -> symbol (Result entries name producers); placed(entry): True when the
    producer's result already lives in a view (then it is read, not recomputed).
    """
    changed = True
    while changed:
        changed = False
        for j, value in enumerate(node.inputs):
            entry = env.get(value)
            producer = getattr(entry, "node", None)
            if producer is None or placed(entry) or getattr(entry, "index", 0) != 0:
                continue
            dims = _inlinable(producer)
            if dims is None:
                continue
            fused = _fuse(node, j, producer, dims)
            if fused is not None:
                node, changed = fused, True
                break
    return node

