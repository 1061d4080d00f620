"""Real models through IREE's importers, then through rt and IREE side by side.

What IREE users bring, converted the way IREE converts it (``iree-compile --compile-to=input``):

* ``onnx``: small ONNX models (an MLP, gemm + softmax, conv + relu, a ShuffleNet-style and a
  MobileNet-style net in NCHW) imported with ``iree-import-onnx`` (coarse-fences ABI), with the
  weights inline and externalized into an ``.irpa`` parameter archive (loaded with
  ``parameters=["model=FILE"]`` on the rt side, an io_parameters module on IREE's);
* ``jax``: small JAX programs (an MLP, a GPT decoder block whose token embedding is a gather,
  an embedding lookup, a conv net, an NHWC MobileNet-style net with depthwise and grouped
  convs, layernorm + softmax, argmax/max reductions) lowered to
  StableHLO by ``jax.jit(f).lower(...)`` and converted with ``--iree-input-type=stablehlo``.

The ``onnx`` and ``jax`` packages are installed on first use next to the IREE 3.13 peer
(benchmarks/iree_peer.py), outside the project's environment. For every model and device the
script compiles the input-phase MLIR with rt, runs rt and IREE (llvm-cpu built for the host
CPU) on the same inputs, checks rt against IREE (and, for JAX, against JAX's own result) and
times the synchronous entry point of both in interleaved rounds::

    python benchmarks/iree_importer_inputs.py [--source=onnx,jax] [--rounds=5] [--keep=DIR] [--models=a,b]

Printed: per model and device, whether rt compiled and matched, or the first line of rt's
error; the median call time of each side and the ratio rt/iree. Nothing here is a test: the
tests (tests/e2e/test_coarse_fences.py, test_parameters.py) use hand-written MLIR.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from iree_peer import compare, iree_dir, load_iree, machine  # noqa: E402

import rt  # noqa: E402

#: Pinned versions of the importers' packages (jax 0.10 is the last release for Python 3.11).
PACKAGES = {"onnx": ["onnx==1.23.2"], "jax": ["jax==0.10.2", "jaxlib==0.10.2"]}
DEVICES = {"llvm-cpu": "local-task://llvm-cpu", "vmvx": "local-task://vmvx"}
IREE_FLAGS = {"llvm-cpu": ["--iree-llvmcpu-target-cpu=host"], "vmvx": []}


def package_dir(source):
    """A directory holding ``source``'s packages (installed there on first use)."""
    version = PACKAGES[source][0].split("==")[1]
    path = os.path.expanduser(f"~/.cache/rt-{source}-{version}")
    if not os.path.isdir(os.path.join(path, source)):
        cmd = [sys.executable, "-m", "pip", "install", "-q", "--target", path, *PACKAGES[source]]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"installing {source} failed: {' '.join(cmd)}\n{proc.stderr[-2000:]}")
    return path


