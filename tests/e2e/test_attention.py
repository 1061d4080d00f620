"""iree_linalg_ext.attention / online_attention end to end on llvm-cpu and vmvx, against numpy.

The reference follows IREE's decomposition: ``S = (Q @ K^T) * scale * log2 e``, the region
applied to S, a mask added (i1: 0 / -inf; float: ``mask * log2 e``), ``softmax`` in base 2
(the same as softmax in base e when the region is the identity), then ``@ V``.
"""
import numpy as np
import pytest

import rt
from rt.runtime.errors import CompileError, RtError

DEVICES = [("llvm-cpu", "local-sync://llvm-cpu"), ("vmvx", "local-sync://vmvx")]
LOG2E = 1.0 / np.log(2.0)
_MAPS_5 = ["(d0, d1, d2)", "(d0, d3, d2)", "(d0, d3, d4)", "()"]


def _maps(results, dims="(d0, d1, d2, d3, d4)"):
    return "[" + ", ".join(f"affine_map<{dims} -> {r}>" for r in results) + "]"


def attention_ref(q, k, v, scale, mask=None, region=lambda s: s):
    """numpy attention over [B, M, K1] / [B, K2, K1] / [B, K2, N] in float64."""
    s = np.einsum("bmk,bjk->bmj", q.astype(np.float64), k.astype(np.float64)) * scale * LOG2E
    s = region(s)
    if mask is not None:
        s = s + (np.where(mask, 0.0, -np.inf) if mask.dtype == bool else mask.astype(np.float64) * LOG2E)
    p = np.exp2(s - s.max(axis=-1, keepdims=True))
    return np.einsum("bmj,bjn->bmn", p / p.sum(axis=-1, keepdims=True), v.astype(np.float64))


def _program(b, m, k1, k2, n, dtype="f32", mask=None, region="iree_linalg_ext.yield %s : f32",
             out="f32", dynamic=False):
    dim = lambda x: "?" if dynamic else str(x)
    t = lambda *s: f"tensor<{'x'.join(dim(x) for x in s)}x{dtype}>"
    tq, tk, tv = t(b, m, k1), t(b, k2, k1), t(b, k2, n)
    to = f"tensor<{'x'.join(dim(x) for x in (b, m, n))}x{out}>"
    maps = _MAPS_5 + (["(d0, d1, d3)"] if mask else []) + ["(d0, d1, d4)"]
    mask_arg = f", %mask: tensor<{b}x{m}x{k2}x{mask}>" if mask else ""
    mask_in, mask_t = (", %mask", f", tensor<{b}x{m}x{k2}x{mask}>") if mask else ("", "")
    empty = ("%c0 = arith.constant 0 : index\n %c1 = arith.constant 1 : index\n %c2 = arith.constant 2 : index\n"
             " %db = tensor.dim %q, %c0 : " + tq + "\n %dm = tensor.dim %q, %c1 : " + tq +
             "\n %dn = tensor.dim %v, %c2 : " + tv + f"\n %init = tensor.empty(%db, %dm, %dn) : {to}"
             if dynamic else f"%init = tensor.empty() : {to}")
    return f"""
func.func @attn(%q: {tq}, %k: {tk}, %v: {tv}{mask_arg}) -> {to} {{
  {empty}
  %scale = arith.constant 0.125 : {dtype}
  %r = iree_linalg_ext.attention {{indexing_maps = {_maps(maps)}}}
      ins(%q, %k, %v, %scale{mask_in} : {tq}, {tk}, {tv}, {dtype}{mask_t}) outs(%init : {to}) {{
  ^bb0(%s: f32):
    {region}
  }} -> {to}
  return %r : {to}
}}"""


def _run(text, uri_target, *args):
    target, uri = uri_target
    return rt.load(rt.compile(text, devices=[target]), devices=[uri]).attn(*args)


def _inputs(b, m, k1, k2, n, dtype=np.float32, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(dtype) for s in ((b, m, k1), (b, k2, k1), (b, k2, n))]


