"""A hal-level dispatch function -> kernel_ir.Kernel.

Input (IREE's form after materialize-interfaces; see seed 001 around line 714)::

    %n = hal.interface.constant.load layout(#l) ordinal(0) : i32
    %N = arith.index_cast %n : i32 to index
    %in = hal.interface.binding.subspan layout(#l) binding(0) offset(%c0)
        : !flow.dispatch.tensor<readonly:tensor<?xf32>>{%N}
    %out = hal.interface.binding.subspan layout(#l) binding(1) offset(%c0)
        : !flow.dispatch.tensor<writeonly:tensor<?xf32>>{%N}
    %x = flow.dispatch.tensor.load %in, offsets = [0], sizes = [%N], strides = [1] : ... -> tensor<?xf32>
    %e = tensor.empty(%N) : tensor<?xf32>
    %y = linalg.generic {...} ins(%x : tensor<?xf32>) outs(%e : tensor<?xf32>) {...}
    flow.dispatch.tensor.store %y, %out, offsets = [0], sizes = [%N], strides = [1] : ...
    return

Output: ``Kernel(name, binding_count, constant_count, ops, distribution, binding_access)``
with one View per subspan slice (element offsets = byte offsets / element size), one Generic
per linalg op (named ops in generic form, kind hints kept), Mmt4d / Pack / Unpack for
linalg.mmt4d / pack / unpack.

Destinations follow destination-passing style as IREE's bufferization does: a stored value is
computed straight into the store's view, and so is the ``outs`` chain behind it (fill ->
matmul -> epilogue all write the output binding in place); a value loaded from a binding
and then stored elsewhere becomes a copy. Elementwise producers whose result is only read
(never stored) are inlined into their consumer's body (maps composed). tensor.extract_slice /
insert_slice are views; tensor.pad is a fill plus a copy into the interior; tensor.concat is
copies. Anything else is a located CompileError naming the op.

Distribution: the root op is the last op with reduction loops (or a matmul/conv/mmt4d/pack/
unpack), else the last op; its up-to-three innermost parallel dims are tiled with
``backend.workgroup_tiles(kind, config)``. Every other op must write or read the root's output
view along the same view dims, so each workgroup's tiles are independent; when one does not,
the distribution is narrowed (to a single workgroup at worst), never made racy.

Source: IREE's LLVMCPU / VMVX codegen entry (bufferization of dispatch regions,
TileAndDistributeToWorkgroups, KernelDispatch root-op selection).
"""
from rt.compiler.codegen import kernel_ir as kir
from rt.compiler.codegen.lowering import symbols as sym
from rt.compiler.codegen.lowering.materialize import Lowering
from rt.compiler.frontend import error_at_op


def lower_dispatch_function(func_op, backend, config):
    """Lower ``func_op`` (a func.func of a hal.executable.variant) to a kernel_ir.Kernel.

    backend: the TargetBackend (asked for workgroup tiles); config: its target config dict.
    Raises CompileError located at the offending op.
    """
    lowering = Lowering(func_op)
    for op in func_op.body.block.ops:
        lowering.visit(op)
    ops = lowering.finish()
    if not ops:
        raise error_at_op(func_op, f"dispatch function @{func_op.sym_name.data} stores nothing; "
                                   f"expected at least one flow.dispatch.tensor.store")
    distribution = _distribution(ops, backend, config)
    return kir.Kernel(func_op.sym_name.data, lowering.binding_count(), lowering.constant_count(),
                      tuple(ops), distribution, lowering.binding_access())


def _root(ops):
    for i in reversed(range(len(ops))):
        op = ops[i]
        if not isinstance(op, kir.Generic):
            return i
        if "reduction" in op.iterator_types or op.kind in ("matmul", "batch_matmul", "conv",
                                                           "pooling", "matvec"):
            return i
    return len(ops) - 1


def _written(op):
    """(view, map) pairs of what ``op`` writes, maps over its loop dims (None: per element)."""
    if isinstance(op, kir.Generic):
        return list(zip(op.outputs, op.indexing_maps[len(op.inputs):]))
    if isinstance(op, kir.Mmt4d):
        return [(op.out, tuple(kir.AffineExpr.dim(d) for d in (0, 1, 3, 4)))]
    if isinstance(op, kir.Pack):
        return [(op.dest, tuple(kir.AffineExpr.dim(d) for d in range(len(op.dest.shape))))]
    return [(op.dest, None)]


def _read(op):
    if isinstance(op, kir.Generic):
        return list(zip(op.inputs, op.indexing_maps[:len(op.inputs)]))
    if isinstance(op, kir.Mmt4d):
        d = kir.AffineExpr.dim
        return [(op.lhs, (d(0), d(2), d(3), d(5))), (op.rhs, (d(1), d(2), d(4), d(5)))]
    return [(op.source, None)]


def _parallel(op, dim):
    if isinstance(op, kir.Generic):
        return op.iterator_types[dim] == "parallel"
    if isinstance(op, kir.Mmt4d):
        return dim in (0, 1, 3, 4)
    return True


def _root_axes(op):
    """(view, view dims innermost first) the root distributes along, and the op dims."""
    if isinstance(op, kir.Unpack):
        rank = len(op.dest.shape)
        dims = tuple(reversed(range(rank)))[:3]
        return op.source, dims, dims
    view, amap = _written(op)[0]
    pairs = []
    for k in reversed(range(len(amap))):
        d = sym.single_dim(amap[k])
        if d is not None and _parallel(op, d):
            pairs.append((k, d))
    if isinstance(op, kir.Mmt4d):
        pairs = [(1, 1), (0, 0)]
    elif isinstance(op, kir.Pack):
        outer = len(op.source.shape)
        pairs = [(k, k) for k in reversed(range(outer))]
    pairs = pairs[:3]
    return view, tuple(k for k, _ in pairs), tuple(d for _, d in pairs)


def _op_dim(op, view, k):
    """The loop dim of ``op`` that moves view dim ``k`` of ``view`` wherever ``op`` touches it
    (None if untouched); raises ValueError when ``op`` touches it in another way."""
    found = None
    for v, amap in _written(op) + _read(op):
        if v != view:
            if v.binding == view.binding:
                raise ValueError("aliasing view")
            continue
        if amap is None:
            raise ValueError("not distributable")
        d = sym.single_dim(amap[k])
        if d is None or not _parallel(op, d) or (found is not None and found != d):
            raise ValueError("misaligned")
        found = d
    return found


def _distribution(ops, backend, config):
    root = ops[_root(ops)]
    view, view_dims, root_dims = _root_axes(root)
    kind = root.kind if isinstance(root, kir.Generic) else type(root).__name__.lower()
    tiles = tuple(backend.workgroup_tiles(kind, config) or ())
    axes = []
    for i, (k, d) in enumerate(zip(view_dims, root_dims)):
        if i >= len(tiles):
            break
        try:
            per_op = [d if op is root else _op_dim(op, view, k) for op in ops]
        except ValueError:
            break
        if isinstance(root, kir.Unpack):
            per_op = [d if op is root else None for op in ops]
        if any(p is None for p in per_op) and len(ops) > 1:
            break
        axes.append((d, tiles[i], per_op))
    if isinstance(root, kir.Unpack) and len(ops) > 1:
        axes = []
    if not axes:
        return kir.Distribution()
    return kir.Distribution(tuple(a[0] for a in axes), tuple(a[1] for a in axes),
                            tuple(tuple(a[2][j] for a in axes) for j in range(len(ops))))
