"""Export the StableHLO of six JAX models, their inputs and JAX's CPU results (runs inside a JAX venv).

Usage (``benchmarks/jax_models.py`` runs it in a throwaway environment)::

    python benchmarks/jax_models_export.py OUT_DIR [--symbolic]

Writes ``OUT_DIR/<model>.mlir`` (``jax.jit(f).lower(*args).as_text()``), ``<model>.inputs.npz``
and ``<model>.expected.npz`` for: an MLP, a CNN (conv, pooling, dense), a transformer encoder
block (attention, layer norm, GELU), an LSTM over a sequence (``lax.scan``), a GPT decoder block
with an embedding gather and causal mask, and an MLP training step (``value_and_grad`` + SGD).
Weights are random with fixed seeds; only jax and numpy are used.

With ``--symbolic`` each model is exported with ``jax.export`` and the leading dim of its data
inputs (``SYMBOLIC``: batch, or sequence length) as the symbolic dimension ``b``, and a second
input set of half that size is written too (``<model>.inputs2.npz``, ``<model>.expected2.npz``):
one compiled module must give JAX's results at both sizes. A model JAX cannot export that way
is reported and skipped.
"""
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np


def _rand(rng, *shape, scale=0.5):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def mlp(rng):
    params = [_rand(rng, 64, 128), _rand(rng, 128), _rand(rng, 128, 10), _rand(rng, 10)]

    def f(x, w1, b1, w2, b2):
        h = jax.nn.relu(x @ w1 + b1)
        return jax.nn.softmax(h @ w2 + b2, axis=-1)
    return f, [_rand(rng, 8, 64, scale=1.0)] + params


