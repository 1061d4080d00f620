"""A transformer encoder layer from JAX's StableHLO, end to end on both devices (issue 22).

``models/encoder_layer_s32_d64.mlir`` is ``jax.jit(...).lower(...).as_text()`` of the encoder
``benchmarks/cpu_scaling.py`` times (sequence 32, model 64, 2 heads, FFN 128, post-norm, exact
GELU through ``chlo.erfc``), shrunk so it compiles in seconds. Checked here: the dispatches it
forms (the erfc polynomial's ~40 elementwise ops one epilogue inside the FFN's first matmul,
never dispatches of their own) and its values on llvm-cpu and vmvx against numpy in float64.
"""
import math
import pathlib
import re

import numpy as np
import pytest

import rt

MODEL = pathlib.Path(__file__).parent / "models" / "encoder_layer_s32_d64.mlir"
SEQ, D, HEADS, FFN = 32, 64, 2, 128
DEVICES = [("llvm-cpu", "local-task://llvm-cpu"), ("vmvx", "local-sync://vmvx")]


def _inputs():
    rng = np.random.default_rng(22)
    shapes = [(SEQ, D)] + [(D, D)] * 4 + [(D,)] * 2 + [(D, FFN), (FFN, D)]
    args = [(rng.standard_normal(s) * 0.3).astype(np.float32) for s in shapes]
    args[5] += 1.0  # the layer norm's scale around 1
    return args


def _reference(x, wq, wk, wv, wo, g, b, w1, w2):
    """The layer in float64: softmax(q k^T / sqrt(d/h)) v per head, residual + layer norm,
    exact-GELU FFN, residual + layer norm (the same math as the JAX export)."""
    x, wq, wk, wv, wo, g, b, w1, w2 = (a.astype(np.float64) for a in (x, wq, wk, wv, wo, g, b, w1, w2))
    hd = D // HEADS
    q, k, v = ((x @ w).reshape(SEQ, HEADS, hd).transpose(1, 0, 2) for w in (wq, wk, wv))
    s = q @ k.transpose(0, 2, 1) / math.sqrt(hd)
    p = np.exp(s - s.max(-1, keepdims=True))
    att = (p / p.sum(-1, keepdims=True)) @ v

    def norm(y):
        mean = y.mean(-1, keepdims=True)
        return (y - mean) / np.sqrt(((y - mean) ** 2).mean(-1, keepdims=True) + 1e-5) * g + b

    y = norm(x + att.transpose(1, 0, 2).reshape(SEQ, D) @ wo)
    h = y @ w1
    gelu = 0.5 * h * np.vectorize(math.erfc)(-h / math.sqrt(2.0))
    return norm(y + gelu @ w2)


def _executables(flow_text):
    """{export name: executable body text} of a module compiled to the flow phase."""
    parts = re.split(r"(?=flow\.executable private @)", flow_text)
    found = {}
    for part in parts[1:]:
        name = re.search(r"flow\.executable\.export public @(\w+)", part).group(1)
        found[name] = part
    return found


def test_gelu_is_one_epilogue_of_its_matmul():
    flow = rt.compile(str(MODEL), devices=["llvm-cpu"], compile_to="flow").decode()
    executables = _executables(flow.split("util.func")[0])
    ffn1 = [body for name, body in executables.items() if f"matmul_{SEQ}x{FFN}x{D}_f32" in name]
    assert len(ffn1) == 1
    # the whole erfc-based GELU (exp, reciprocal, polynomial, sign select) is in that dispatch
    assert all(op in ffn1[0] for op in ("math.exp", "arith.divf", "arith.select", "math.absf"))
    # it loads its LHS and RHS only: erfc's coefficients are scalars, not splat tensors
    assert ffn1[0].count("flow.dispatch.tensor.load") == 2
    assert not [n for n in executables if re.search(rf"(elementwise|unset_encoding)\w*_{SEQ}x{FFN}_f32", n)]
    calls = re.findall(r"flow\.dispatch @", flow)
    assert len(calls) <= 26, f"{len(calls)} dispatches"


def test_attention_scores_stay_in_place_and_normalize_after_the_product():
    flow = rt.compile(str(MODEL), devices=["llvm-cpu"], compile_to="flow").decode()
    executables = _executables(flow.split("util.func")[0])
    scores = f"{HEADS}x{SEQ}x{SEQ}"
    # the scores' unpack runs in place inside their batch_matmul (the 1/sqrt(d) scale is
    # recomputed in the row max and the exp instead of unpacked into a scaled copy)
    assert not [n for n in executables if f"unset_encoding_{scores}_f32" in n]
    # the softmax's division runs on the 32x2x32 product (with the heads' transpose back),
    # not on the 2x32x32 probabilities
    assert not [n for n, body in executables.items() if n.endswith(f"elementwise_broadcast_{scores}_f32")
                and re.search(r"arith\.divf %\w+, %\w+ : f32", body) and "math.exp" not in body]
    tail = [body for n, body in executables.items() if n.endswith(f"_{SEQ}x{HEADS}x{D // HEADS}_f32")]
    assert len(tail) == 1 and "arith.divf" in tail[0]


@pytest.mark.slow
@pytest.mark.parametrize("target,uri", DEVICES)
def test_encoder_layer_matches_numpy(target, uri):
    args = _inputs()
    module = rt.load(rt.compile(str(MODEL), devices=[target]), devices=[uri])
    got = np.asarray(module.main(*args))
    want = _reference(*args)
    assert got.shape == (SEQ, D)
    np.testing.assert_allclose(got, want, rtol=2e-4, atol=2e-4)
