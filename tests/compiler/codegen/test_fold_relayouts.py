"""lowering/fold_relayouts.py: a Pack of the RHS and an Unpack of OUT around a lone f32 Mmt4d
become strided views of the row-major bindings (with the Mmt4d's bounds), only on a backend
that runs them in place and only when nothing else touches the packed scratch."""
import dataclasses
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
    folded, left = fold_relayouts(ops, scratch, BASE, IN_PLACE)
    # the packed B stays (another op reads it); the unpack of OUT still folds
    assert [type(op).__name__ for op in folded] == ["Pack", "Mmt4d", "Unpack"]
    assert folded[0] is ops[0] and folded[2] is reader and left == scratch[:1]
    assert folded[1].rhs == ops[1].rhs and folded[1].out.binding == 2


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
    # the epilogue's scratch 5 becomes 3
    folded, left = fold_relayouts(ops, scratch, BASE, IN_PLACE)
    assert left == [("f32", (M, N))] and folded[-1] == dataclasses.replace(
        epilogue, outputs=(kir.View(BASE, "f32", (M, N)),))
    # ... unless placement saw it through a sub-view: then nothing folds
    sub = kir.View(BASE + 2, "f32", (M, N))
    assert fold_relayouts(ops, scratch, BASE, IN_PLACE, {sub: (sub, (0, 0))}) == (ops, scratch)


BATCH = kir.Constant(3)
P, R = "parallel", "reduction"


def _batched(fill=True, between=()):
    """pack B[b, K, N] -> scratch 3; fill scratch 4; batch_mmt4d(A, scratch 3) -> scratch 4;
    unpack scratch 4 -> C[b, M, N]."""
    d = kir.AffineExpr.dim
    b = kir.View(1, "f32", (BATCH, K, N))
    packed_b = kir.View(BASE, "f32", (BATCH, N1, K, 16, 1))
    out = kir.View(BASE + 1, "f32", (BATCH, M1, N1, 16, 16))
    lhs = kir.View(0, "f32", (BATCH, M1, K, 16, 1))
    zero = kir.ScalarOp("arith.constant", (), "f32", (("value", 0.0),))
    body = (kir.ScalarOp("arith.mulf", (0, 1), "f32"), kir.ScalarOp("arith.addf", (3, 2), "f32"))
    mm = kir.Generic((BATCH, M1, N1, K, 16, 16, 1), (P, P, P, R, P, P, R), (lhs, packed_b), (out,),
                     tuple(tuple(map(d, ds)) for ds in ((0, 1, 3, 4, 6), (0, 2, 3, 5, 6), (0, 1, 2, 4, 5))),
                     body, (4,), "batch_mmt4d")
    ops = [kir.Generic(out.shape, (P,) * 5, (), (out,), (tuple(map(d, range(5))),), (zero,), (1,), "fill")] if fill else []
    ops += [kir.Pack(b, packed_b, (2, 1), (16, 1), (0, 2, 1), 0.0), *between, mm,
            kir.Unpack(out, kir.View(2, "f32", (BATCH, M, N)), (1, 2), (16, 16), (0, 1, 2))]
    return ops, [("f32", packed_b.shape), ("f32", out.shape)]


def test_a_batch_mmt4d_reads_and_writes_each_batch_slice_in_place():
    ops, scratch = _batched()
    folded, left = fold_relayouts(ops, scratch, BASE, IN_PLACE)
    assert left == [] and [op.kind for op in folded] == ["fill", "batch_mmt4d"]
    fill, mm = folded
    assert mm.bounds == (M, N)
    kn, mn = kir.Expr("mul", (K, N)), kir.Expr("mul", (M, N))
    assert (mm.inputs[1].binding, mm.inputs[1].strides) == (1, (kn, 16, N, 1, N))
    assert (mm.outputs[0].binding, mm.outputs[0].strides) == (2, (mn, kir.Expr("mul", (16, N)), 16, N, 1))
    assert fill.outputs == mm.outputs  # the zero fill follows OUT, for the tile kernel to absorb
    assert mm.inputs[0] == ops[2].inputs[0]


def test_a_batch_mmt4d_whose_fill_is_not_just_before_it_keeps_its_unpack():
    # the fill must be absorbed by the tile kernel: an op between them leaves it a third user
    # of the packed OUT, so the unpack stays (the RHS pack still folds)
    ops, scratch = _batched()
    ops.insert(1, kir.Generic((M, N), (P, P), (kir.View(0, "f32", (M, N)),), (kir.View(2, "f32", (M, N)),),
                              (tuple(kir.AffineExpr.dim(d) for d in (0, 1)),) * 2, (), (0,), "copy"))
    folded, left = fold_relayouts(ops, scratch, BASE, IN_PLACE)
    assert [getattr(op, "kind", type(op).__name__) for op in folded] == ["fill", "copy", "batch_mmt4d", "Unpack"]
    mm = folded[2]
    assert mm.inputs[1].binding == 1 and mm.outputs[0] == kir.View(BASE, "f32", ops[3].outputs[0].shape)
    assert folded[0].outputs == mm.outputs and folded[3].source == mm.outputs[0] and left == scratch[1:]


def test_a_batch_mmt4d_on_a_plain_backend_keeps_its_relayouts():
    ops, scratch = _batched()
    assert fold_relayouts(ops, scratch, BASE, PLAIN) == (ops, scratch)
