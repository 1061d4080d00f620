"""kernel_ir.Generic -> bytecode: a microkernel call nest when the op matches one, else scalar loops.

The scalar path handles any Generic: every loop dim of the workgroup's tile becomes a
bytecode loop (parallel dims outside, reduction dims inside), each operand element is read
with ``buffer.load.*`` at an incrementally advanced byte offset, the body's ScalarOps run on
VM registers (see scalar.py) and each output element is written with ``buffer.store.*``.
When no output depends on a reduction dim (linalg's usual form), outputs are loaded once
before the reduction loops into accumulator registers and stored once after them.
Loop-invariant body values (constants, push constants and ops on them) are computed once,
before the loops. A gather (``tensor.extract`` in the body) loads one element of its whole view
at indices clamped into the view; such a body always takes the scalar path.
Source: IREE's VMVX pipeline (compiler/src/iree/compiler/Codegen/VMVX/Passes.cpp): ukernel
lowering first, then linalg -> loops -> vm for whatever is left.
"""
from rt.compiler.codegen.kernel_ir import PACKED, Opcode, element_size
from rt.compiler.codegen.vmvx import ukernels
from rt.compiler.codegen.vmvx.access import linearize
from rt.compiler.codegen.vmvx.loop_nest import LoopNest, tile_ranges
from rt.compiler.codegen.vmvx.scalar import (ScalarEmitter, Val, emit_invariants, invariant_ids, load_element,
                                             load_packed, reg_type, store_element, store_packed)
from rt.runtime.errors import CompileError
from rt.runtime.small_float import FORMATS as SMALL_FLOATS



def _check(em, g, where):
    n_ops = len(g.inputs) + len(g.outputs)
    if len(g.indexing_maps) != n_ops:
        raise CompileError(f"vmvx codegen: {where}: {len(g.indexing_maps)} indexing maps for {n_ops} operands")
    if len(g.iterator_types) != len(g.domain) or any(t not in ("parallel", "reduction") for t in g.iterator_types):
        raise CompileError(f"vmvx codegen: {where}: iterator_types {g.iterator_types!r} must give 'parallel' or "
                           f"'reduction' for each of the {len(g.domain)} loops")
    if len(g.yields) != len(g.outputs) or not g.outputs:
        raise CompileError(f"vmvx codegen: {where}: {len(g.yields)} yielded values for {len(g.outputs)} outputs")
    defined = n_ops
    for k, op in enumerate(g.body):
        bad = [v for v in op.operands if not 0 <= v < defined]
        if bad:
            raise CompileError(f"vmvx codegen: {where}: body op {k} ({op.opcode}) uses value(s) {bad} that are "
                               f"not defined before it (ids 0..{defined - 1})")
        defined += 1
    if any(not 0 <= y < defined for y in g.yields):
        raise CompileError(f"vmvx codegen: {where}: yields {g.yields!r} reference undefined values")


def emit_generic(em, g, op_index, use_ukernels=True):
    """Emit Generic ``g`` (op ``op_index`` of the kernel) for the current workgroup's tile."""
    where = f"kernel {em.kernel.name!r} op {op_index} ({g.kind})"
    _check(em, g, where)
    n = len(g.domain)
    domain = [em.size(s) for s in g.domain]
    ranges = tile_ranges(em, op_index, domain, g.kind)
    views = tuple(g.inputs) + tuple(g.outputs)
    accesses = [linearize(em, v, m, n) for v, m in zip(views, g.indexing_maps)]
    packed = any(a.packed for a in accesses)
    if use_ukernels and not packed and not g.gathers and ukernels.emit_generic_ukernel(em, g, accesses, ranges,
                                                                                       where):
        return
    _emit_scalar(em, g, accesses, ranges, where)