ONNX_NAMES = ("mlp", "gemm_softmax", "conv_relu", "shufflenet", "mobilenet")
ONNX_MODELS = r'''
import sys
import numpy as np, onnx
from onnx import helper, TensorProto, numpy_helper
rng = np.random.default_rng(0)
out = sys.argv[1]

def save(name, nodes, inputs, outputs, weights):
    graph = helper.make_graph(nodes, name, inputs, outputs,
                              [numpy_helper.from_array(w.astype(np.float32 if w.dtype.kind == "f" else np.int64), n)
                               for n, w in weights.items()])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), f"{out}/{name}.onnx")
    x = rng.standard_normal([d.dim_value for d in inputs[0].type.tensor_type.shape.dim]).astype(np.float32)
    np.savez(f"{out}/{name}.io.npz", in0=x)

f = TensorProto.FLOAT
save("mlp", [helper.make_node("MatMul", ["x", "w1"], ["h"]), helper.make_node("Add", ["h", "b1"], ["hb"]),
             helper.make_node("Relu", ["hb"], ["r"]), helper.make_node("MatMul", ["r", "w2"], ["y"])],
     [helper.make_tensor_value_info("x", f, [8, 64])], [helper.make_tensor_value_info("y", f, [8, 16])],
     {"w1": rng.standard_normal((64, 128)) / 8, "b1": rng.standard_normal(128), "w2": rng.standard_normal((128, 16)) / 8})
save("gemm_softmax", [helper.make_node("Gemm", ["x", "w", "b"], ["g"], transB=1),
                      helper.make_node("Softmax", ["g"], ["y"], axis=1)],
     [helper.make_tensor_value_info("x", f, [4, 32])], [helper.make_tensor_value_info("y", f, [4, 10])],
     {"w": rng.standard_normal((10, 32)) / 4, "b": rng.standard_normal(10)})
save("conv_relu", [helper.make_node("Conv", ["x", "k"], ["c"], pads=[1, 1, 1, 1]),
                   helper.make_node("Relu", ["c"], ["y"])],
     [helper.make_tensor_value_info("x", f, [1, 3, 16, 16])], [helper.make_tensor_value_info("y", f, [1, 8, 16, 16])],
     {"k": rng.standard_normal((8, 3, 3, 3)) / 3})

def conv(name, x, c_in, c_out, k=1, stride=1, groups=1, act="relu"):
    """Conv (+ bias) and an activation; adds the weights to W, returns the output's name."""
    W[f"{name}.w"] = rng.standard_normal((c_out, c_in // groups, k, k)) / np.sqrt(c_in // groups * k * k)
    W[f"{name}.b"] = rng.standard_normal(c_out) / 10
    N.append(helper.make_node("Conv", [x, f"{name}.w", f"{name}.b"], [f"{name}.c"], kernel_shape=[k, k],
                              strides=[stride, stride], pads=[k // 2] * 4, group=groups))
    if act == "relu":
        N.append(helper.make_node("Relu", [f"{name}.c"], [name]))
    elif act == "relu6":
        N.append(helper.make_node("Clip", [f"{name}.c", "zero", "six"], [name]))
    else:
        return f"{name}.c"
    return name

def shuffle(name, x, c, hw, groups):
    """ShuffleNet's channel shuffle: reshape to (g, c/g), transpose, reshape back."""
    W[f"{name}.s1"], W[f"{name}.s2"] = np.array([1, groups, c // groups, hw, hw]), np.array([1, c, hw, hw])
    N.extend([helper.make_node("Reshape", [x, f"{name}.s1"], [f"{name}.r"]),
              helper.make_node("Transpose", [f"{name}.r"], [f"{name}.t"], perm=[0, 2, 1, 3, 4]),
              helper.make_node("Reshape", [f"{name}.t", f"{name}.s2"], [name])])
    return name

def head(x, c, classes=10):
    """Global average pool, flatten and a dense layer to ``classes`` logits."""
    W["fc.w"], W["fc.b"] = rng.standard_normal((classes, c)) / np.sqrt(c), rng.standard_normal(classes) / 10
    N.extend([helper.make_node("GlobalAveragePool", [x], ["gap"]), helper.make_node("Flatten", ["gap"], ["flat"]),
              helper.make_node("Gemm", ["flat", "fc.w", "fc.b"], ["y"], transB=1)])

# ShuffleNet v1 style, groups 4: grouped 1x1 convs, shuffles, depthwise 3x3 stride 2 / 1, average-pool
# shortcut + concat, max pool, global average pool; 1x3x96x96 -> 10.
N, W, G = [], {}, 4
x = conv("stem", "x", 3, 24, k=3, stride=2)
N.append(helper.make_node("MaxPool", [x], ["pool"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]))
x, c, hw = "pool", 24, 24
for i, (c_out, stride) in enumerate([(96, 2), (96, 1), (96, 1), (192, 2), (192, 1)]):
    u, hw_out = f"u{i}", hw // stride
    mid = c_out // 4
    a = conv(f"{u}.g1", x, c, mid, groups=1 if i == 0 else G)
    a = shuffle(f"{u}.sh", a, mid, hw, G)
    a = conv(f"{u}.dw", a, mid, mid, k=3, stride=stride, groups=mid, act=None)
    if stride == 2:
        a = conv(f"{u}.g2", a, mid, c_out - c, groups=G, act=None)
        N.append(helper.make_node("AveragePool", [x], [f"{u}.ap"], kernel_shape=[3, 3], strides=[2, 2],
                                  pads=[1, 1, 1, 1], count_include_pad=0))
        N.append(helper.make_node("Concat", [f"{u}.ap", a], [f"{u}.cat"], axis=1))
    else:
        a = conv(f"{u}.g2", a, mid, c_out, groups=G, act=None)
        N.append(helper.make_node("Add", [x, a], [f"{u}.cat"]))
    N.append(helper.make_node("Relu", [f"{u}.cat"], [u]))
    x, c, hw = u, c_out, hw_out
head(x, c)
save("shufflenet", N, [helper.make_tensor_value_info("x", f, [1, 3, 96, 96])],
     [helper.make_tensor_value_info("y", f, [1, 10])], W)

# MobileNet v1 style: depthwise-separable blocks (depthwise 3x3 + pointwise 1x1, ReLU6), global
# average pool, dense; 1x3x96x96 -> 10.
N, W = [], {"zero": np.array(0.0), "six": np.array(6.0)}
x, c = conv("stem", "x", 3, 16, k=3, stride=2, act="relu6"), 16
for i, (c_out, stride) in enumerate([(32, 1), (64, 2), (64, 1), (128, 2), (128, 1), (256, 2)]):
    x = conv(f"b{i}.dw", x, c, c, k=3, stride=stride, groups=c, act="relu6")
    x, c = conv(f"b{i}.pw", x, c, c_out, act="relu6"), c_out
head(x, c)
save("mobilenet", N, [helper.make_tensor_value_info("x", f, [1, 3, 96, 96])],
     [helper.make_tensor_value_info("y", f, [1, 10])], W)
'''

