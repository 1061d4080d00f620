"""lowering/fold_relayouts.py: a Pack of the RHS and an Unpack of OUT around a lone f32 Mmt4d
become strided views of the row-major bindings (with the Mmt4d's bounds), only on a backend
that runs them in place and only when nothing else touches the packed scratch."""
import types

from rt.compiler.codegen import kernel_ir as kir
from rt.compiler.codegen.lowering.fold_relayouts import fold_relayouts

IN_PLACE = types.SimpleNamespace(kernel_ir_features=frozenset({"in_place_mmt4d"}))
PLAIN = types.SimpleNamespace(kernel_ir_features=frozenset())
M, N, K = kir.Constant(0), kir.Constant(1), kir.Constant(2)
M1, N1 = kir.Expr("ceildiv", (M, 16)), kir.Expr("ceildiv", (N, 16))
BASE = 3  # bindings 0 (packed A), 1 (B), 2 (C); scratch from 3


def _ops(k0=1, k=K, extra=()):
    """pack B -> scratch 3; mmt4d(A, scratch 3) -> scratch 4; unpack scratch 4 -> C."""
    b = kir.View(1, "f32", (k, N))
    packed_b = kir.View(BASE, "f32", (N1, kir.Expr("ceildiv", (k, k0)) if k0 > 1 else k, 16, k0))
    out = kir.View(BASE + 1, "f32", (M1, N1, 16, 16))
    lhs = kir.View(0, "f32", (M1, packed_b.shape[1], 16, k0))
    ops = [kir.Pack(b, packed_b, (1, 0), (16, k0), (1, 0), 0.0),
           kir.Mmt4d(lhs, packed_b, out, False),
           kir.Unpack(out, kir.View(2, "f32", (M, N)), (0, 1), (16, 16), (0, 1)), *extra]
    scratch = [("f32", packed_b.shape), ("f32", out.shape)]
    return ops, scratch


def test_pack_and_unpack_become_in_place_views():
    ops, scratch = _ops()
    folded, left = fold_relayouts(ops, scratch, BASE, IN_PLACE)
    assert left == [] and len(folded) == 1
    mm = folded[0]
    assert mm.bounds == (M, N)
    assert (mm.rhs.binding, mm.rhs.strides) == (1, (16, N, 1, N))
    assert (mm.out.binding, mm.out.strides) == (2, (kir.Expr("mul", (16, N)), 16, N, 1))
    assert mm.lhs == ops[1].lhs


def test_a_backend_without_in_place_mmt4d_keeps_the_relayouts():
    ops, scratch = _ops()
    assert fold_relayouts(ops, scratch, BASE, PLAIN) == (ops, scratch)


def test_scratch_read_by_another_op_is_not_folded():
    reader = kir.Unpack(kir.View(BASE, "f32", (N1, K, 16, 1)), kir.View(2, "f32", (K, N)), (1, 0), (16, 1), (1, 0))
    ops, scratch = _ops(extra=(reader,))
    assert fold_relayouts(ops, scratch, BASE, IN_PLACE) == (ops, scratch)


def test_a_wider_k0_needs_a_static_k_it_divides():
    ops, scratch = _ops(k0=4, k=12)
    folded, _ = fold_relayouts(ops, scratch, BASE, IN_PLACE)
    assert folded[0].rhs.strides == (16, kir.Expr("mul", (4, N)), 1, N)
    ops, scratch = _ops(k0=4, k=K)
    folded, _ = fold_relayouts(ops, scratch, BASE, IN_PLACE)
    assert any(isinstance(op, kir.Pack) for op in folded)  # dynamic K: the pack stays


def test_a_later_scratch_moves_down():
    ops, scratch = _ops()
    epilogue = kir.Generic((M, N), ("parallel", "parallel"), (kir.View(2, "f32", (M, N)),),
                           (kir.View(BASE + 2, "f32", (M, N)),),
                           (tuple(kir.AffineExpr.dim(d) for d in (0, 1)),) * 2, (), (2,), "copy")
    ops.append(epilogue)
    scratch.append(("f32", (M, N)))
    # the epilogue uses scratch 5, which would become 3: left unfolded rather than renumbered
    assert fold_relayouts(ops, scratch, BASE, IN_PLACE) == (ops, scratch)
