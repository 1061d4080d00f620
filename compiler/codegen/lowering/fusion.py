"""Elementwise producer fusion inside a dispatch: inline a producer's body into its consumer.

A producer can be inlined when it is a single-result linalg op with only parallel loops whose
output map is a permutation and whose body does not read its output; the consumer reads the
producer's result through map ``M`` (consumer dims -> result dims), so producer dim ``e`` is
``M[k]`` where the output map sends ``e`` to result dim ``k``, and each producer input map is
composed accordingly. The producer's body runs first, its yield replaces the consumer's block
argument. Repeats until no input can be inlined. What IREE's elementwise fusion
(FuseElementwiseOps / linalg fusion of generics on tensors) does before bufferization.

A consumer reading a ``tensor.extract_slice`` of such a producer (static offsets and strides,
same rank) inlines it through the slice: consumer read ``M[k]`` becomes
``offset_k + stride_k * M[k]`` on the producer's result, and the producer's ``linalg.index``
values become that index arithmetic. Only the sliced elements are computed (IREE's tile and
fuse of a producer into an extract_slice), instead of the whole producer in scratch.
"""
from dataclasses import replace

from rt.compiler.codegen import kernel_ir as kir
from rt.compiler.codegen.kernel_ir import Opcode
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
        if s.opcode is Opcode.INDEX and dims_map is not None:
            attrs = dict(s.attrs)
            attrs["dim"] = dims_map[attrs["dim"]]
            s2 = replace(s2, attrs=tuple(sorted(attrs.items())))
        out.append(s2)
    return out


def _index_program(expr, first_id):
    """ScalarOps computing AffineExpr ``expr`` of consumer loop indices (ids from ``first_id``)."""
    ops = []

    def emit(opcode, operands=(), value=None):
        attrs = (("dim", value),) if opcode is Opcode.INDEX else (("value", value),) if value is not None else ()
        ops.append(kir.ScalarOp(opcode, tuple(operands), "index", attrs))
        return first_id + len(ops) - 1

    total = None
    for d, coeff in expr.terms:
        term = emit(Opcode.INDEX, value=d)
        if coeff != 1:
            term = emit(Opcode.MULI, (term, emit(Opcode.CONSTANT, value=coeff)))
        total = term if total is None else emit(Opcode.ADDI, (total, term))
    if expr.constant or total is None:
        const = emit(Opcode.CONSTANT, value=expr.constant)
        total = const if total is None else emit(Opcode.ADDI, (total, const))
    return ops, total


def _expand_indices(p, producer_dim_exprs):
    """``p``'s body with each ``linalg.index`` replaced by the consumer index arithmetic that
    computes it (linalg.index dims become consumer dims); returns (body, yields)."""
    base = len(p.inputs) + len(p.outputs)
    body, ids = [], {i: i for i in range(base)}
    for i, s in enumerate(p.body):
        if s.opcode is Opcode.INDEX:
            ops, result = _index_program(producer_dim_exprs[s.attr("dim")], base + len(body))
            body += ops
        else:
            body.append(replace(s, operands=tuple(ids[v] for v in s.operands)))
            result = base + len(body) - 1
        ids[base + i] = result
    return body, tuple(ids[v] for v in p.yields)


def _fuse(c, j, p, result_dims, read=None):
    """Consumer ``c`` with input ``j`` replaced by producer ``p``'s computation; ``read``: the
    consumer's map onto the producer's result (default: its map of input ``j``)."""
    read = c.maps[j] if read is None else read
    producer_dim_exprs = [None] * len(p.iterator_types)
    for k, e in enumerate(result_dims):
        producer_dim_exprs[e] = read[k]
    body, yields = _expand_indices(p, producer_dim_exprs)
    p = replace(p, body=body, yields=yields)
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
    p_body = _renumber(p.body, p_map)
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
            entry, read = env.get(value), None
            if hasattr(entry, "lists") and hasattr(entry, "source"):
                entry, read = env.get(entry.source), through_slice(entry, node.maps[j])
                if read is None:
                    continue
            producer = getattr(entry, "node", None)
            if producer is None or placed(entry) or getattr(entry, "index", 0) != 0:
                continue
            dims = _inlinable(producer)
            if dims is None:
                continue
            fused = _fuse(node, j, producer, dims, read)
            if fused is not None:
                node, changed = fused, True
                break
    return node


def through_slice(entry, read):
    """The read map onto a slice's source (``offset + stride * read`` per dim), or None when the
    slice drops dims or has dynamic offsets or strides."""
    offsets, sizes, strides = entry.lists
    if len(sizes) != len(read) or not all(isinstance(v, int) for v in (*offsets, *strides)):
        return None
    return tuple(sym.add_affine(sym.scale_affine(e, stride), kir.AffineExpr((), offset))
                 for e, offset, stride in zip(read, offsets, strides))
