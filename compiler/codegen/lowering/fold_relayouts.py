"""Relayouts inside an mmt4d dispatch read and written in place: Pack -> Mmt4d -> Unpack as one
Mmt4d over strided views of the row-major bindings.

Dispatch formation puts a matmul's RHS ``set_encoding`` and its result's ``unset_encoding``
into the matmul's dispatch when every device is llvm-cpu (form_dispatch_regions.py, rule 5);
the lowering materializes them as a Pack into workgroup scratch and an Unpack from it. With
K0 = 1 (or K a static multiple of K0) the packed operands are strided views of the plain
matrices, so no copy is needed:

- RHS ``[N1, K1, N0, K0]`` of ``B[K, N]``: element ``B[k1*K0 + k0, n1*N0 + n0]``, strides
  ``(N0, K0*N, 1, N)`` (K0-major tiles, rows N apart);
- OUT ``[M1, N1, M0, N0]`` of ``C[M, N]``: element ``C[m1*M0 + m0, n1*N0 + n0]``, strides
  ``(M0*N, N0, N, 1)``.

The folded Mmt4d carries ``bounds = (M, N)``: its tile kernel never reads columns of B past N
(masked loads, zero lanes -- the pack's zero padding) and writes C only inside ``M x N``
(kernel_ir.Mmt4d). The scratch the Pack / Unpack used is dropped and the later scratch
ordinals move down. Only backends naming ``"in_place_mmt4d"`` in ``kernel_ir_features`` get
this (llvm-cpu); elsewhere the Pack / Unpack in scratch stay (correct, slower).

Source: GotoBLAS / BLIS (operands read in place by the macro-kernel); IREE keeps separate
pack / unpack dispatches (its data-tiling design doc) -- this saves their memory round trips.
"""
import dataclasses

from rt.compiler.codegen import kernel_ir as kir
from rt.compiler.codegen.lowering.symbols import fold as fold_size


def _views(op):
    if isinstance(op, kir.Mmt4d):
        return (op.lhs, op.rhs, op.out)
    if isinstance(op, kir.Generic):
        return (*op.inputs, *op.outputs, *op.gathers)
    return (op.source, op.dest)


def _plain_matrix(view):
    return view.strides is None and len(view.shape) == 2 and view.element_type == "f32"


def _rhs_pack(op, mm, scratch_base):
    """Whether Pack ``op`` packs a plain ``B[K, N]`` into exactly ``mm``'s RHS scratch."""
    if not isinstance(op, kir.Pack) or op.dest.binding != mm.rhs.binding:
        return False
    n0, k0 = mm.rhs.shape[2], mm.rhs.shape[3]
    if (op.inner_dims_pos, op.inner_tiles, op.outer_dims_perm) != ((1, 0), (n0, k0), (1, 0)):
        return False
    k = op.source.shape[0]
    divisible = k0 == 1 or (isinstance(k, int) and k % k0 == 0)
    return (_plain_matrix(op.source) and op.source.binding < scratch_base and divisible
            and op.padding_value in (None, 0.0))


def _out_unpack(op, mm, scratch_base):
    """Whether Unpack ``op`` unpacks exactly ``mm``'s OUT scratch into a plain ``C[M, N]``."""
    if not isinstance(op, kir.Unpack) or op.source != mm.out:
        return False
    return (op.inner_dims_pos == (0, 1) and op.inner_tiles == tuple(mm.out.shape[2:])
            and op.outer_dims_perm in (None, (0, 1)) and _plain_matrix(op.dest)
            and op.dest.binding < scratch_base)


def fold_relayouts(ops, scratch, scratch_base, backend):
    """``(ops, scratch)`` with the Pack / Unpack of a lone f32 Mmt4d folded into its views.

    ops: the dispatch's Kernel IR ops; scratch: ``[(element type, shape)]`` of scratch
    ordinals ``scratch_base + j``. Applies only when the dispatch has one Mmt4d, with an RHS
    Pack and/or an OUT Unpack whose scratch nothing else touches (other ops, such as an
    epilogue on the packed result, stay); otherwise returns its arguments unchanged.
    """
    if "in_place_mmt4d" not in getattr(backend, "kernel_ir_features", ()):
        return ops, scratch
    mms = [op for op in ops if isinstance(op, kir.Mmt4d)]
    if len(mms) != 1:
        return ops, scratch
    mm = mms[0]
    if (mm.lhs.element_type, mm.rhs.element_type, mm.out.element_type) != ("f32",) * 3:
        return ops, scratch
    if not all(isinstance(t, int) for t in (*mm.rhs.shape[2:], *mm.out.shape[2:])):
        return ops, scratch
    packs = [op for op in ops if _rhs_pack(op, mm, scratch_base)]
    unpacks = [op for op in ops if _out_unpack(op, mm, scratch_base)]
    if len(packs) + len(unpacks) == 0 or len(packs) > 1 or len(unpacks) > 1:
        return ops, scratch
    for folded in (*packs, *unpacks):
        inner = folded.dest if isinstance(folded, kir.Pack) else folded.source
        users = [op for op in ops if any(v.binding == inner.binding for v in _views(op))]
        if set(map(id, users)) != {id(mm), id(folded)}:
            return ops, scratch
    lhs, rhs, out = mm.lhs, mm.rhs, mm.out
    m = fold_size("mul", lhs.shape[0], lhs.shape[2])
    n = fold_size("mul", rhs.shape[0], rhs.shape[2])
    dropped = []
    if packs:
        source = packs[0].source
        n0, k0 = rhs.shape[2], rhs.shape[3]
        n = source.shape[1]
        rhs = kir.View(source.binding, "f32", rhs.shape, source.offset,
                       (n0, fold_size("mul", k0, n), 1, n), source.extent)
        dropped.append(mm.rhs.binding)
    if unpacks:
        dest = unpacks[0].dest
        m0, n0 = out.shape[2], out.shape[3]
        m, n = dest.shape
        out = kir.View(dest.binding, "f32", out.shape, dest.offset, (fold_size("mul", m0, n), n0, n, 1),
                       dest.extent)
        dropped.append(mm.out.binding)
    kept = [j for j in range(len(scratch)) if scratch_base + j not in dropped]
    moved = {scratch_base + j: scratch_base + i for i, j in enumerate(kept) if i != j}
    rest = [op for op in ops if op is not mm and op not in (*packs, *unpacks)]
    if any(v.binding in moved for op in rest for v in _views(op)):
        return ops, scratch  # an epilogue on a later scratch: left as it is

    def renumber(view):
        return dataclasses.replace(view, binding=moved.get(view.binding, view.binding))

    folded = kir.Mmt4d(renumber(mm.lhs), renumber(rhs), renumber(out), mm.accumulate, (m, n))
    return ([folded if op is mm else op for op in ops if op not in (*packs, *unpacks)],
            [scratch[j] for j in kept])
