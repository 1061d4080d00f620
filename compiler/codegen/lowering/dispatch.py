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

Destinations follow destination-passing style (placement.py): stored values are computed in
their store's view, loaded views stored elsewhere are copies, tensor.pad / concat /
insert_slice become fills and copies into sub-views, dense constants become rodata of the
kernel, and intermediates that cannot be computed in place get workgroup scratch.
A Pack / Unpack around a lone Mmt4d (or batch_mmt4d) becomes strided views of its bindings
where the backend runs them in place (fold_relayouts.py). Distribution (distribution.py): the
root op's innermost parallel dims are tiled with ``backend.workgroup_tiles(kind, config)``;
every other op follows along the same view dims (shifted for sub-views), scratch is tiled
when its producers and consumers agree, and the grid is narrowed (to one workgroup at worst),
never made racy.

Source: IREE's LLVMCPU / VMVX codegen entry (bufferization of dispatch regions,
TileAndDistributeToWorkgroups, KernelDispatch root-op selection).
"""
from rt.compiler.codegen import kernel_ir as kir
from rt.compiler.codegen.lowering.collapse_dims import collapse_copy_dims
from rt.compiler.codegen.lowering.distribution import distribute
from rt.compiler.codegen.lowering.encoding import materialize_encodings
from rt.compiler.codegen.lowering.fold_relayouts import fold_relayouts
from rt.compiler.codegen.lowering.materialize import Lowering
from rt.compiler.dialects.linalg import SoftmaxOp
from rt.compiler.frontend import error_at_op
from rt.compiler.passes.executable_targets.decompose_softmax import decompose as decompose_softmax
from rt.compiler.passes.executable_targets.expand_arith_math import expand_all as expand_arith_math


def lower_dispatch_function(func_op, backend, config):
    """Lower ``func_op`` (a func.func of a hal.executable.variant) to a kernel_ir.Kernel.

    backend: the TargetBackend (asked for workgroup tiles); config: its target config dict.
    Raises CompileError located at the offending op. Encoded tensors are first materialized
    as packed ones (encoding.py), ``linalg.softmax`` is decomposed
    (``iree-codegen-decompose-softmax``) and the scalar ops no backend has an instruction for
    are expanded (``rt-codegen-expand-arith-math``).
    """
    materialize_encodings(func_op, backend, config)
    for op in [o for o in func_op.walk() if isinstance(o, SoftmaxOp)]:
        decompose_softmax(op)
    expand_arith_math(func_op)
    lowering = Lowering(func_op)
    lowering.features = getattr(backend, "kernel_ir_features", frozenset())
    for op in func_op.body.block.ops:
        lowering.visit(op)
    ops = lowering.finish()
    if not ops:
        raise error_at_op(func_op, f"dispatch function @{func_op.sym_name.data} stores nothing; "
                                   f"expected at least one flow.dispatch.tensor.store")
    bindings = lowering.binding_count()
    base = bindings + len(lowering.rodata)
    ops, scratch_shapes = fold_relayouts(ops, list(lowering.scratch), base, backend, lowering.subviews)
    ops, subviews = collapse_copy_dims(ops, bindings, lowering.subviews)
    ordinals = [base + j for j in range(len(scratch_shapes))]
    shapes = {o: shape for o, (_, shape) in zip(ordinals, scratch_shapes)}
    distribution, tiled = distribute(ops, bindings, shapes, subviews, backend, config)
    scratch = []
    for ordinal, (etype, shape) in zip(ordinals, scratch_shapes):
        axes = tiled.get(ordinal, {})
        scratch.append(kir.Scratch(etype, shape, tuple(axes.get(k) for k in range(len(shape)))
                                   if axes else ()))
    return kir.Kernel(func_op.sym_name.data, bindings, lowering.constant_count(), tuple(ops),
                      distribution, lowering.binding_access(), tuple(lowering.rodata),
                      tuple(scratch))
