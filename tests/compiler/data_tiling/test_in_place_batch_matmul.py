"""Relayouts in place around an f32 linalg.batch_matmul (form-dispatch-regions rule 5 +
lowering/fold_relayouts + the batch_mmt4d tile loop with bounds): an argument's LHS pack (panel
by panel in the kernel), its RHS pack and the result's unpack run inside the batch_matmul's
dispatch on llvm-cpu as per-batch strided views;
both devices agree with numpy for divisible, non-divisible and dynamic shapes, an argument used
elsewhere too, a result that feeds an elementwise op and an accumulating batch_matmul."""
import numpy as np
import pytest

import rt

DEVICES = [("llvm-cpu", "local-task://llvm-cpu"), ("vmvx", "local-sync://vmvx")]
RNG = np.random.default_rng(29)


def _t(shape):
    return "tensor<" + "x".join("?" if s is None else str(s) for s in shape) + "xf32>"


def _source(bsz, m, k, n):
    """@bmm(a, b) -> (a @ b, b + b), @tanh(a, b) -> tanh(a @ b) and @acc(a, b, c) -> a @ b + c
    (an accumulating batch_matmul); batch and M static or ? (None) together."""
    dyn = bsz is None
    a, b, c = (bsz, m, k), (bsz, k, n), (bsz, m, n)
    dims = ("  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n"
            f"  %db = tensor.dim %a, %c0 : {_t(a)}\n  %dm = tensor.dim %a, %c1 : {_t(a)}\n") if dyn else ""
    empty = f"tensor.empty(%db, %dm) : {_t(c)}" if dyn else f"tensor.empty() : {_t(c)}"
    eb = f"tensor.empty(%db) : {_t(b)}" if dyn else f"tensor.empty() : {_t(b)}"
    ident3 = "affine_map<(i, j, l) -> (i, j, l)>"
    return f"""
func.func @bmm(%a: {_t(a)}, %b: {_t(b)}) -> ({_t(c)}, {_t(b)}) {{
  %z = arith.constant 0.0 : f32
{dims}  %e = {empty}
  %f = linalg.fill ins(%z : f32) outs(%e : {_t(c)}) -> {_t(c)}
  %r = linalg.batch_matmul ins(%a, %b : {_t(a)}, {_t(b)}) outs(%f : {_t(c)}) -> {_t(c)}
  %eb = {eb}
  %twice = linalg.generic {{indexing_maps = [{ident3}, {ident3}], iterator_types = ["parallel", "parallel", "parallel"]}} ins(%b : {_t(b)}) outs(%eb : {_t(b)}) {{
  ^bb0(%x: f32, %o: f32):
    %y = arith.addf %x, %x : f32
    linalg.yield %y : f32
  }} -> {_t(b)}
  return %r, %twice : {_t(c)}, {_t(b)}
}}

func.func @tanh(%a: {_t(a)}, %b: {_t(b)}) -> {_t(c)} {{
  %z = arith.constant 0.0 : f32
{dims}  %e = {empty}
  %f = linalg.fill ins(%z : f32) outs(%e : {_t(c)}) -> {_t(c)}
  %r = linalg.batch_matmul ins(%a, %b : {_t(a)}, {_t(b)}) outs(%f : {_t(c)}) -> {_t(c)}
  %t = linalg.generic {{indexing_maps = [{ident3}, {ident3}], iterator_types = ["parallel", "parallel", "parallel"]}} ins(%r : {_t(c)}) outs(%e : {_t(c)}) {{
  ^bb0(%x: f32, %o: f32):
    %y = math.tanh %x : f32
    linalg.yield %y : f32
  }} -> {_t(c)}
  return %t : {_t(c)}
}}

func.func @acc(%a: {_t(a)}, %b: {_t(b)}, %c: {_t(c)}) -> {_t(c)} {{
  %r = linalg.batch_matmul ins(%a, %b : {_t(a)}, {_t(b)}) outs(%c : {_t(c)}) -> {_t(c)}
  return %r : {_t(c)}
}}
"""


@pytest.mark.parametrize("target,uri", DEVICES)
@pytest.mark.parametrize("bsz,m,k,n,dynamic", [(2, 32, 16, 48, False), (3, 17, 33, 20, False),
                                               (2, 5, 64, 7, False), (3, 21, 23, 29, True)])
