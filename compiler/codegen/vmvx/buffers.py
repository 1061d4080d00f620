"""The buffers a vmvx kernel addresses: dispatch bindings, rodata segments, workgroup scratch.

kernel_ir numbers a kernel's own buffers after its bindings (``Kernel.rodata_binding``,
``Kernel.scratch_binding``). In the vmvx export:

- a binding is the VMBuffer at its ordinal in the bindings list argument;
- a ``Rodata`` is a read-only rodata segment of the executable module (``const.ref.rodata``),
  shared by every kernel of the executable that embeds the same bytes;
- a ``Scratch`` is a fresh zeroed buffer from ``vmvx.buffer.alloc`` at the start of every
  workgroup, holding only the workgroup's tile along tiled dims. Its views use logical
  indices: the base offset is moved back by ``sum(lo_k * stride_k)`` over tiled dims (``lo_k``
  the workgroup's tile start), so every final offset lands inside the allocation. Sizes are
  clamped before multiplying (no i64 wrap-around); a static request above the device's
  SCRATCH_LIMIT is a CompileError, a dynamic one a ResourceExhaustedError at run time.

``check_uses`` enforces what kernel_ir promises about these buffers: rodata is never written,
a tiled scratch is addressed as a whole buffer and indexed along each tiled dim by exactly the
op's distributed loop dim (so the tile shift is exact).
Source: IREE's executable constant data (rodata) and workgroup-private allocations
(``memref.alloca`` after bufferization, lowered to ``vm.buffer.alloc`` by the VMVX path).
"""
from rt.compiler.codegen import kernel_ir
from rt.devices.vmvx.module import ALLOC_CCONV, SCRATCH_LIMIT
from rt.runtime.errors import CompileError


def scratch_extents(kernel, scratch):
    """Sizes of the per-workgroup allocation of ``scratch``: tiles on tiled dims (clamped to a
    static logical size), the logical size elsewhere."""
    tiles = kernel.distribution.tiles
    extents = []
    for k, size in enumerate(scratch.shape):
        axis = scratch.axis(k)
        if axis is None:
            extents.append(size)
        else:
            extents.append(min(size, tiles[axis]) if isinstance(size, int) else tiles[axis])
    return tuple(extents)


def _touches(op):
    """(view, indexing map or None, written) for every view ``op`` reads or writes."""
    d = kernel_ir.AffineExpr.dim
    if isinstance(op, kernel_ir.Generic):
        n_in = len(op.inputs)
        views = tuple(op.inputs) + tuple(op.outputs)
        return [(v, m, i >= n_in) for i, (v, m) in enumerate(zip(views, op.indexing_maps))]
    if isinstance(op, kernel_ir.Mmt4d):
        return [(op.lhs, (d(0), d(2), d(3), d(5)), False), (op.rhs, (d(1), d(2), d(4), d(5)), False),
                (op.out, (d(0), d(1), d(3), d(4)), True)]
    return [(op.source, None, False), (op.dest, None, True)]


def check_uses(kernel, op_index, op):
    """CompileError when ``op`` writes rodata, names no buffer, or breaks a tiled scratch."""
    where = f"vmvx codegen: kernel {kernel.name!r} op {op_index} ({type(op).__name__})"
    dist = kernel.distribution
    for view, amap, written in _touches(op):
        try:
            kind, j = kernel.buffer(view.binding)
        except ValueError as e:
            raise CompileError(f"{where}: {e}") from None
        if kind == "binding" and written and view.binding < len(kernel.binding_access) and (
                kernel.binding_access[view.binding] == "ro"):
            raise CompileError(f"{where}: writes binding {view.binding}, which the kernel declares read-only")
        if kind == "rodata" and written:
            raise CompileError(f"{where}: writes rodata {j}, which is read-only constant data")
        if kind != "scratch":
            continue
        scratch = kernel.scratch[j]
        if view.element_type != scratch.element_type:
            raise CompileError(f"{where}: a {view.element_type} view of scratch {j}, which holds "
                               f"{scratch.element_type}")
        if not any(a is not None for a in scratch.tiled):
            continue
        if view.offset != 0 or view.strides is not None or tuple(view.shape) != tuple(scratch.shape):
            raise CompileError(f"{where}: scratch {j} is tiled, so its views must be the whole buffer "
                               f"(offset 0, contiguous, shape {scratch.shape!r}); got {view!r}")
        for k in range(len(scratch.shape)):
            axis = scratch.axis(k)
            if axis is None:
                continue
            expr = amap[k] if amap is not None and k < len(amap) else None
            per_op = dist.op_dims[op_index] if op_index < len(dist.op_dims) else ()
            want = per_op[axis] if axis < len(per_op) else None
            if (expr is None or want is None or expr.constant != 0 or expr.terms != ((want, 1),)
                    or dist.offset(op_index, axis) != 0):
                raise CompileError(f"{where}: scratch {j} is tiled along axis {axis} at dim {k}, so the op "
                                   f"must index that dim with exactly its distributed loop dim d{want}")


