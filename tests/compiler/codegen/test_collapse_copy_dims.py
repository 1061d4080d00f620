"""Tests that a pad of an NHWC tensor with few channels (the innermost dim unpadded and narrow)
runs as a fill and a copy over merged (W*C) rows, and that every element still lands where
numpy's pad puts it, on llvm-cpu and vmvx, with low and high padding and grids of many
workgroups (rt.compiler.codegen.lowering.collapse_dims)."""
import numpy as np
import pytest

import rt
from rt.compiler.codegen import kernel_ir as kir
from rt.compiler.codegen.lowering.collapse_dims import collapse_copy_dims


def _pad_source(shape, low, high, value=0.0, etype="f32"):
    out = [s + lo + hi for s, lo, hi in zip(shape, low, high)]
    t = lambda dims: "tensor<" + "x".join(map(str, dims)) + f"x{etype}>"
    idx = ", ".join(f"%i{k}: index" for k in range(len(shape)))
    return f"""
func.func @pad(%x: {t(shape)}) -> {t(out)} {{
  %cst = arith.constant {value} : {etype}
  %p = tensor.pad %x low{list(low)} high{list(high)} {{
  ^bb0({idx}):
    tensor.yield %cst : {etype}
  }} : {t(shape)} to {t(out)}
  return %p : {t(out)}
}}
"""


CASES = [((1, 64, 64, 3), (0, 0, 0, 0), (0, 1, 1, 0)),   # the stride-2 stem conv's SAME pad
         ((1, 40, 37, 3), (0, 1, 1, 0), (0, 1, 2, 0)),
         ((2, 9, 70, 5), (1, 2, 3, 0), (0, 0, 1, 0)),
         ((130, 7), (3, 0), (2, 0))]


@pytest.mark.parametrize("shape,low,high", CASES)
@pytest.mark.parametrize("target,uri", [("llvm-cpu", "local-task://llvm-cpu"), ("vmvx", "local-sync://vmvx")])
def test_narrow_pad_matches_numpy(shape, low, high, target, uri):
    x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape) + 1
    with rt.load(rt.compile(_pad_source(shape, low, high, -2.5), devices=[target]), devices=[uri]) as m:
        got = m.pad(x)
    np.testing.assert_array_equal(got, np.pad(x, list(zip(low, high)), constant_values=-2.5))


def _view(shape, strides=None, binding=0, offset=0):
    return kir.View(binding, "f32", shape, offset, strides)


def _ident(rank):
    return tuple(kir.AffineExpr.dim(d) for d in range(rank))


def _fill(view):
    body = (kir.ScalarOp(kir.Opcode.CONSTANT, (), "f32", (("value", 0.0),)),)
    return kir.Generic(view.shape, ("parallel",) * len(view.shape), (), (view,), (_ident(len(view.shape)),),
                       body, (1,), "fill")


def _copy(src, dst):
    rank = len(dst.shape)
    return kir.Generic(dst.shape, ("parallel",) * rank, (src,), (dst,), (_ident(rank),) * 2, (), (0,), "copy")


def test_the_last_two_dims_merge_with_the_subview_offset_scaled():
    out = _view((1, 10, 12, 3), binding=1)
    interior = _view((1, 8, 10, 3), (360, 36, 3, 1), binding=1, offset=36 + 3)
    src = _view((1, 8, 10, 3))
    ops, subviews = collapse_copy_dims([_fill(out), _copy(src, interior)], 2, {interior: (out, (0, 1, 1, 0))})
    assert [op.domain for op in ops] == [(1, 10, 36), (1, 8, 30)]
    assert ops[1].outputs[0].strides == (360, 36, 1) and ops[1].outputs[0].offset == 39
    assert ops[1].inputs[0].strides is None
    assert subviews == {ops[1].outputs[0]: (ops[0].outputs[0], (0, 1, 3))}


@pytest.mark.parametrize("ops", [
    [_fill(_view((4, 16)))],                                      # already a full vector wide
    [_copy(_view((4, 3)), _view((4, 3), (4, 1), binding=1))],     # rows 4 apart: not contiguous
    [_copy(_view((4, 3)), _view((4, 3), binding=2))],             # a scratch buffer
    [_fill(_view((12,)))],                                        # nothing to merge
])
def test_other_kernels_are_left_alone(ops):
    subviews = {}
    assert collapse_copy_dims(ops, 2, subviews) == (ops, subviews)