JAX_MODELS = r'''
import sys
import numpy as np, jax, jax.numpy as jnp
out = sys.argv[1]
rng = np.random.default_rng(0)

def W(*shape, scale=0.1):
    return jnp.asarray((rng.standard_normal(shape) * scale).astype(np.float32))

def save(name, f, *args):
    open(f"{out}/{name}.stablehlo.mlir", "w").write(jax.jit(f).lower(*args).as_text())
    r = f(*args)
    r = r if isinstance(r, tuple) else (r,)
    np.savez(f"{out}/{name}.io.npz", **{f"in{i}": np.asarray(a) for i, a in enumerate(args)},
             **{f"out{i}": np.asarray(a) for i, a in enumerate(r)})

w1, b1, w2 = W(64, 128), W(128), W(128, 16)
save("mlp", lambda x: jax.nn.relu(x @ w1 + b1) @ w2, W(8, 64, scale=1))

V, D, T, H = 50, 32, 8, 4
emb, pos = W(V, D, scale=1), W(T, D)
wq, wk, wv, wo, f1, f2 = W(D, D), W(D, D), W(D, D), W(D, D), W(D, 4 * D), W(4 * D, D)
g, b = 1 + W(D), W(D)

def ln(x):
    m = x.mean(-1, keepdims=True)
    return (x - m) / jnp.sqrt(((x - m) ** 2).mean(-1, keepdims=True) + 1e-5) * g + b

def gpt(ids):
    x = emb[ids] + pos
    h = ln(x)
    q, k, v = ((h @ w).reshape(T, H, D // H) for w in (wq, wk, wv))
    s = jnp.where(jnp.tril(jnp.ones((T, T), bool)), jnp.einsum("thd,shd->hts", q, k) / np.sqrt(D // H), -1e9)
    x = x + jnp.einsum("hts,shd->thd", jax.nn.softmax(s, -1), v).reshape(T, D) @ wo
    x = x + jax.nn.gelu(ln(x) @ f1) @ f2
    return ln(x) @ emb.T

save("gpt_decoder", gpt, jnp.asarray(np.array([3, 14, 15, 9, 2, 6, 5, 35], np.int32)))
save("embedding", lambda ids: jnp.take(emb, ids, axis=0), jnp.asarray(np.array([[1, 2], [49, 0]], np.int32)))
k1, dw = W(3, 3, 1, 4), W(4 * 7 * 7, 10)

def cnn(x):
    y = jax.nn.relu(jax.lax.conv_general_dilated(x, k1, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")))
    y = jax.lax.reduce_window(y, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    return jax.nn.log_softmax(y.reshape(y.shape[0], -1) @ dw)

save("cnn", cnn, W(2, 14, 14, 1, scale=1))

def conv(x, k, stride=1, groups=1):
    return jax.lax.conv_general_dilated(x, k, (stride, stride), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"),
                                        feature_group_count=groups)

relu6 = lambda y: jnp.clip(y, 0, 6)
stem, fc, fcb = (W(3, 3, 3, 16), W(16)), W(128, 10), W(10)
blocks = [(W(3, 3, 1, c), W(c), W(1, 1, c // g, o), W(o), s, g)
          for c, o, s, g in [(16, 32, 1, 1), (32, 64, 2, 4), (64, 64, 1, 4), (64, 128, 2, 4)]]

def mobilenet_nhwc(x):
    # depthwise-separable blocks (depthwise 3x3 stride 1/2, grouped or plain 1x1, ReLU6), NHWC
    y = relu6(conv(x, stem[0], 2) + stem[1])
    for dw, db, pw, pb, stride, groups in blocks:
        y = relu6(conv(y, dw, stride, groups=y.shape[-1]) + db)
        y = relu6(conv(y, pw, groups=groups) + pb)
    return y.mean((1, 2)) @ fc + fcb

save("mobilenet_nhwc", mobilenet_nhwc, W(1, 64, 64, 3, scale=1))
save("layernorm_softmax", lambda x: jax.nn.softmax(ln(x), -1), W(6, D, scale=1))
save("argmax_max", lambda x: (jnp.argmax(x, -1).astype(jnp.int32), x.max(0)), W(5, 7, scale=1))
'''


