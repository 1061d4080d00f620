"""Relayouts inside an mmt4d dispatch read and written in place: Pack -> Mmt4d -> Unpack as one
Mmt4d over strided views of the row-major bindings (and the same for a batch_mmt4d).

Dispatch formation puts a matmul's RHS and LHS ``set_encoding`` and its
result's ``unset_encoding`` into the matmul's dispatch when every device is llvm-cpu (form_dispatch_regions.py, rule 5);
the lowering materializes them as a Pack into workgroup scratch and an Unpack from it. With
K0 = 1 (or K a static multiple of K0) the packed operands are strided views of the plain
matrices, so no copy is needed:

- RHS ``[N1, K1, N0, K0]`` of ``B[K, N]``: element ``B[k1*K0 + k0, n1*N0 + n0]``, strides
  ``(N0, K0*N, 1, N)`` (K0-major tiles, rows N apart);
- OUT ``[M1, N1, M0, N0]`` of ``C[M, N]``: element ``C[m1*M0 + m0, n1*N0 + n0]``, strides
  ``(M0*N, N0, N, 1)``;
- LHS ``[M1, K1, M0, 1]`` of ``A[M, K]`` (K0 = 1): element ``A[m1*M0 + m0, k1]``,
  strides ``(M0*K, 1, K, 1)``; the llvm-cpu kernel packs it panel by panel into its stack
  (``mmt4d.emit_panel_pack``), rows past M as zeros.

The folded Mmt4d carries ``bounds = (M, N)``: its tile kernel never reads rows of A past M nor
columns of B past N
(masked loads, zero lanes -- the pack's zero padding) and writes C only inside ``M x N``
(kernel_ir.Mmt4d). A batch_matmul's dispatch (``linalg.batch_mmt4d``: the Generic of kind
``"batch_mmt4d"``, kernel_ir.Generic) folds the same way, with a leading batch dim: RHS
``[B, N1, K1, N0, K0]`` of ``B[b, K, N]`` with strides ``(K*N, N0, K0*N, 1, N)``, LHS
``[B, M1, K1, M0, 1]`` of ``A[b, M, K]`` with strides ``(M*K, M0*K, 1, K, 1)``, OUT
``[B, M1, N1, M0, N0]`` of ``C[b, M, N]`` with strides ``(M*N, M0*N, N0, N, 1)``, and
``bounds = (M, N)`` per batch slice; the zero fill of the packed OUT right before it (its
init, which the batched form keeps) is retargeted to the strided OUT, for the tile kernel to
absorb. The scratch the Pack / Unpack used is dropped and the later scratch
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


def _operands(op):
    """(lhs, rhs, out, batch rank) of an Mmt4d (0) or a batch_mmt4d Generic (1), else None."""
    if isinstance(op, kir.Mmt4d):
        return op.lhs, op.rhs, op.out, 0
    if isinstance(op, kir.Generic) and op.kind == "batch_mmt4d" and len(op.inputs) == 2 and len(
            op.outputs) == 1 and op.bounds is None:
        return (*op.inputs, op.outputs[0], 1)
    return None


def _row_major(plain, packed_shape, nb, tile_strides):
    """The packed operand of shape ``packed_shape`` as a strided view of the row-major ``plain``
    matrix (``nb`` = 1: a batch of them, one matrix apart): ``tile_strides`` for its four tile
    dims."""
    batch = (fold_size("mul", *plain.shape[nb:]),) if nb else ()
    return kir.View(plain.binding, "f32", packed_shape, plain.offset, (*batch, *tile_strides),
                    plain.extent)


def _plain_matrix(view, rank):
    return view.strides is None and len(view.shape) == rank and view.element_type == "f32"


def _rhs_pack(op, rhs, nb, scratch_base):
    """Whether Pack ``op`` packs a plain ``B[(batch,) K, N]`` into exactly the RHS scratch."""
    if not isinstance(op, kir.Pack) or op.dest.binding != rhs.binding:
        return False
    n0, k0 = rhs.shape[nb + 2], rhs.shape[nb + 3]
    batch = tuple(range(nb))
    if (op.inner_dims_pos, op.inner_tiles, op.outer_dims_perm) != (
            (nb + 1, nb), (n0, k0), (*batch, nb + 1, nb)):
        return False
    k = op.source.shape[nb]
    divisible = k0 == 1 or (isinstance(k, int) and k % k0 == 0)
    return (_plain_matrix(op.source, nb + 2) and op.source.binding < scratch_base and divisible
            and op.padding_value in (None, 0.0))


def _lhs_pack(op, lhs, nb, scratch_base):
    """Whether Pack ``op`` packs a plain ``A[(batch,) M, K]`` into exactly the LHS scratch
    with K0 = 1."""
    if not isinstance(op, kir.Pack) or op.dest.binding != lhs.binding:
        return False
    m0, k0 = lhs.shape[nb + 2], lhs.shape[nb + 3]
    if (op.inner_dims_pos, op.inner_tiles) != ((nb, nb + 1), (m0, k0)) or k0 != 1:
        return False
    return (op.outer_dims_perm in (None, tuple(range(nb + 2))) and _plain_matrix(op.source, nb + 2)
            and op.source.binding < scratch_base and op.padding_value in (None, 0.0))


def _out_unpack(op, out, nb, scratch_base):
    """Whether Unpack ``op`` unpacks exactly the OUT scratch into a plain ``C[(batch,) M, N]``."""
    if not isinstance(op, kir.Unpack) or op.source != out:
        return False
    identity = tuple(range(nb + 2))
    return (op.inner_dims_pos == identity[nb:] and op.inner_tiles == tuple(out.shape[nb + 2:])
            and op.outer_dims_perm in (None, identity) and _plain_matrix(op.dest, nb + 2)
            and op.dest.binding < scratch_base)


def _zero_fill(op, out):
    """Whether ``op`` is a Generic filling exactly the view ``out`` with the constant 0."""
    return (isinstance(op, kir.Generic) and op.kind == "fill" and not op.inputs
            and op.outputs == (out,) and len(op.body) == 1 and op.yields == (1,)
            and op.body[0].opcode is kir.Opcode.CONSTANT and op.body[0].attr("value") == 0)


def fold_relayouts(ops, scratch, scratch_base, backend, subviews=None):
    """``(ops, scratch)`` with the Pack / Unpack of a lone f32 Mmt4d (or batch_mmt4d Generic)
    folded into its views.

    ops: the dispatch's Kernel IR ops; scratch: ``[(element type, shape)]`` of scratch
    ordinals ``scratch_base + j``. Applies only when the dispatch has one Mmt4d or batch_mmt4d;
    folds its RHS Pack, its LHS Pack (K0 = 1) and / or its OUT Unpack, each when
    nothing else touches its scratch
    (other ops, such as an epilogue on the packed result or the copy of an accumulating
    init, keep that relayout; a batch_mmt4d's OUT may also have its zero fill right before
    it); otherwise returns its arguments unchanged. Later scratch ordinals move down in every
    op (unless ``subviews``, placement's ``{view: (parent, offsets)}``, or a gather mentions
    one: then nothing folds).
    """
    if "in_place_mmt4d" not in getattr(backend, "kernel_ir_features", ()):
        return ops, scratch
    mms = [op for op in ops if _operands(op) is not None]
    if len(mms) != 1:
        return ops, scratch
    mm = mms[0]
    lhs, rhs, out, nb = _operands(mm)
    if (lhs.element_type, rhs.element_type, out.element_type) != ("f32",) * 3:
        return ops, scratch
    if not all(isinstance(t, int) for t in (*rhs.shape[nb + 2:], *out.shape[nb + 2:])):
        return ops, scratch
    packs = [op for op in ops if _rhs_pack(op, rhs, nb, scratch_base)]
    lhs_packs = [op for op in ops if _lhs_pack(op, lhs, nb, scratch_base)]
    unpacks = [op for op in ops if _out_unpack(op, out, nb, scratch_base)]
    before = [op for op in ops[:[id(o) for o in ops].index(id(mm))]
              if op not in packs and op not in lhs_packs]
    fills = before[-1:] if unpacks and nb and before and _zero_fill(before[-1], out) else []

    def alone(folded, others=()):
        """Whether nothing but the contraction (and ``others``) touches the packed scratch."""
        inner = folded.dest if isinstance(folded, kir.Pack) else folded.source
        users = [op for op in ops if any(v.binding == inner.binding for v in _views(op))]
        return set(map(id, users)) == {id(mm), id(folded), *map(id, others)}

    packs = packs if len(packs) == 1 and alone(packs[0]) else []
    lhs_packs = lhs_packs if len(lhs_packs) == 1 and alone(lhs_packs[0]) else []
    unpacks = unpacks if len(unpacks) == 1 and alone(unpacks[0], fills) else []
    fills = fills if unpacks else []
    if not packs and not lhs_packs and not unpacks:
        return ops, scratch
    m = fold_size("mul", lhs.shape[nb], lhs.shape[nb + 2])
    n = fold_size("mul", rhs.shape[nb], rhs.shape[nb + 2])
    dropped = []
    if lhs_packs:
        source = lhs_packs[0].source
        m, k = source.shape[nb:]  # A's own rows bound the reads
        lhs = _row_major(source, lhs.shape, nb, (fold_size("mul", lhs.shape[nb + 2], k), 1, k, 1))
        dropped.append(lhs_packs[0].dest.binding)
    if packs:
        source = packs[0].source
        n = source.shape[nb + 1]  # B's own columns bound the reads
        rhs = _row_major(source, rhs.shape, nb,
                         (rhs.shape[nb + 2], fold_size("mul", rhs.shape[nb + 3], n), 1, n))
        dropped.append(packs[0].dest.binding)
    if unpacks:
        dest = unpacks[0].dest
        m, n = dest.shape[nb:]  # C's own shape bounds the writes
        out = _row_major(dest, out.shape, nb,
                         (fold_size("mul", out.shape[nb + 2], n), out.shape[nb + 3], n, 1))
        dropped.append(unpacks[0].source.binding)
    kept = [j for j in range(len(scratch)) if scratch_base + j not in dropped]
    moved = {scratch_base + j: scratch_base + i for i, j in enumerate(kept) if i != j}
    gone = set(map(id, (*packs, *lhs_packs, *unpacks, *fills)))
    rest = [op for op in ops if op is not mm and id(op) not in gone]
    shifted = [v for view, (parent, _) in (subviews or {}).items() for v in (view, parent)]
    if any(v.binding in moved for v in shifted) or any(
            v.binding in moved for op in rest if isinstance(op, kir.Generic) for v in op.gathers):
        return ops, scratch  # a later scratch seen through a sub-view or a gather: left as it is

    def renumber(view):
        return dataclasses.replace(view, binding=moved.get(view.binding, view.binding))

    def renumbered(op):
        if isinstance(op, kir.Generic):
            return dataclasses.replace(op, inputs=tuple(map(renumber, op.inputs)),
                                       outputs=tuple(map(renumber, op.outputs)))
        if isinstance(op, kir.Mmt4d):
            return dataclasses.replace(op, lhs=renumber(op.lhs), rhs=renumber(op.rhs),
                                       out=renumber(op.out))
        return dataclasses.replace(op, source=renumber(op.source), dest=renumber(op.dest))

    lhs, rhs, out = renumber(lhs), renumber(rhs), renumber(out)
    if nb:
        folded = dataclasses.replace(mm, inputs=(lhs, rhs), outputs=(out,), bounds=(m, n))
    else:
        folded = kir.Mmt4d(lhs, rhs, out, mm.accumulate, (m, n))
    new_ops = []
    for op in ops:
        if op is mm:
            new_ops.extend(dataclasses.replace(f, outputs=(out,)) for f in fills)
            new_ops.append(folded)
        elif id(op) not in gone:
            new_ops.append(renumbered(op) if any(v.binding in moved for v in _views(op)) else op)
    return new_ops, [scratch[j] for j in kept]