def _emit_scalar(em, g, accesses, ranges, where):
    fb = em.fb
    nin, nout = len(g.inputs), len(g.outputs)
    n_args = nin + nout
    sc = ScalarEmitter(fb, where, em.push_constant)
    parallel = [d for d, t in enumerate(g.iterator_types) if t == "parallel"]
    reduction = [d for d, t in enumerate(g.iterator_types) if t == "reduction"]
    hoist = bool(reduction) and not any(a.depends[d] for a in accesses[nin:] for d in reduction)
    used = {v for op in g.body for v in op.operands} | set(g.yields)
    index_dims = {op.attr("dim") for op in g.body if op.opcode is Opcode.INDEX}
    if any(not isinstance(d, int) or not 0 <= d < len(g.domain) for d in index_dims):
        raise CompileError(f"vmvx codegen: {where}: linalg.index dims {sorted(index_dims, key=str)} must be in "
                           f"[0, {len(g.domain)})")
    constants = emit_invariants(sc, g.body, n_args, invariant_ids(g.body, n_args))
    bufs = [em.buffer(a.view) for a in accesses]
    gathers = [_gather_layout(em, v, where) for v in g.gathers]
    scales = [1 if a.packed else a.element_size for a in accesses]  # packed: element offsets
    nest = LoopNest(em, ranges, accesses, parallel + reduction, scales)
    acc = {}

    def load(a, offsets):
        t = accesses[a].element_type
        v = Val(fb.reg(reg_type(t)), t)
        if accesses[a].packed and t in SMALL_FLOATS:  # f4: the bits, then the value
            bits = fb.reg("i32")
            load_packed(em, t, bits, bufs[a], em.reg(offsets[a]), signed=False)
            fb.ext_bits_f32(v.reg, bits, SMALL_FLOATS[t].code)
        elif accesses[a].packed:
            load_packed(em, t, v.reg, bufs[a], em.reg(offsets[a]))
        else:
            load_element(fb, t, v.reg, bufs[a], em.reg(offsets[a]))
        return v

    def store(a, offsets, v):
        t = accesses[a].element_type
        if v.type != t and reg_type(v.type) != reg_type(t):
            raise CompileError(f"vmvx codegen: {where}: output {a - nin} of type {t} is yielded a {v.type} value")
        if accesses[a].packed and t in SMALL_FLOATS:
            bits = fb.reg("i32")
            fb.trunc_f64_bits(bits, v.reg, SMALL_FLOATS[t].code)
            store_packed(em, t, bufs[a], em.reg(offsets[a]), bits)
        elif accesses[a].packed:
            store_packed(em, t, bufs[a], em.reg(offsets[a]), v.reg)
        else:
            store_element(fb, t, bufs[a], em.reg(offsets[a]), v.reg)

    def enter(offsets, index):
        for k in range(nout):
            a = nin + k
            acc[k] = load(a, offsets)

    def leave(offsets, index):
        for k in range(nout):
            store(nin + k, offsets, acc[k])

    def body(offsets, index):
        values = dict(constants)
        n_gathered = 0
        for a in range(n_args):
            if a in used:
                values[a] = acc[a - nin] if (hoist and a >= nin) else load(a, offsets)
        for k, op in enumerate(g.body):
            vid = n_args + k
            if vid in values:
                continue
            if op.opcode is Opcode.INDEX:
                values[vid] = Val(index[op.attr("dim")], "index")
            elif op.opcode is Opcode.EXTRACT:
                values[vid] = gather(n_gathered, [values[v] for v in op.operands])
                n_gathered += 1
            else:
                values[vid] = sc.emit(op, [values[v] for v in op.operands])
        for k, y in enumerate(g.yields):
            if hoist:
                v, target = values[y], acc[k]
                if target.type in SMALL_FLOATS and v.type in SMALL_FLOATS:  # a yield is a store
                    sc.round_small(target.reg, v.reg, target.type)
                else:
                    getattr(fb, f"mov_{reg_type(target.type)}")(target.reg, v.reg)
            else:
                store(nin + k, offsets, values[y])

    def gather(k, indices):
        buf, offset, strides, lasts, zero, size = gathers[k]
        t, off = fb.reg("i64"), fb.reg("i64")
        fb.mov_i64(off, offset)
        for index, stride, last in zip(indices, strides, lasts):
            fb.max_i64_s(t, index.reg, zero)
            fb.min_i64_s(t, t, last)
            fb.mul_i64(t, t, stride)
            fb.add_i64(off, off, t)
        fb.mul_i64(off, off, size)
        etype = g.gathers[k].element_type
        v = Val(fb.reg(reg_type(etype)), etype)
        load_element(fb, etype, v.reg, buf, off)
        return v

    nest.run(body, {len(parallel): (enter, leave)} if hoist else None)


def _gather_layout(em, view, where):
    """Registers made before the loops for a gather from ``view``: (buffer, element offset,
    strides, extents - 1, zero, element size), index values as i64 registers."""
    if view.element_type in PACKED:
        raise CompileError(f"vmvx codegen: {where}: a gather (tensor.extract in a body) from a packed "
                           f"{view.element_type} tensor is not supported")
    offset, strides = em.layout(view)
    lasts = [em.reg(em.sub(em.size(e), 1)) for e in view.shape]
    return (em.buffer(view), em.reg(offset), [em.reg(s) for s in strides], lasts, em.reg(0),
            em.reg(element_size(view.element_type)))