@pytest.mark.parametrize("device", DEVICES, ids=lambda d: d[0])
def test_attention_matches_numpy_over_several_key_blocks(device):
    q, k, v = _inputs(3, 37, 64, 150, 48)
    got = _run(_program(3, 37, 64, 150, 48), device, q, k, v)
    np.testing.assert_allclose(got, attention_ref(q, k, v, 0.125), rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("device", DEVICES, ids=lambda d: d[0])
def test_i1_and_float_masks_and_a_softcap_region(device):
    q, k, v = _inputs(2, 9, 16, 21, 5, seed=1)
    causal = np.tril(np.ones((9, 21), bool), 12)[None].repeat(2, axis=0)
    got = _run(_program(2, 9, 16, 21, 5, mask="i1"), device, q, k, v, causal)
    np.testing.assert_allclose(got, attention_ref(q, k, v, 0.125, causal), rtol=2e-5, atol=2e-5)
    bias = np.random.default_rng(2).standard_normal((2, 9, 21)).astype(np.float32)
    softcap = """%t = math.tanh %s : f32
    %c = arith.constant 2.0 : f32
    %y = arith.mulf %t, %c : f32
    iree_linalg_ext.yield %y : f32"""
    got = _run(_program(2, 9, 16, 21, 5, mask="f32", region=softcap), device, q, k, v, bias)
    want = attention_ref(q, k, v, 0.125, bias, region=lambda s: 2.0 * np.tanh(s))
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("device", DEVICES, ids=lambda d: d[0])
def test_f16_inputs_accumulate_in_f32(device):
    q, k, v = _inputs(2, 17, 32, 40, 24, np.float16, seed=3)
    got = _run(_program(2, 17, 32, 40, 24, dtype="f16", region="iree_linalg_ext.yield %s : f32"), device, q, k, v)
    np.testing.assert_allclose(got, attention_ref(q, k, v, 0.125), rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("device", DEVICES, ids=lambda d: d[0])
def test_dynamic_shapes_run_at_several_sizes_and_an_empty_batch(device):
    target, uri = device
    module = rt.load(rt.compile(_program(1, 1, 8, 1, 1, dynamic=True), devices=[target]), devices=[uri])
    for shape in ((1, 5, 8, 7, 3), (2, 33, 8, 70, 16), (0, 4, 8, 6, 3), (2, 0, 8, 6, 3)):
        q, k, v = _inputs(*shape, seed=sum(shape))
        got = module.attn(q, k, v)
        assert got.shape == (shape[0], shape[1], shape[4])
        np.testing.assert_allclose(got, attention_ref(q, k, v, 0.125), rtol=2e-5, atol=2e-5)
    q, k, v = _inputs(2, 4, 8, 0, 3)  # no keys: softmax over nothing is 0 / 0 on both devices
    assert np.isnan(module.attn(q, k, v)).all()
    q, k, v = _inputs(2, 4, 8, 6, 3)
    with pytest.raises(RtError) as info:
        module.attn(q.astype(np.float64), k, v)
    assert "input 0" in str(info.value) and "f32" in str(info.value)


ONLINE = f"""
func.func @attn(%q: tensor<2x4x16x8xf32>, %k: tensor<2x10x4x3x8xf32>, %v: tensor<2x10x4x3x6xf32>,
                %acc: tensor<2x4x16x6xf32>, %max: tensor<2x4x16xf32>, %sum: tensor<2x4x16xf32>)
    -> (tensor<2x4x16x6xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32>) {{
  %scale = arith.constant 0.25 : f32
  %r:3 = iree_linalg_ext.online_attention {{indexing_maps = {_maps(
    ["(d0, d1, d2, d4)", "(d0, d5, d1, d6, d4)", "(d0, d5, d1, d6, d3)", "()", "(d0, d1, d2, d3)",
     "(d0, d1, d2)", "(d0, d1, d2)"], "(d0, d1, d2, d3, d4, d5, d6)")}}}
      ins(%q, %k, %v, %scale : tensor<2x4x16x8xf32>, tensor<2x10x4x3x8xf32>, tensor<2x10x4x3x6xf32>, f32)
      outs(%acc, %max, %sum : tensor<2x4x16x6xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32>) {{
  ^bb0(%s: f32):
    iree_linalg_ext.yield %s : f32
  }} -> tensor<2x4x16x6xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32>
  return %r#0, %r#1, %r#2 : tensor<2x4x16x6xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32>
}}"""


@pytest.mark.parametrize("device", DEVICES, ids=lambda d: d[0])
def test_online_attention_in_two_halves_equals_attention(device):
    """Two online steps over the halves of the keys (two K2 dims, IREE's gather-attention maps),
    normalized by the running sum, give attention over all keys."""
    rng = np.random.default_rng(4)
    q = rng.standard_normal((2, 4, 16, 8)).astype(np.float32)
    k = rng.standard_normal((2, 20, 4, 3, 8)).astype(np.float32)
    v = rng.standard_normal((2, 20, 4, 3, 6)).astype(np.float32)
    target, uri = device
    module = rt.load(rt.compile(ONLINE, devices=[target]), devices=[uri])
    acc, mx, total = np.zeros((2, 4, 16, 6), np.float32), np.full((2, 4, 16), -np.inf, np.float32), np.zeros((2, 4, 16), np.float32)
    for half in (slice(0, 10), slice(10, 20)):
        acc, mx, total = module.attn(q, k[:, half].copy(), v[:, half].copy(), acc, mx, total)
    qb = q.reshape(8, 16, 8)
    kb = k.transpose(0, 2, 1, 3, 4).reshape(8, 60, 8)
    vb = v.transpose(0, 2, 1, 3, 4).reshape(8, 60, 6)
    want = attention_ref(qb, kb, vb, 0.25).reshape(2, 4, 16, 6)
    np.testing.assert_allclose(acc / total[..., None], want, rtol=2e-5, atol=2e-5)
    s = np.einsum("bmk,bjk->bmj", qb.astype(np.float64), kb) * 0.25 * LOG2E
    np.testing.assert_allclose(mx, s.max(axis=-1).reshape(2, 4, 16), rtol=1e-5, atol=1e-5)


def test_mask_indexed_by_a_value_dim_is_a_located_compile_error():
    text = _program(1, 2, 4, 3, 5, mask="i1").replace("affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3)>",
                                                      "affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4)>")
    text = text.replace("tensor<1x2x3xi1>", "tensor<1x2x5xi1>")
    with pytest.raises(CompileError) as info:
        rt.compile(text, devices=["vmvx"])
    assert "the mask is indexed by a dim outside" in str(info.value)
    assert "<input>:" in str(info.value) or ":5:" in str(info.value)


def test_attention_is_one_dispatch():
    flow = rt.compile(_program(2, 8, 16, 20, 4), devices=["llvm-cpu"], compile_to="flow").decode()
    assert flow.count("flow.dispatch @") == 1 and "attention_2x8x4_f32" in flow


@pytest.mark.parametrize("cpu", ["x86-64", "x86-64-v3", "host"])
def test_flash_kernel_on_every_vector_width(cpu):
    """llvm-cpu's fused kernel with 4-, 8- and 16-lane vectors: several key blocks with a
    partial last one, a partial last group of rows, N not a multiple of the lanes."""
    q, k, v = _inputs(3, 37, 40, 150, 45, seed=5)
    got = _run(_program(3, 37, 40, 150, 45), (f"llvm-cpu:{cpu}", "local-sync://llvm-cpu"), q, k, v)
    np.testing.assert_allclose(got, attention_ref(q, k, v, 0.125), rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("device", DEVICES, ids=lambda d: d[0])
def test_masks_whose_first_key_blocks_are_all_masked(device):
    """Causal and anti-causal i1 masks over several key blocks (llvm-cpu's flash kernel meets
    blocks where a row has no key yet); a row with no key at all is NaN (0 / 0) on both devices."""
    q, k, v = _inputs(2, 70, 32, 150, 20, seed=6)
    module = rt.load(rt.compile(_program(2, 70, 32, 150, 20, mask="i1"), devices=[device[0]]), devices=[device[1]])
    for mask in (np.tril(np.ones((70, 150), bool)), np.triu(np.ones((70, 150), bool), 100)):
        mask = np.broadcast_to(mask, (2, 70, 150)).copy()
        got = module.attn(q, k, v, mask)
        with np.errstate(invalid="ignore"):  # the reference's rows with no key
            want = attention_ref(q, k, v, 0.125, mask)
        empty = ~mask.any(axis=-1)
        assert empty.sum() == (0 if mask[0, 0, 0] else 2 * 20) and np.isnan(got[empty]).all()
        np.testing.assert_allclose(got[~empty], want[~empty], rtol=2e-5, atol=2e-5)