def _run(cmd, env):
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{proc.stderr[-2000:]}")


def prepare_onnx(work):
    """{(model, variant): (input MLIR, irpa or None, entry function)} for the ONNX models."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([iree_dir(), package_dir("onnx")]))
    _run([sys.executable, "-c", ONNX_MODELS, work], env)
    out = {}
    for name in ONNX_NAMES:
        for variant, extra in (("inline", []), ("params", ["--externalize-params", "--num-elements-threshold=1",
                                                           f"--save-params-to={work}/{name}.irpa"])):
            torch = f"{work}/{name}.{variant}.torch.mlir"
            _run([sys.executable, "-m", "iree.compiler.tools.import_onnx", f"{work}/{name}.onnx", "-o", torch, *extra],
                 env)
            mlir = f"{work}/{name}.{variant}.input.mlir"
            _run([sys.executable, os.path.join(iree_dir(), "bin", "iree-compile"), torch, "--compile-to=input",
                  "-o", mlir], env)
            out[(name, variant)] = (mlir, f"{work}/{name}.irpa" if variant == "params" else None, name)
    return out


def prepare_jax(work):
    """{(model, "inline"): (input MLIR, None, "main")} for the JAX models."""
    _run([sys.executable, "-c", JAX_MODELS, work],
         dict(os.environ, PYTHONPATH=package_dir("jax"), JAX_PLATFORMS="cpu"))
    env = dict(os.environ, PYTHONPATH=iree_dir())
    out = {}
    for name in sorted(p[:-len(".stablehlo.mlir")] for p in os.listdir(work) if p.endswith(".stablehlo.mlir")):
        mlir = f"{work}/{name}.input.mlir"
        _run([sys.executable, os.path.join(iree_dir(), "bin", "iree-compile"), f"{work}/{name}.stablehlo.mlir",
              "--iree-input-type=stablehlo", "--compile-to=input", "-o", mlir], env)
        out[(name, "inline")] = (mlir, None, "main")
    return out


def iree_module(ireert, vmfb_path, irpa):
    """IREE's module for ``vmfb_path`` on local-task, with ``irpa`` as scope ``model``."""
    config = ireert.Config("local-task")
    instance = config.vm_instance
    modules = [ireert.create_hal_module(instance, config.device)]
    if irpa is not None:
        index = ireert.ParameterIndex()
        index.load(irpa)
        modules.insert(0, ireert.create_io_parameters_module(instance, index.create_provider(scope="model")))
    with open(vmfb_path, "rb") as f:
        main = ireert.VmModule.copy_buffer(instance, f.read())
    ctx = ireert.SystemContext(vm_modules=[*modules, main], config=config)
    return ctx.modules[main.name], ctx