def test_in_place_batch_matmul_matches_numpy(target, uri, bsz, m, k, n, dynamic):
    source = _source(None if dynamic else bsz, None if dynamic else m, k, n)
    a = RNG.standard_normal((bsz, m, k)).astype(np.float32)
    b = RNG.standard_normal((bsz, k, n)).astype(np.float32)
    c = RNG.standard_normal((bsz, m, n)).astype(np.float32)
    with rt.load(rt.compile(source, devices=[target]), devices=[uri]) as mod:
        r, twice = mod.bmm(a, b)
        t = mod.tanh(a, b)
        acc = mod.acc(a, b, c)
    want = np.matmul(a.astype(np.float64), b)
    np.testing.assert_allclose(r, want, rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(twice, b + b)
    np.testing.assert_allclose(t, np.tanh(want), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(acc, want + c, rtol=1e-4, atol=1e-4)


def _dispatches(source, target):
    text = rt.compile(source, devices=[target], compile_to="flow").decode()
    return [line.split("::@")[1].split("[")[0] for line in text.splitlines() if "flow.dispatch @" in line]


def test_llvm_cpu_reads_the_argument_and_writes_the_result_in_place():
    names = _dispatches(_source(3, 17, 33, 20), "llvm-cpu")
    # @bmm: one dispatch for pack A (panel by panel in the kernel) + pack B + batch_matmul +
    # unpack; b + b on its own
    assert names[:2] == ["bmm_dispatch_0_batch_matmul_3x17x20x33_f32",
                         "bmm_dispatch_1_elementwise_3x33x20_f32"]
    # @tanh: A and B still read in place; the unpack fuses with tanh instead (rule 2)
    assert names[2:4] == ["tanh_dispatch_0_batch_matmul_3x17x20x33_f32",
                         "tanh_dispatch_1_unset_encoding_3x17x20_f32"]
    assert not any("set_encoding_3x33x20" in n or "set_encoding_3x17x33" in n for n in names)
    vmvx = _dispatches(_source(3, 17, 33, 20), "vmvx")
    assert vmvx[:4] == ["bmm_dispatch_0_set_encoding_3x17x33_f32", "bmm_dispatch_1_set_encoding_3x33x20_f32",
                        "bmm_dispatch_2_batch_matmul_3x17x20x33_f32", "bmm_dispatch_3_unset_encoding_3x17x20_f32"]


@pytest.mark.parametrize("target,uri", DEVICES)
def test_accumulating_contractions_whose_packed_result_exceeds_workgroup_scratch(target, uri):
    """The init of an accumulating matmul / batch_matmul is packed: its unpack stays a dispatch
    of its own (packed in scratch it would need 532 KiB, past the 512 KiB limit); the RHS is
    still read in place."""
    m, k, n = 256, 4, 520
    source = f"""
func.func @mm(%a: {_t((m, k))}, %b: {_t((k, n))}, %c: {_t((m, n))}) -> {_t((m, n))} {{
  %r = linalg.matmul ins(%a, %b : {_t((m, k))}, {_t((k, n))}) outs(%c : {_t((m, n))}) -> {_t((m, n))}
  return %r : {_t((m, n))}
}}
func.func @bmm(%a: {_t((2, m, k))}, %b: {_t((2, k, n // 2))}, %c: {_t((2, m, n // 2))}) -> {_t((2, m, n // 2))} {{
  %r = linalg.batch_matmul ins(%a, %b : {_t((2, m, k))}, {_t((2, k, n // 2))}) outs(%c : {_t((2, m, n // 2))}) -> {_t((2, m, n // 2))}
  return %r : {_t((2, m, n // 2))}
}}
"""
    a, b, c = (RNG.standard_normal(s).astype(np.float32) for s in ((m, k), (k, n), (m, n)))
    ba, bb, bc = (RNG.standard_normal(s).astype(np.float32) for s in ((2, m, k), (2, k, n // 2), (2, m, n // 2)))
    with rt.load(rt.compile(source, devices=[target]), devices=[uri]) as mod:
        r = mod.mm(a, b, c)
        br = mod.bmm(ba, bb, bc)
    np.testing.assert_allclose(r, a.astype(np.float64) @ b + c, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(br, np.matmul(ba.astype(np.float64), bb) + bc, rtol=1e-4, atol=1e-4)
    if target == "llvm-cpu":
        names = _dispatches(source, target)
        assert not any("set_encoding_4x520" in x or "set_encoding_2x4x260" in x for x in names)
        assert "mm_dispatch_2_unset_encoding_256x520_f32" in names