def check_scratch(kernel):
    """CompileError for a malformed Scratch entry or a static size beyond SCRATCH_LIMIT."""
    ndims = len(kernel.distribution.dims)
    total = 0
    for j, s in enumerate(kernel.scratch):
        if not isinstance(s, kernel_ir.Scratch):
            raise CompileError(f"vmvx codegen: kernel {kernel.name!r}: scratch {j} is a {type(s).__name__}; "
                               f"expected kernel_ir.Scratch")
        if s.tiled and len(s.tiled) != len(s.shape):
            raise CompileError(f"vmvx codegen: kernel {kernel.name!r} scratch {j}: tiled {s.tiled!r} must give "
                               f"one entry per dim of {s.shape!r}")
        for axis in s.tiled:
            if axis is not None and not (isinstance(axis, int) and 0 <= axis < ndims):
                raise CompileError(f"vmvx codegen: kernel {kernel.name!r} scratch {j} is tiled along axis "
                                   f"{axis!r}, but the kernel distributes {ndims} axes")
        try:
            size = max(1, kernel_ir.element_bits(s.element_type) // 8)  # sub-byte: a byte each
        except ValueError as e:
            raise CompileError(f"vmvx codegen: kernel {kernel.name!r} scratch {j}: {e}") from None
        extents = scratch_extents(kernel, s)
        if total is not None and all(isinstance(e, int) for e in extents):
            count = 1
            for e in extents:
                count *= e
            total += count * size
        else:
            total = None
    if total is not None and total > SCRATCH_LIMIT:
        raise CompileError(f"vmvx codegen: kernel {kernel.name!r} needs {total} bytes of workgroup scratch; "
                           f"the vmvx limit is {SCRATCH_LIMIT}")


def rodata_ref(em, i, segments):
    """A read-only ref register on ``em.kernel.rodata[i]``; ``segments`` maps content bytes to
    the RodataRef already embedded in this executable (shared across its kernels)."""
    data = bytes(em.kernel.rodata[i].data)
    if data not in segments:
        segments[data] = em.fb.module.rodata(f"{em.kernel.name}_rodata{i}", data or b"\0")
    r = em.fb.reg("ref")
    em.fb.const_ref_rodata(r, segments[data])
    return r


def allocate_scratch(em):
    """Emit every scratch allocation of ``em.kernel`` (call at the top of the export).

    Returns {ordinal: (ref register, layout)}: layout is None for an untiled scratch (its views
    carry their own offsets and strides) and ``(base offset, strides)`` for a tiled one, ints or
    i64 registers in elements, the offset shifted back by the workgroup's tile start."""
    kernel, fb = em.kernel, em.fb
    cap = SCRATCH_LIMIT + 1
    out = {}
    for j, s in enumerate(kernel.scratch):
        imp = fb.module.import_function("vmvx.buffer.alloc", ALLOC_CCONV)
        extents = [em.size(e) for e in scratch_extents(kernel, s)]
        count = 1
        for e in extents:
            count = em.binary("min", em.mul(count, em.binary("min", e, cap)), cap)
        nbytes = em.binary("min", em.mul(count, max(1, kernel_ir.element_bits(s.element_type) // 8)), cap)
        ref = fb.reg("ref")
        fb.call_import(imp, [em.reg(nbytes)], [ref])
        strides, running = [], 1
        for e in reversed(extents):
            strides.append(running)
            running = em.mul(running, e)
        strides.reverse()
        shift = 0
        for k, stride in enumerate(strides):
            axis = s.axis(k)
            if axis is not None:
                lo = em.mul(em.workgroup_id(axis), kernel.distribution.tiles[axis])
                shift = em.add(shift, em.mul(lo, stride))
        tiled = any(a is not None for a in s.tiled)
        out[kernel.scratch_binding(j)] = (ref, (em.sub(0, shift), strides) if tiled else None)
    return out