def _as_tuple(value):
    return value if isinstance(value, tuple) else (value,)


def _close(got, want):
    return len(got) == len(want) and all(
        np.shape(g) == np.shape(w) and np.allclose(g, w, rtol=1e-4, atol=1e-4) for g, w in zip(got, want))


def run_model(ic, ireert, source, name, variant, mlir, irpa, entry, rounds):
    """Compile, check and time one model on every device; prints one row per device."""
    io = np.load(os.path.join(os.path.dirname(mlir), f"{name}.io.npz"))
    xs = [io[k] for k in sorted(k for k in io.files if k.startswith("in"))]
    reference = [io[k] for k in sorted(k for k in io.files if k.startswith("out"))]
    for target, uri in DEVICES.items():
        row = f"{source:<7}{name:<18}{variant:<8}{target:<10}"
        try:
            module = rt.load(rt.compile(mlir, devices=[target]), devices=[uri],
                             parameters=None if irpa is None else [f"model={irpa}"])
            got = _as_tuple(module[entry](*xs))
        except rt.RtError as e:
            print(row + f"FAILED  {type(e).__name__}: {str(e).splitlines()[0][:110]}", flush=True)
            continue
        vmfb_path = f"{mlir[:-len('.input.mlir')]}.{target}.iree.vmfb"
        ic.compile_file(mlir, output_file=vmfb_path, target_backends=[target], extra_args=IREE_FLAGS[target])
        peer, ctx = iree_module(ireert, vmfb_path, irpa)
        want = tuple(np.asarray(v) for v in _as_tuple(getattr(peer, entry)(*xs)))
        match = _close(got, want) and (not reference or _close(got, reference))
        times = compare({"rt": lambda: module[entry](*xs), "iree": lambda: getattr(peer, entry)(*xs)}, rounds=rounds)
        print(row + f"{'ok':<8}{'yes' if match else 'NO':<7}{times['rt'] * 1e3:>9.3f}{times['iree'] * 1e3:>9.3f}"
                    f"{times['rt/iree']:>9.2f}", flush=True)
        module.close()
        del ctx


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--source", default="onnx,jax", help="comma-separated: onnx, jax")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--keep", default=None, help="keep the generated files in this directory")
    parser.add_argument("--models", default=None, help="comma-separated model names (default: all)")
    args = parser.parse_args(argv)
    ic, ireert = load_iree()
    work = args.keep or tempfile.mkdtemp(prefix="rt-importers-")
    print(f"# {machine()}; IREE 3.13 as the peer")
    print(f"{'source':<7}{'model':<18}{'weights':<8}{'device':<10}{'rt':<8}{'match':<7}"
          f"{'rt ms':>9}{'iree ms':>9}{'rt/iree':>9}")
    for source in args.source.split(","):
        folder = os.path.join(work, source)
        os.makedirs(folder, exist_ok=True)
        models = {"onnx": prepare_onnx, "jax": prepare_jax}[source](folder)
        for (name, variant), (mlir, irpa, entry) in models.items():
            if args.models and name not in args.models.split(","):
                continue
            run_model(ic, ireert, source, name, variant, mlir, irpa, entry, args.rounds)


if __name__ == "__main__":
    main()