def cnn(rng):
    params = [_rand(rng, 3, 3, 3, 8), _rand(rng, 8), _rand(rng, 4 * 4 * 8, 10)]

    def f(x, k, b, w):
        y = jax.lax.conv_general_dilated(x, k, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
        y = jax.nn.relu(y + b)
        y = jax.lax.reduce_window(y, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
        return y.reshape(y.shape[0], -1) @ w
    return f, [_rand(rng, 2, 8, 8, 3, scale=1.0)] + params


def _layer_norm(x, g, b):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / jnp.sqrt(var + 1e-5) * g + b


def _attention(x, wq, wk, wv, wo, heads, mask=None):
    s, d = x.shape
    q, k, v = (jnp.transpose((x @ w).reshape(s, heads, d // heads), (1, 0, 2)) for w in (wq, wk, wv))
    scores = q @ jnp.transpose(k, (0, 2, 1)) / np.sqrt(d // heads).astype(np.float32)
    if mask is not None:
        scores = jnp.where(mask, scores, -1e9)
    out = jax.nn.softmax(scores, axis=-1) @ v
    return jnp.transpose(out, (1, 0, 2)).reshape(s, d) @ wo


def transformer(rng):
    d = 32
    params = [_rand(rng, d, d) for _ in range(4)] + [np.ones(d, np.float32), np.zeros(d, np.float32),
                                                    _rand(rng, d, 64), _rand(rng, 64, d)]

    def f(x, wq, wk, wv, wo, g, b, w1, w2):
        h = _layer_norm(x + _attention(x, wq, wk, wv, wo, 4), g, b)
        return _layer_norm(h + jax.nn.gelu(h @ w1, approximate=False) @ w2, g, b)
    return f, [_rand(rng, 16, d, scale=1.0)] + params


def lstm(rng):
    hidden, features = 16, 8
    params = [_rand(rng, features, 4 * hidden), _rand(rng, hidden, 4 * hidden), _rand(rng, 4 * hidden)]

    def f(xs, wx, wh, b):
        def step(carry, x):
            h, c = carry
            z = x @ wx + h @ wh + b
            i, g, fo, o = jnp.split(z, 4, axis=-1)
            c = jax.nn.sigmoid(fo) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
            h = jax.nn.sigmoid(o) * jnp.tanh(c)
            return (h, c), h
        zeros = jnp.zeros((xs.shape[1], hidden), jnp.float32)
        (h, _), hs = jax.lax.scan(step, (zeros, zeros), xs)
        return h, hs.sum(0)
    return f, [_rand(rng, 12, 2, features, scale=1.0)] + params


def gpt(rng):
    vocab, d, s = 50, 32, 12
    params = [_rand(rng, vocab, d), _rand(rng, s, d)] + [_rand(rng, d, d) for _ in range(4)] + [
        np.ones(d, np.float32), np.zeros(d, np.float32), _rand(rng, d, 4 * d), _rand(rng, 4 * d, d)]

    def f(tokens, emb, pos, wq, wk, wv, wo, g, b, w1, w2):
        x = emb[tokens] + pos
        mask = jnp.tril(jnp.ones((s, s), bool))
        x = x + _attention(_layer_norm(x, g, b), wq, wk, wv, wo, 4, mask)
        x = x + jax.nn.gelu(_layer_norm(x, g, b) @ w1) @ w2
        return _layer_norm(x, g, b) @ emb.T
    return f, [rng.integers(0, vocab, s).astype(np.int32)] + params


def train_step(rng):
    params = [_rand(rng, 16, 32), _rand(rng, 32), _rand(rng, 32, 4), _rand(rng, 4)]

    def loss(w1, b1, w2, b2, x, y):
        logits = jnp.tanh(x @ w1 + b1) @ w2 + b2
        return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * y, axis=-1))

    def f(w1, b1, w2, b2, x, y):
        value, grads = jax.value_and_grad(loss, argnums=(0, 1, 2, 3))(w1, b1, w2, b2, x, y)
        return (value,) + tuple(p - 0.1 * g for p, g in zip((w1, b1, w2, b2), grads))
    x = _rand(rng, 8, 16, scale=1.0)
    y = np.eye(4, dtype=np.float32)[rng.integers(0, 4, 8)]
    return f, params + [x, y]


MODELS = {"mlp": mlp, "cnn": cnn, "transformer": transformer, "lstm": lstm, "gpt": gpt, "train_step": train_step}


#: model -> positions of the inputs whose leading dim is the symbolic ``b`` of ``--symbolic``
SYMBOLIC = {"mlp": [0], "cnn": [0], "transformer": [0], "lstm": [0], "gpt": [0], "train_step": [4, 5]}


def _export_symbolic(out, name, f, args):
    from jax import export

    size = export.symbolic_shape("b")[0]
    specs = [jax.ShapeDtypeStruct(((size,) + a.shape[1:]) if i in SYMBOLIC[name] else a.shape, a.dtype)
             for i, a in enumerate(args)]
    try:
        exported = export.export(jax.jit(f))(*specs)
    except Exception as e:  # JAX's shape polymorphism refuses some programs (e.g. a fixed-size add)
        print(f"{name}: not exportable with a symbolic dim: {str(e).splitlines()[0]}", flush=True)
        return
    with open(os.path.join(out, f"{name}.mlir"), "w") as fh:
        fh.write(exported.mlir_module())
    for suffix, cut in (("", None), ("2", max(1, args[SYMBOLIC[name][0]].shape[0] // 2))):
        given = [a[:cut] if i in SYMBOLIC[name] else a for i, a in enumerate(args)]
        results = jax.tree_util.tree_leaves(jax.jit(f)(*given))
        np.savez(os.path.join(out, f"{name}.inputs{suffix}.npz"), *given)
        np.savez(os.path.join(out, f"{name}.expected{suffix}.npz"), *[np.asarray(r) for r in results])
    print(f"{name}: exported with a symbolic dim", flush=True)


def main(out, symbolic=False):
    os.makedirs(out, exist_ok=True)
    for name, build in MODELS.items():
        f, args = build(np.random.default_rng(7))
        if symbolic:
            _export_symbolic(out, name, f, args)
            continue
        jitted = jax.jit(f)
        with open(os.path.join(out, f"{name}.mlir"), "w") as fh:
            fh.write(jitted.lower(*args).as_text())
        results = jitted(*args)
        results = results if isinstance(results, tuple) else (results,)
        np.savez(os.path.join(out, f"{name}.inputs.npz"), *args)
        np.savez(os.path.join(out, f"{name}.expected.npz"), *[np.asarray(r) for r in results])
        print(f"{name}: {len(args)} inputs, {len(results)} results", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], "--symbolic" in sys.argv[2:])
