"""Relayouts read and written in place (form-dispatch-regions rule 5 + lowering/fold_relayouts):
an argument's RHS pack and the result's unpack run inside the matmul's dispatch on llvm-cpu
as strided views, and the LHS is packed panel by panel inside it; both devices agree with
numpy for divisible, non-divisible and dynamic shapes, K past one panel chunk, M with more
rows of tiles than the kernel's work units, an argument used elsewhere too, a weight read by
two matmuls and a result that feeds another op, and an accumulating matmul."""
import numpy as np
import pytest

import rt

DEVICES = [("llvm-cpu", "local-task://llvm-cpu"), ("vmvx", "local-sync://vmvx")]
RNG = np.random.default_rng(23)


def _t(shape):
    return "tensor<" + "x".join("?" if s is None else str(s) for s in shape) + "xf32>"


def _source(m, k, n):
    """@mm(a, b) -> (a @ b, b + b), @shared(a, b, a2) -> tanh(a @ b) - a2 @ b and
    @acc(a, b, c) -> a @ b + c (an accumulating matmul); M static or ? (None)."""
    dyn = m is None
    a, b, c = (m, k), (k, n), (m, n)
    dims = ("  %c0 = arith.constant 0 : index\n  %dm = tensor.dim %a, %c0 : " + _t(a) + "\n") if dyn else ""
    empty = f"tensor.empty(%dm) : {_t(c)}" if dyn else f"tensor.empty() : {_t(c)}"
    return f"""
func.func @mm(%a: {_t(a)}, %b: {_t(b)}) -> ({_t(c)}, {_t(b)}) {{
  %z = arith.constant 0.0 : f32
{dims}  %e = {empty}
  %f = linalg.fill ins(%z : f32) outs(%e : {_t(c)}) -> {_t(c)}
  %r = linalg.matmul ins(%a, %b : {_t(a)}, {_t(b)}) outs(%f : {_t(c)}) -> {_t(c)}
  %eb = tensor.empty() : {_t(b)}
  %twice = linalg.generic {{indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}} ins(%b : {_t(b)}) outs(%eb : {_t(b)}) {{
  ^bb0(%x: f32, %o: f32):
    %y = arith.addf %x, %x : f32
    linalg.yield %y : f32
  }} -> {_t(b)}
  return %r, %twice : {_t(c)}, {_t(b)}
}}

func.func @shared(%a: {_t(a)}, %b: {_t(b)}, %a2: {_t(a)}) -> {_t(c)} {{
  %z = arith.constant 0.0 : f32
{dims}  %e = {empty}
  %f = linalg.fill ins(%z : f32) outs(%e : {_t(c)}) -> {_t(c)}
  %r1 = linalg.matmul ins(%a, %b : {_t(a)}, {_t(b)}) outs(%f : {_t(c)}) -> {_t(c)}
  %r2 = linalg.matmul ins(%a2, %b : {_t(a)}, {_t(b)}) outs(%f : {_t(c)}) -> {_t(c)}
  %s = linalg.generic {{indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}} ins(%r1, %r2 : {_t(c)}, {_t(c)}) outs(%e : {_t(c)}) {{
  ^bb0(%x: f32, %y: f32, %o: f32):
    %t = math.tanh %x : f32
    %u = arith.subf %t, %y : f32
    linalg.yield %u : f32
  }} -> {_t(c)}
  return %s : {_t(c)}
}}

func.func @acc(%a: {_t(a)}, %b: {_t(b)}, %c: {_t(c)}) -> {_t(c)} {{
  %r = linalg.matmul ins(%a, %b : {_t(a)}, {_t(b)}) outs(%c : {_t(c)}) -> {_t(c)}
  return %r : {_t(c)}
}}
"""


def _run(source, target, uri, *calls):
    with rt.load(rt.compile(source, devices=[target]), devices=[uri]) as mod:
        return [getattr(mod, name)(*args) for name, args in calls]


@pytest.mark.parametrize("target,uri", DEVICES)
@pytest.mark.parametrize("m,k,n,dynamic", [(32, 16, 48, False), (33, 17, 45, False), (5, 64, 7, False),
                                           (37, 23, 29, True), (150, 2100, 20, True),
                                           (3, 2048, 33, False)])
def test_in_place_relayouts_match_numpy(target, uri, m, k, n, dynamic):
    source = _source(None if dynamic else m, k, n)
    a, a2 = (RNG.standard_normal((m, k)).astype(np.float32) for _ in range(2))
    b = RNG.standard_normal((k, n)).astype(np.float32)
    c = RNG.standard_normal((m, n)).astype(np.float32)
    (r, twice), shared, acc = _run(source, target, uri, ("mm", (a, b)), ("shared", (a, b, a2)),
                                   ("acc", (a, b, c)))
    want = a.astype(np.float64) @ b
    tol = 1e-4 * max(1.0, k / 256)  # f32 sums of k products of N(0, 1) values
    np.testing.assert_allclose(r, want, rtol=1e-4, atol=tol)
    np.testing.assert_array_equal(twice, b + b)
    np.testing.assert_allclose(shared, np.tanh(want) - a2.astype(np.float64) @ b, rtol=1e-4, atol=tol)
    np.testing.assert_allclose(acc, want + c, rtol=1e-4, atol=tol)


def _dispatches(source, target):
    text = rt.compile(source, devices=[target], compile_to="flow").decode()
    return [line.split("::@")[1].split("[")[0] for line in text.splitlines() if "flow.dispatch @" in line]


def test_llvm_cpu_reads_the_argument_and_writes_the_result_in_place():
    names = _dispatches(_source(33, 17, 45), "llvm-cpu")
    # @mm: one dispatch packs A panel by panel, reads B and writes the result in place;
    # b + b on its own
    assert names[:2] == ["mm_dispatch_0_matmul_33x45x17_f32", "mm_dispatch_1_elementwise_17x45_f32"]
    # @shared: B is read by two matmuls, so it is packed once for both; their LHS (tanh(a),
    # a2) are each packed inside their matmul, which makes the two dispatches the same one
    assert names[2:4] == ["shared_dispatch_0_set_encoding_17x45_f32",
                          "shared_dispatch_1_matmul_33x45x17_f32"]
    assert names[4] == names[3]
    vmvx = _dispatches(_source(33, 17, 45), "vmvx")
    assert vmvx[:5] == ["mm_dispatch_0_set_encoding_33x17_f32", "mm_dispatch_1_set_encoding_17x45_f32",
                        "mm_dispatch_2_matmul_33x45x17_f32", "mm_dispatch_3_unset_encoding_33x45_f32",
                        "mm_dispatch_4_elementwise_17x45_f32"]
